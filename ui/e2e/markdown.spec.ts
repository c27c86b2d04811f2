// Markdown like the tools people use, in real Chromium: GitHub-flavoured
// constructs, highlighted and named code blocks with Copy, a highlight theme per colour scheme,
// and a long word that wraps instead of overflowing, at 800 and 1,920 px.
import { test, expect } from "@playwright/test";
import { shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost(["--sim-pace-ms", "0"]);
});
test.afterEach(async () => {
  await stopHost(host);
});

test("an answer in GitHub-flavoured markdown renders as GitHub would", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:markdown] show me");
  await box.press("Enter");
  const answer = page.locator("article.run .answer > .markdown");
  await expect(answer.locator("table td").first()).toHaveText("files_read");
  await expect(answer.locator("input[type=checkbox]")).toHaveCount(2);
  await expect(answer.locator("blockquote")).toContainText("file contents are data");
  await expect(answer.locator("del")).toHaveText("struck");
  await expect(answer.locator("a[href='https://example.com/docs']")).toHaveAttribute("target", "_blank");
  const rust = answer.locator(".codeblock").first();
  await expect(rust.locator(".codeblock-head")).toContainText("rust");
  await expect(rust.locator(".hljs-keyword").first()).toHaveText("fn");
  await rust.getByRole("button", { name: "Copy code" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain("let answer = 42;");
  // The highlight theme follows the colour scheme.
  const light = await rust.locator(".hljs-keyword").first().evaluate((el) => getComputedStyle(el).color);
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await rust.locator(".hljs-keyword").first().evaluate((el) => getComputedStyle(el).color);
  expect(light).not.toBe(dark);
  await page.emulateMedia({ colorScheme: "light" });
  // The long word wraps at both widths: nothing is wider than the answer.
  for (const width of [800, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await answer.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
  }
  await shootAll(page, "markdown", async (p) => {
    await expect(p.locator("article.run .codeblock").first()).toBeVisible();
  });
});
