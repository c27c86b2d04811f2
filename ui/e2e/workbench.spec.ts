// The workbench as a person uses it: real Chromium, real Host (`wisp serve --simulate`), real
// files. Screenshots of the main states go to test-results/screens/.
import { test, expect, type Page } from "@playwright/test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AUTH, SCREENS, TOKEN, sendInNewSession as send, startHost, stopHost, trashOf, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

/** A new session on this test's Host, with `text` sent. */
const newSessionAndSend = (page: Page, text: string) => send(page, text, host.url);

test("an approved write lands on disk and its preview opens", async ({ page }) => {
  await newSessionAndSend(page, "[demo:write] please");
  const card = page.getByRole("group", { name: "Approve files_write?" });
  await expect(card).toBeVisible();
  await expect(card.getByText("wisp-demo.txt", { exact: true })).toBeVisible();
  await expect(card.getByText("New file")).toBeVisible();
  await expect(page.getByText("SIMULATION")).toBeVisible();
  // APPR-07: told where the change is authorized, and where the folder is.
  await expect(card.getByText(/^Approve only if no untrusted program can change this folder at the same time/)).toBeVisible();
  await expect(page.getByText("Only folders no untrusted program changes at the same time.")).toBeVisible();
  await page.screenshot({ path: join(SCREENS, "approval-card.png") });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("wisp-demo.txt was written").first()).toBeVisible();
  await expect(page.getByRole("tab", { name: /wisp-demo.txt/ })).toBeVisible();
  await expect(page.getByRole("tabpanel")).toContainText("Hello from the Wisp simulator.");
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toContain("Hello from the Wisp simulator.");
  await page.screenshot({ path: join(SCREENS, "write-approved-preview.png") });
  // The system's dark theme is followed.
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveCSS("background-color", "rgb(23, 24, 26)");
  await page.screenshot({ path: join(SCREENS, "dark.png") });
});

test("a rejected write leaves the file as it was; its card showed the diff", async ({ page }) => {
  writeFileSync(join(host.project, "wisp-demo.txt"), "Original line\n");
  await newSessionAndSend(page, "[demo:write] please");
  const card = page.getByRole("group", { name: "Approve files_write?" });
  await expect(card.getByText("Changes against the current file")).toBeVisible();
  await expect(card.getByLabel("diff")).toContainText("- Original line");
  await expect(card.getByLabel("diff")).toContainText("+ Hello from the Wisp simulator.");
  await page.screenshot({ path: join(SCREENS, "approval-diff.png") });
  await card.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByText("The write was rejected").first()).toBeVisible();
  await expect(page.getByRole("group", { name: "Rejected: write wisp-demo.txt" }).getByRole("status")).toContainText("Rejected");
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toBe("Original line\n");
});

