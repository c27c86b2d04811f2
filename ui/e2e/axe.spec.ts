// axe-core (WCAG 2 A/AA and best practice) in real Chromium against a real Host: every state a
// person meets — first launch, each card kind pending, tool rows open, each tab kind, Settings,
// the narrow layout with its overlay, the QA page — in light and dark, with zero violations.
// A violation is reported by rule, element and what axe says to fix.
import { test, expect, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCREENS, sendInNewSession, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost(["--card-recheck-ms", "0"]);
  writeFileSync(join(host.project, "wisp-demo.txt"), "alpha\nbeta\n");
  writeFileSync(join(host.project, ".env"), "API_TOKEN=sk-live-0123456789\n");
  mkdirSync(join(host.project, "drafts/old"), { recursive: true });
  writeFileSync(join(host.project, "drafts/old/v1.md"), "v1\n");
  mkdirSync(join(host.project, "archive"));
  mkdirSync(join(host.project, "old"), { recursive: true });
  writeFileSync(join(host.project, "old/a.log"), "a");
});
test.afterEach(async () => {
  await stopHost(host);
});

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

/** Audits the page as it is, in light and in dark, and fails with every violation listed. */
async function audit(page: Page, state: string) {
  const found: string[] = [];
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => {
      document.documentElement.dataset.theme = t;
      localStorage.setItem("wisp-theme", t);
    }, theme);
    await page.emulateMedia({ colorScheme: theme });
    // Transitions finished, so colours are the final ones.
    await page.waitForTimeout(50);
    const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
    for (const v of result.violations) {
      for (const n of v.nodes) found.push(`${state} (${theme}): ${v.id} — ${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ")}`);
    }
    await page.screenshot({ path: join(SCREENS, `axe-${state}-${theme}.png`) });
  }
  expect(found, found.join("\n")).toEqual([]);
}

test("first launch", async ({ page }) => {
  await page.goto(host.url);
  await expect(page.getByRole("button", { name: "New session" })).toBeVisible();
  await audit(page, "first-launch");
});

for (const [demo, title] of [
  ["[demo:write]", /Approve files_write\?/],
  ["[demo:replace]", /Approve files_replace\?/],
  ["[demo:move] file=drafts to=archive/drafts", /Approve files_move\?/],
  ["[demo:trash] file=old", /trash/i],
  ["[demo:mkdir]", /Approve files_mkdir\?/],
  ["[demo:secrets]", /Send this file to the model provider\?/],
] as const) {
  test(`a pending card: ${demo}`, async ({ page }) => {
    await page.goto(host.url);
    await sendInNewSession(page, demo);
    await expect(page.getByRole("group", { name: title }).first()).toBeVisible();
    await audit(page, `card-${demo.slice(6, demo.indexOf("]"))}`);
  });
}

test("tool rows open, after an approved run", async ({ page }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:read-write]");
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("group", { name: /^Approved/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "Copy answer" })).toBeVisible();
  const process = page.getByRole("button", { name: /Tool process/ }).first();
  if ((await process.getAttribute("aria-expanded")) !== "true") await process.click();
  const toggles = page.locator(".call-toggle");
  await expect(toggles).toHaveCount(2);
  for (const toggle of await toggles.all()) await toggle.click();
  await expect(page.locator('.call-toggle[aria-expanded="true"]')).toHaveCount(2);
  await audit(page, "tool-rows");
});

test("each tab kind, and Settings", async ({ page }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:read]");
  await expect(page.getByText(/README|read/).first()).toBeVisible();
  await page.getByRole("button", { name: "Open preview" }).click();
  await expect(page.getByRole("tab", { name: /README\.md/ })).toBeVisible();
  await audit(page, "tab-file");
  await page.getByRole("button", { name: "Project files" }).click();
  await expect(page.getByRole("tab", { name: "Project folder" })).toHaveAttribute("aria-selected", "true");
  await audit(page, "tab-folder");
  await page.getByRole("button", { name: "New tab" }).click();
  await expect(page.getByRole("tab", { name: "New tab" })).toHaveAttribute("aria-selected", "true");
  await audit(page, "tab-blank");
  await page.getByRole("button", { name: "Settings" }).click();
  await expect(page.getByRole("region", { name: "Model" })).toBeVisible();
  await audit(page, "settings-model");
  await page.getByRole("tab", { name: "Local MCP" }).click();
  await expect(page.getByRole("region", { name: "Local MCP" })).toBeVisible();
  await audit(page, "settings-mcp");
});

test("a search hit opens its file at the line, highlighted and numbered", async ({ page }) => {
  mkdirSync(join(host.project, "src"));
  const long = `    let wide = "${"x".repeat(300)}";`;
  writeFileSync(join(host.project, "src/lib.rs"), `fn one() {}\n${long}\n// TODO: ship it\nfn two() {}\n`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:search] query=TODO");
  const process = page.getByRole("button", { name: /Tool process/ }).first();
  await expect(process).toBeVisible();
  if ((await process.getAttribute("aria-expanded")) !== "true") await process.click();
  const toggle = page.locator(".call-toggle").first();
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await page.getByRole("button", { name: "src/lib.rs:3" }).click();
  await expect(page.getByRole("tab", { name: "lib.rs" })).toHaveAttribute("aria-selected", "true");
  const code = page.getByRole("region", { name: "Text of src/lib.rs" });
  await expect(code.locator(".hljs-keyword").first()).toHaveText("fn");
  await expect(code.locator(".code-gutter .hit")).toHaveText("3");
  const mark = code.locator(".line-mark");
  await expect(mark).toBeInViewport();
  // The marked band covers the line the hit is on, and long lines scroll rather than wrap.
  const [band, comment] = [await mark.boundingBox(), await code.locator(".hljs-comment").boundingBox()];
  expect(Math.abs(band!.y - comment!.y)).toBeLessThan(3);
  expect(await code.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
  // Opening at the line scrolled down, not sideways: each line's start is shown, not under the
  // gutter.
  const first = await code.locator(".hljs-keyword").first().boundingBox();
  const shown = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.textContent, [first!.x + first!.width / 2, first!.y + first!.height / 2]);
  expect(shown).toBe("fn");
  await audit(page, "tab-code");
});

test("the narrow layout with its preview overlay", async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 900 });
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:write]");
  await expect(page.getByRole("group", { name: /Approve files_write\?/ })).toBeVisible();
  await page.getByRole("button", { name: "Preview" }).click();
  await audit(page, "narrow-overlay");
});

test("the QA page", async ({ page }) => {
  await page.goto(host.base + "/qa.html");
  await expect(page.locator("h1, h2").first()).toBeVisible();
  await audit(page, "qa");
});
