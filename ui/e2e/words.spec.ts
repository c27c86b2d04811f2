// Words in real Chromium against a real Host: plurals, cards titled by their
// outcome, "not answered" in plain words, no diff when a write changes nothing, and a tool
// list reported as the success it is.
import { test, expect, type Page } from "@playwright/test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sendInNewSession as send, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost(["--sim-pace-ms", "0"]);
});
test.afterEach(async () => {
  await stopHost(host);
});

/** A new session on this test's Host, with `text` sent. */
const sendInNewSession = (page: Page, text: string) => send(page, text, host.url);

test("an approved card is titled by its outcome; the process counts in good English", async ({ page }) => {
  await sendInNewSession(page, "[demo:write] please");
  await page.getByRole("group", { name: "Approve files_write?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("wisp-demo.txt was written").first()).toBeVisible();
  await expect(page.getByRole("button", { name: /Tool process/ })).toContainText("1 step, 1 tool call");
  await page.getByRole("button", { name: /Tool process/ }).click();
  await expect(page.getByRole("group", { name: "Approved: write wisp-demo.txt" })).toBeVisible();
  await shootAll(page, "answered-card", async (p) => {
    await p.locator(".process-toggle").click();
    await expect(p.locator(".approval-approved")).toBeVisible();
  });
});

test("a write that changes nothing says so instead of showing a diff", async ({ page }) => {
  writeFileSync(join(host.project, "wisp-demo.txt"), "Hello from the Wisp simulator.\n你好，这是 Wisp 模拟器写的文件。\n");
  await sendInNewSession(page, "[demo:write] please");
  const card = page.getByRole("group", { name: "Approve files_write?" });
  await expect(card.getByText("No change: the file already has this content")).toBeVisible();
  await expect(card.getByLabel("diff")).toHaveCount(0);
});

test("a write that creates its file shows it as new without a request that fails", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  const previews: number[] = [];
  page.on("response", (r) => {
    if (r.url().includes("/preview?")) previews.push(r.status());
  });
  await sendInNewSession(page, "[demo:write] please");
  const card = page.getByRole("group", { name: "Approve files_write?" });
  await expect(card.getByText("New file")).toBeVisible();
  await card.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("group", { name: /Rejected/ }).first()).toBeAttached();
  expect(previews.filter((s) => s === 404)).toEqual([]);
  expect(errors).toEqual([]);
});

test("[demo:introspect] reports its tool list as a success", async ({ page }) => {
  await sendInNewSession(page, "[demo:introspect]");
  const answer = page.locator("article.run .answer > .markdown");
  await expect(answer).toContainText("These are my tools");
  // The first call succeeded (a tool list mentions errors without being one); the second,
  // with an argument tool_introspect does not take, failed.
  await expect(answer).toContainText("tool_introspect succeeded: [");
  await expect(answer).toContainText("tool_introspect failed: {\"error\"");
});