test("a multi-call process is collapsed and both calls can be inspected", async ({ page }) => {
  await newSessionAndSend(page, "[demo:multi] look around");
  await expect(page.getByText("Here is what the two tools returned").first()).toBeVisible();
  const toggle = page.getByRole("button", { name: /Tool process/ });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await page.screenshot({ path: join(SCREENS, "multi-collapsed.png") });
  await toggle.click();
  await page.getByRole("button", { name: /^files_list / }).click();
  await page.getByRole("button", { name: /^files_read / }).click();
  await expect(page.getByText('"path": "README.md"').first()).toBeVisible();
  await expect(page.getByText(/The answer is 42/).first()).toBeVisible();
  await page.screenshot({ path: join(SCREENS, "multi-expanded.png") });
  // The read file opens in a preview tab; a second file makes two tabs that arrows switch.
  await page.getByRole("button", { name: "Open preview" }).click();
  await expect(page.getByRole("tab", { name: /README.md/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel")).toContainText("The answer is 42.");
  await page.getByRole("tab", { name: /README.md/ }).press("ArrowRight");
  await expect(page.getByRole("tab", { name: /README.md/ })).toBeFocused();
});

test("stopping during an approval wait cancels the run and voids the card", async ({ page }) => {
  await newSessionAndSend(page, "[demo:write] please");
  await expect(page.getByRole("group", { name: "Approve files_write?" })).toBeVisible();
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByText("You stopped this run.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(page.getByRole("group", { name: "Not answered: write wisp-demo.txt" }).getByRole("status")).toContainText("Not answered");
  expect(existsSync(join(host.project, "wisp-demo.txt"))).toBe(false);
  await page.screenshot({ path: join(SCREENS, "cancelled.png") });
});

test("a reload restores the session from the Host", async ({ page }) => {
  await newSessionAndSend(page, "hello there");
  await expect(page.getByText("comes from the Wisp simulator").first()).toBeVisible();
  await page.reload();
  await expect(page.locator(".bubble", { hasText: "hello there" })).toBeVisible();
  // The session was named after its first message, and that survives the reload too.
  await expect(page.getByRole("heading", { name: "hello there" })).toBeVisible();
  await expect(page.getByText("comes from the Wisp simulator").first()).toBeVisible();
  expect(page.url()).not.toContain("token");
});

test("the language can be switched to Chinese", async ({ page }) => {
  await newSessionAndSend(page, "你好");
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("combobox", { name: "Language" }).selectOption("zh");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "新会话" })).toBeVisible();
  // Closing the dialog with Escape must not have stopped the run.
  await expect(page.getByText("这是 Wisp 模拟器的回答").first()).toBeVisible();
  await expect(page.getByText("已取消")).toHaveCount(0);
  await expect(page.getByText("模拟模式")).toBeVisible();
  await expect(page.getByText("只授权没有不可信程序同时修改的文件夹。")).toBeVisible();
  await page.screenshot({ path: join(SCREENS, "zh.png") });
});

test("without its token, or with a stale one, the page explains how to open it", async ({ browser }) => {
  const stale = await browser.newPage();
  await stale.goto(host.base + "/#token=from-an-earlier-launch-0123456789abcdef");
  await expect(stale.getByRole("heading", { name: "This page needs its key" })).toBeVisible();
  await stale.close();
  const page = await browser.newPage();
  await page.goto(host.base + "/");
  await expect(page.getByRole("heading", { name: "This page needs its key" })).toBeVisible();
  await expect(page.getByText("#token=")).toBeVisible();
  await page.screenshot({ path: join(SCREENS, "no-token.png") });
  await page.close();
});

test("the QA workbench works in memory only", async ({ page }) => {
  const apiCalls: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/") || !r.url().startsWith(host.base)) apiCalls.push(r.url());
  });
  await page.goto(host.base + "/qa.html");
  await expect(page.getByRole("note")).toContainText("in-memory state only");
  await expect(page.getByRole("heading", { name: "Tool interaction samples / 工具交互样例" })).toBeVisible();
  // UI-12: replace, mkdir, move and trash ask (after their preparation) and are approved or
  // rejected in memory; each card says what APPR-07 asks.
  for (const [id, decision, check] of [
    ["replace", "Approve", "+ const retries = 5;"],
    ["mkdir", "Approve", "docs/guides"],
    ["move", "Reject", "Moves 3 files and 2 folders"],
    ["trash", "Reject", "3 files and 1 folder"],
  ] as const) {
    const sample = page.locator(`[data-sample="${id}"]`);
    await sample.getByRole("button", { name: /Run sample/ }).click();
    const card = sample.getByRole("group");
    await expect(card).toBeVisible({ timeout: 5000 });
    await expect(card).toContainText(check);
    await expect(card.getByText(/^Approve only if no untrusted program can change this folder/)).toBeVisible();
    await card.getByRole("button", { name: decision }).click();
    await expect(sample.getByText(`memory state: ${decision === "Approve" ? "approved" : "rejected"}`)).toBeVisible();
  }
  // Page-text reading is read-only: it runs at once, with no card.
  const read = page.locator('[data-sample="read-page"]');
  await page.locator('[data-sample="open-webpage"]').getByRole("button", { name: "Toggle open-webpage tool sample" }).click();
  await page.locator('[data-sample="open-webpage"]').getByRole("button", { name: "Approve" }).click();
  await read.getByRole("button", { name: "Get current tab list (in-memory test)" }).click();
  await read.getByRole("button", { name: "Read page text (simulated)" }).click();
  await expect(read.getByLabel("Read result")).toContainText("fixed test material");
  await expect(read.getByRole("group")).toHaveCount(0);
  await page.locator('[data-sample="search"]').getByRole("button", { name: /src\/main.rs/ }).click();
  await expect(page.getByRole("tabpanel", { name: /in-memory preview/ })).toContainText("fn main()");
  // Settings → Local MCP in memory (UI-16): the command `fail` shows a failed start.
  const mcp = page.locator('[data-sample="mcp-settings"]');
  await mcp.getByRole("button", { name: "Add a server" }).click();
  await mcp.getByLabel("Name").fill("Sample");
  await mcp.getByLabel("Command").fill("fail");
  await mcp.getByRole("button", { name: "Add server" }).click();
  await mcp.getByRole("button", { name: "Trust and activate…" }).click();
  await mcp.getByRole("button", { name: "Trust and activate", exact: true }).click();
  await expect(mcp.getByTestId("mcp-status")).toHaveText(/^Failed: simulated start failure/);
  await page.screenshot({ path: join(SCREENS, "qa.png"), fullPage: true });
  // A pending file-change card of the QA page in both languages and both themes.
  const mkdir = page.locator('[data-sample="mkdir"]');
  await mkdir.getByRole("button", { name: /Run sample/ }).click();
  await expect(mkdir.getByRole("button", { name: "Approve" })).toBeVisible({ timeout: 5000 });
  for (const lang of ["en", "zh"] as const) {
    await page.getByRole("combobox", { name: "Language" }).selectOption(lang);
    if (lang === "zh") await expect(mkdir.getByText(/^仅在没有不可信程序会同时修改此文件夹时批准/)).toBeVisible();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await mkdir.screenshot({ path: join(SCREENS, `qa-mkdir-card-${lang}-${scheme}.png`) });
    }
  }
  // The system's trash was not used either.
  expect(existsSync(trashOf(host))).toBe(false);
  expect(apiCalls).toEqual([]);
});

