// axe-core (WCAG 2 A/AA and best practice) in real Chromium against a real Host: every state a
// person meets — first launch, each card kind pending (files, credentials, a web page, an MCP
// tool, register, install, a card whose file changed), tool rows open, an undo plan, each tab kind (a web
// page too, native and framed), Settings, the narrow layout with its overlay, the QA page with
// every sample running — in English and Chinese, light and dark, with zero violations. A
// violation is reported by rule, element and what axe says to fix. Each state is also left as
// screenshots at 800 and 1,920 px in both languages and themes, for a person to look at.
import { test, expect, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AUTH, SCREENS, sendInNewSession, startHost, stopHost, type Host } from "./host";

const SERVER_BIN = process.env.WISP_MCP_TEST_SERVER ?? resolve(process.env.CARGO_TARGET_DIR ?? "../target", "debug/wisp-mcp-test-server");

let host: Host;
async function start(extra: string[] = []) {
  host = await startHost(["--card-recheck-ms", "0", ...extra]);
  writeFileSync(join(host.project, "wisp-demo.txt"), "alpha\nbeta\n");
  writeFileSync(join(host.project, ".env"), "API_TOKEN=sk-live-0123456789\n");
  mkdirSync(join(host.project, "drafts/old"), { recursive: true });
  writeFileSync(join(host.project, "drafts/old/v1.md"), "v1\n");
  mkdirSync(join(host.project, "archive"));
  mkdirSync(join(host.project, "old"), { recursive: true });
  writeFileSync(join(host.project, "old/a.log"), "a");
}
test.beforeEach(async ({}, info) => {
  // A test that needs other flags starts its own Host.
  if (!info.title.startsWith("web-only:")) await start();
});
test.afterEach(async () => {
  await stopHost(host);
});

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
const LANGS = ["en", "zh"] as const;
const THEMES = ["light", "dark"] as const;

/** Shows the page in `lang` and `theme` without a reload, so what is open stays open: the
 * workbench follows a change made in another window; the QA page has its own language box. */
async function look(page: Page, lang: (typeof LANGS)[number], theme: (typeof THEMES)[number], qa: boolean) {
  if (qa) await page.getByLabel("Language", { exact: true }).selectOption(lang);
  await page.evaluate(
    ([l, t, onQa]) => {
      document.documentElement.dataset.theme = t!;
      for (const [key, value] of [["wisp-lang", l], ["wisp-theme", t]] as const) {
        if (onQa && key === "wisp-lang") continue;
        localStorage.setItem(key, value!);
        window.dispatchEvent(new StorageEvent("storage", { key, newValue: value! }));
      }
    },
    [lang, theme, qa] as const,
  );
  await page.emulateMedia({ colorScheme: theme });
  if (!qa) await expect(page.locator("html")).toHaveAttribute("lang", lang === "zh" ? "zh-CN" : "en");
  await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
  // Transitions finished, so colours are the final ones.
  await page.waitForTimeout(50);
}

/** Audits the page as it is in each language and theme and fails with every violation listed;
 * leaves screenshots of each at 800 and 1,920 px; then shows it in English, light, again. */
async function audit(page: Page, state: string, { qa = false } = {}) {
  const found: string[] = [];
  const size = page.viewportSize();
  for (const lang of LANGS) {
    for (const theme of THEMES) {
      await look(page, lang, theme, qa);
      // A framed web page is the site's own, not the workbench's: its findings are the site's.
      const result = await new AxeBuilder({ page }).withTags(TAGS).exclude("iframe.web-frame").analyze();
      for (const v of result.violations) {
        for (const n of v.nodes) found.push(`${state} (${lang}, ${theme}): ${v.id} — ${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ")}`);
      }
      for (const width of [800, 1920]) {
        await page.setViewportSize({ width, height: width === 800 ? 900 : 1080 });
        await page.waitForTimeout(50);
        await page.screenshot({ path: join(SCREENS, `axe-${state}-${width}-${lang}-${theme}.png`) });
      }
      if (size) await page.setViewportSize(size);
    }
  }
  await look(page, "en", "light", qa);
  expect(found, found.join("\n")).toEqual([]);
}

