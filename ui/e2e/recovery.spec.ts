// Recovery in one click in real Chromium against a real Host: a stopped answer
// keeps what streamed; Retry, Continue, Edit & resend and Copy do what they say, and the Host
// agrees (checked over the API).
import { test, expect, type Page } from "@playwright/test";
import { apiRuns, sendInNewSession as send, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.afterEach(async () => {
  await stopHost(host);
});

/** A new session on this test's Host, with `text` sent. */
const sendInNewSession = (page: Page, text: string) => send(page, text, host.url);

test("a stopped answer keeps what streamed; Retry sends the same message again", async ({ page, request }) => {
  host = await startHost();
  await sendInNewSession(page, "tell me a story [fault:slow]");
  // Stop once some answer text is on screen.
  await expect(page.locator(".live .markdown")).not.toBeEmpty({ timeout: 20_000 });
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByText("You stopped this run.")).toBeVisible();
  const partial = page.locator("[data-partial-step]");
  await expect(partial).toContainText("Cut off");
  const [run] = await apiRuns(request, host);
  const kept = run!.steps[0] as unknown as { text: string; partial: boolean };
  expect(kept.partial).toBe(true);
  await expect(partial.locator(".markdown")).toHaveText(kept.text.trim());
  await shootAll(page, "partial-after-stop", async (p) => {
    await expect(p.locator("[data-partial-step]")).toBeVisible();
  });
  await page.getByRole("button", { name: "Retry" }).click();
  await expect(page.locator("article.run")).toHaveCount(2);
  await expect(page.locator("article.run").nth(1).locator(".bubble")).toHaveText("tell me a story [fault:slow]");
  const runs = await apiRuns(request, host);
  expect(runs.map((r) => (r as unknown as { text: string }).text)).toEqual(["tell me a story [fault:slow]", "tell me a story [fault:slow]"]);
});

test("Edit & resend puts the message in the box; Copy copies the message and the answer", async ({ page, context }) => {
  host = await startHost();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const box = await sendInNewSession(page, "hello there");
  await expect(page.getByText("comes from the Wisp simulator").first()).toBeVisible();
  await page.getByRole("button", { name: "Copy", exact: true }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("hello there");
  await page.getByRole("button", { name: "Copy answer" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain("comes from the Wisp simulator");
  await page.getByRole("button", { name: "Edit & resend" }).click();
  await expect(box).toHaveValue("hello there");
  await expect(box).toBeFocused();
  await box.press("End");
  await box.pressSequentially(", again");
  await box.press("Enter");
  await expect(page.locator("article.run").nth(1).locator(".bubble")).toHaveText("hello there, again");
});

test("a run out of steps offers Continue, which asks the model to go on in a new run", async ({ page, request }) => {
  host = await startHost(["--sim-pace-ms", "0"]);
  await sendInNewSession(page, "[demo:loop] go");
  await expect(page.locator("article.run").first()).toHaveAttribute("data-status", "budget_exhausted", { timeout: 30_000 });
  await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.locator("article.run")).toHaveCount(2);
  await expect(page.locator("article.run").nth(1).locator(".bubble")).toHaveText("Please continue where you stopped.");
  const texts = (await apiRuns(request, host)).map((r) => (r as unknown as { text: string }).text);
  expect(texts).toContain("Please continue where you stopped.");
});
