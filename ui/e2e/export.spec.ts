// A session exported as Markdown from its header, in real Chromium against a real Host: the
// browser downloads the Host's file, which holds the message, the tool calls with their
// arguments and results, and the answer.
import { test, expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { sendInNewSession, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

test("Export as Markdown downloads the session with its calls and answer", async ({ page }) => {
  await sendInNewSession(page, "[demo:multi] look around", host.url);
  await expect(page.getByRole("button", { name: "Copy answer" })).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export as Markdown" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^wisp-s_[0-9a-f]{32}\.md$/);
  const md = readFileSync((await file.path())!, "utf8");
  expect(md).toMatch(/^# \[demo:multi\] look around\n/);
  expect(md).toContain("## You\n\n[demo:multi] look around\n");
  expect(md).toContain("**Tool call `files_list`**");
  expect(md).toContain("```json\n");
  expect(md).toContain("## Wisp\n");
});