test("sessions are renamed, deleted with a moment to undo; a bad folder is explained", async ({ page, request }) => {
  await page.goto(host.url);
  await page.getByRole("textbox", { name: /Folder path/ }).fill("relative/folder");
  await page.getByRole("button", { name: "Authorize", exact: true }).click();
  await expect(page.getByRole("alert")).toContainText("absolute path");
  await page.getByRole("button", { name: "New session" }).click();
  await page.getByRole("button", { name: "Rename" }).click();
  const title = page.getByRole("textbox", { name: "Rename" });
  await title.fill("Refactor the parser");
  await title.press("Enter");
  await expect(page.getByRole("heading", { name: "Refactor the parser" })).toBeVisible();
  const hostSessions = async () => (await (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json()).length;
  // Delete asks nothing: the session goes at once, and Undo (focused) brings it back.
  await page.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Write a message to start a session in project, or choose one on the left.")).toBeVisible();
  const undo = page.getByRole("button", { name: "Undo" });
  await expect(undo).toBeFocused();
  await expect(page.getByRole("status").filter({ hasText: "will be deleted" })).toContainText("“Refactor the parser” will be deleted");
  await page.screenshot({ path: join(SCREENS, "delete-undo.png") });
  expect(await hostSessions()).toBe(1);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Refactor the parser" })).toBeVisible();
  await expect(undo).toBeHidden();
  // Deleted again and left alone, it is gone from the Host once the offer ends.
  await page.getByRole("button", { name: "Delete" }).click();
  await expect(undo).toBeVisible();
  await expect.poll(hostSessions, { timeout: 15_000 }).toBe(0);
  await expect(undo).toBeHidden();
  await expect(page.getByRole("textbox", { name: /Message/ })).toBeFocused();
  await page.reload();
  await expect(page.getByText("Write a message to start a session in project, or choose one on the left.")).toBeVisible();
});

test("a session deleted just before the page closes is deleted", async ({ page, request }) => {
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  await page.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("button", { name: "Undo" })).toBeVisible();
  await page.close({ runBeforeUnload: true });
  await expect.poll(async () => (await (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json()).length, { timeout: 5_000 }).toBe(0);
});

test("a session with 1,000 runs stays responsive: only what is on screen is rendered", async ({ page, request }) => {
  // Creating 1,000 real runs through the API takes about a minute with a debug build.
  test.setTimeout(300_000);
  await stopHost(host);
  host = await startHost(["--sim-pace-ms", "0"]);
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const session = await (await request.post(`${host.base}/api/sessions`, { headers: auth, data: {} })).json();
  for (let i = 0; i < 1000; i++) {
    const { runId } = await (await request.post(`${host.base}/api/sessions/${session.id}/runs`, { headers: auth, data: { text: `message ${i}` } })).json();
    for (;;) {
      const run = await (await request.get(`${host.base}/api/runs/${runId}`, { headers: auth })).json();
      if (run.status !== "running") break;
      await new Promise((res) => setTimeout(res, 5));
    }
  }
  const t0 = Date.now();
  await page.goto(host.url);
  await expect(page.getByText("message 999", { exact: true })).toBeVisible();
  const firstPaint = Date.now() - t0;
  // One page of runs is fetched and only a handful of them are in the DOM.
  expect(await page.locator("article.run").count()).toBeLessThan(20);
  // The older page must be in before the list is scrolled to its top: a page that arrives after
  // puts the run the person was reading back where it was (as it should), away from the top.
  const older = page.waitForResponse((r) => r.url().includes(`/api/sessions/${session.id}/runs?`) && r.url().includes("cursor="));
  await page.getByRole("button", { name: "Load older runs" }).click();
  await older;
  await expect(page.getByText("message 969", { exact: true })).toBeAttached();
  await page.locator(".runs").evaluate((el) => el.scrollTo(0, 0));
  await expect(page.getByText("message 940", { exact: true })).toBeVisible();
  expect(await page.locator("article.run").count()).toBeLessThan(20);
  console.log(`1,000-run session: first paint of the newest run in ${firstPaint} ms`);
});
