// The collapsed rows of tool calls in real Chromium against a real Host: `[demo:escape]` tries
// eight ways out of the project, and each refusal reads as its own line (the path it tried and
// why it was refused), not eight identical "files_read … failed".
import { test, expect } from "@playwright/test";
import { join } from "node:path";
import { SCREENS, sendInNewSession, startHost, stopHost, type Host } from "./host";

let host: Host;
test.afterEach(async () => {
  await stopHost(host);
});

test("each refused call of [demo:escape] names its path and its reason in its row", async ({ page }) => {
  host = await startHost();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:escape] try");
  const rows = page.locator(".call-failed");
  await expect.poll(() => rows.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
  const subjects = await page.locator(".call-failed .call-subject").allTextContents();
  const errors = await page.locator(".call-failed .call-error-line").allTextContents();
  expect(subjects.length).toBe(await rows.count());
  expect(errors.length).toBe(subjects.length);
  // Different calls read differently.
  expect(new Set(subjects.map((s, i) => `${s} ${errors[i]}`)).size).toBe(subjects.length);
  for (const e of errors) expect(e.length).toBeGreaterThan(10);
  await page.screenshot({ path: join(SCREENS, "tool-rows-escape.png") });
});
