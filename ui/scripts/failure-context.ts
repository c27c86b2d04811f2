// Prints what the page showed when a browser test failed (Playwright's error context: the page's
// accessibility snapshot), so a failure on CI, where test-results/ is not kept, can be read from
// the log alone.
import { readFileSync } from "node:fs";
import type { Reporter, TestCase, TestResult } from "@playwright/test/reporter";

export default class FailureContext implements Reporter {
  onTestEnd(test: TestCase, result: TestResult) {
    if (result.status === test.expectedStatus) return;
    for (const a of result.attachments) {
      if (a.name !== "error-context" || !a.path) continue;
      let text: string;
      try {
        text = readFileSync(a.path, "utf8");
      } catch (e) {
        text = `(the error context could not be read: ${String(e)})`;
      }
      // The snapshots only (YAML blocks): the error itself is printed by the list reporter.
      const snapshots = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
      if (snapshots.length > 0) text = snapshots.join("\n");
      process.stdout.write(`\n── what the page showed: ${test.titlePath().filter(Boolean).join(" › ")}\n${text}\n──\n`);
    }
  }

  printsToStdio() {
    return false;
  }
}