/** An active MCP server of the test program, through the API as Settings would make it. */
async function activeTestServer(page: Page) {
  const r = await page.request.post(`${host.base}/api/mcp/servers`, { headers: AUTH, data: { name: "Test server", command: SERVER_BIN, args: [] } });
  const { id } = (await r.json()) as { id: string };
  expect((await page.request.post(`${host.base}/api/mcp/servers/${id}/activate`, { headers: AUTH })).ok()).toBe(true);
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
  [`[demo:register] command=${SERVER_BIN} arg=--flood arg=0`, /Approve mcp_register\?/],
  ["[demo:install]", /Approve mcp_install_npm\?/],
] as const) {
  test(`a pending card: ${demo}`, async ({ page }) => {
    await page.goto(host.url);
    await sendInNewSession(page, demo);
    await expect(page.getByRole("group", { name: title }).first()).toBeVisible({ timeout: 20_000 });
    await audit(page, `card-${demo.slice(6, demo.indexOf("]"))}`);
  });
}

test("a pending card of an MCP server's tool", async ({ page }) => {
  await activeTestServer(page);
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:mcp] say hello");
  await expect(page.getByRole("group", { name: "Approve Test server · echo?" })).toBeVisible({ timeout: 15_000 });
  await audit(page, "card-mcp-tool");
});

test("a pending card whose file changed since it appeared", async ({ page }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:replace]");
  const card = page.getByRole("group", { name: /Approve files_replace\?/ });
  await expect(card.getByText("Changes against the current file")).toBeVisible();
  writeFileSync(join(host.project, "wisp-demo.txt"), "ALPHA\nbeta\n");
  await card.hover();
  await expect(page.locator(".approval-pending .file-notice.error")).toBeVisible();
  await audit(page, "card-stale");
});

test("a pending open_webpage card, then the web page it opens in the Host's browser", async ({ page }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:openweb]");
  const card = page.getByRole("group", { name: "Approve open_webpage?" });
  await expect(card).toBeVisible();
  await audit(page, "card-openweb");
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/The preview accepted the page/).first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("button", { name: /Live view/ })).toBeVisible({ timeout: 20_000 });
  await audit(page, "tab-web-native");
});

test("web-only: the web page framed in the preview", async ({ page }) => {
  await start(["--web-only"]);
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:openweb]");
  await page.getByRole("group", { name: "Approve open_webpage?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/The preview accepted the page/).first()).toBeVisible();
  await expect(page.locator("iframe.web-frame")).toBeVisible();
  await audit(page, "tab-web-framed");
});

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

test("an undo plan: a restore's diff, and one with its item skipped", async ({ page }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "[demo:write] file=notes.txt");
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("undo-run")).toBeVisible();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:replace]");
  await box.press("Enter");
  await page.getByRole("group", { name: "Approve files_replace?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("undo-run")).toHaveCount(2);
  await page.getByTestId("undo-run").nth(1).click();
  await expect(page.getByRole("dialog").getByLabel("diff")).toBeVisible();
  await page.getByRole("dialog").locator("summary").click();
  await audit(page, "undo-plan");
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  // The first run's file edited since: its item is skipped, and said why.
  writeFileSync(join(host.project, "notes.txt"), "edited by the person\n");
  await page.getByTestId("undo-run").first().click();
  await expect(page.getByRole("dialog").locator("[data-skip=changed]")).toBeVisible();
  await audit(page, "undo-plan-skipped");
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
  await page.getByRole("tab", { name: "Skills" }).click();
  await expect(page.getByRole("checkbox", { name: "Allow skill scripts to run" })).toBeVisible();
  await audit(page, "settings-skills");
  await page.getByRole("tab", { name: "Undo", exact: true }).click();
  await expect(page.getByRole("spinbutton", { name: "Days a change stays undoable" })).toHaveValue("30");
  await audit(page, "settings-undo");
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

test("the QA page, every sample running", async ({ page }) => {
  await page.goto(host.base + "/qa.html");
  await expect(page.locator("h1, h2").first()).toBeVisible();
  await audit(page, "qa", { qa: true });
  for (const run of await page.getByRole("button", { name: /Run sample/ }).all()) await run.click();
  await page.locator('[data-sample="open-webpage"]').getByRole("button").first().click();
  // Every sample's card, after its pretend preparation.
  const samples = page.locator("[data-sample]").filter({ has: page.getByRole("button", { name: /Run sample/ }) });
  expect(await samples.count()).toBeGreaterThan(8);
  for (const sample of await samples.all()) await expect(sample.getByRole("group").first()).toBeVisible({ timeout: 10_000 });
  await expect(page.locator('[data-sample="open-webpage"]').getByRole("group", { name: "Approve open_webpage?" })).toBeVisible();
  await audit(page, "qa-samples", { qa: true });
});
