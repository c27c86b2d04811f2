// A long session in real Chromium against a real Host: with a small window set in Settings →
// Model, a session whose messages outgrow it has the model summarise its earlier runs; the run
// shows that summary labelled as the model's, with its cost line, and the outline of what its
// request carried; the header says how full the window is.
import { test, expect } from "@playwright/test";
import { join } from "node:path";
import { SCREENS, sendInNewSession, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

const long = (i: number) => `Message ${i}: ` + "the person explains at length what they want from this session. ".repeat(90);

test("a session outgrowing a small window gets the model's summary of its earlier runs, shown as such", async ({ page }) => {
  await page.goto(host.url);
  await page.getByRole("button", { name: "Settings" }).click();
  const settings = page.getByRole("region", { name: "Long sessions" });
  await expect(settings.getByTestId("window-in-effect")).toHaveText(/^Wisp takes 1,048,576 tokens: the model's known window\./);
  await settings.getByLabel("Context window of deepseek-v4-flash (tokens)").fill("8192");
  await settings.getByRole("button", { name: "Save" }).click();
  await expect(settings.getByTestId("window-in-effect")).toHaveText("Wisp takes 8,192 tokens: the window set here.");
  await page.keyboard.press("Escape");

  const box = await sendInNewSession(page, long(1));
  await expect(page.locator("article.run[data-status=completed]")).toHaveCount(1);
  for (let i = 2; i <= 4; i++) {
    await box.fill(long(i));
    await box.press("Enter");
    await expect(page.locator("article.run[data-status=completed]")).toHaveCount(i);
    if ((await page.getByTestId("context-summary").count()) > 0) break;
  }
  const summary = page.getByTestId("context-summary").first();
  await expect(summary.locator("summary")).toContainText(/^The model's summary of \d+ earlier runs? · Tokens: \d+ in/);
  await summary.locator("summary").click();
  await expect(summary).toContainText("Summary written by the Wisp simulator: the person sent 1 earlier message.");
  const run = page.locator("article.run", { has: page.getByTestId("context-summary") });
  await expect(run.getByTestId("context-outline")).toHaveText(/^Its last request carried the session's earlier runs so: \d+ in the model's summary · 0 with tool results left out · 0 whole\.$/);
  await expect(page.getByTestId("session-cost")).toContainText(/context: \d+% of 8,192 tokens$/);
  await page.screenshot({ path: join(SCREENS, "long-session-summary.png") });
  // The summary opened, the outline and the header's context use, at 800 and 1,920 px, in both
  // languages and themes.
  await shootAll(page, "long-session-summary", async (p) => {
    const block = p.getByTestId("context-summary").first();
    await block.locator("summary").click();
    await block.scrollIntoViewIfNeeded();
    await expect(p.getByTestId("session-cost")).toContainText("8,192");
  });
  await shootAll(page, "long-session-settings", async (p) => {
    await p.getByRole("button", { name: /^(Settings|设置)$/ }).click();
    await p.getByRole("region", { name: /^(Long sessions|长会话)$/ }).scrollIntoViewIfNeeded();
  });
  await page.keyboard.press("Escape");

  // The next message works, and its request carries the summary: the session goes on.
  await box.fill("[demo:read]");
  await box.press("Enter");
  await expect(page.locator("article.run").last()).toHaveAttribute("data-status", "completed");
  await expect(page.locator("article.run").last().getByTestId("context-outline")).toContainText("in the model's summary");
});
