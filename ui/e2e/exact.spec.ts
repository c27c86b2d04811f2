// The card shows the arguments exactly as they will be sent, in real Chromium against a real
// Host: an MCP call whose arguments hold an integer past 2^53 and a negative zero shows the
// Host's canonical text digit for digit, and the real test server receives those very bytes; a
// write whose path hides a right-to-left override shows it marked, with the warning, and the tab
// of the written file shows it marked too. Both cards at 800 and 1,920 px, English and Chinese,
// light and dark.
import { test, expect, type Page } from "@playwright/test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AUTH, shootAll, startHost, stopHost, type Host } from "./host";

const SERVER_BIN = process.env.WISP_MCP_TEST_SERVER ?? resolve(process.env.CARGO_TARGET_DIR ?? "../target", "debug/wisp-mcp-test-server");

let host: Host | null = null;
test.afterEach(async () => {
  if (host) await stopHost(host);
  host = null;
});

async function send(page: Page, text: string) {
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill(text);
  await box.press("Enter");
}

/** The canonical text of the Host's only pending approval, as the API gives it. */
async function pendingCanonical(page: Page): Promise<string> {
  const sessions = (await (await page.request.get(`${host!.base}/api/sessions`, { headers: AUTH })).json()) as { id: string }[];
  for (const s of sessions) {
    const { runs } = (await (await page.request.get(`${host!.base}/api/sessions/${s.id}/runs`, { headers: AUTH })).json()) as {
      runs: { steps: { toolCalls: { approval: { state: string; canonical: string } | null }[] }[] }[];
    };
    for (const c of runs.flatMap((r) => r.steps.flatMap((st) => st.toolCalls))) if (c.approval?.state === "pending") return c.approval.canonical;
  }
  throw new Error("no pending approval");
}

test("an MCP card shows every digit of 12345678901234567891 and -0.0, and the server receives exactly that", async ({ page }) => {
  const saved = process.env.WISP_SECRET_STORE;
  process.env.WISP_SECRET_STORE = "mock";
  try {
    host = await startHost();
  } finally {
    if (saved === undefined) delete process.env.WISP_SECRET_STORE;
    else process.env.WISP_SECRET_STORE = saved;
  }
  const record = join(mkdtempSync(join(tmpdir(), "wisp-exact-")), "server-stdin.jsonl");
  const r = await page.request.post(`${host.base}/api/mcp/servers`, { headers: AUTH, data: { name: "Test server", command: SERVER_BIN, args: ["--record-input", record] } });
  const { id } = (await r.json()) as { id: string };
  expect((await page.request.post(`${host.base}/api/mcp/servers/${id}/activate`, { headers: AUTH })).ok()).toBe(true);
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  await send(page, "[demo:mcp] number=12345678901234567891 number=-0.0");
  const card = page.getByRole("group", { name: "Approve Test server · echo?" });
  await expect(card).toBeVisible({ timeout: 15_000 });
  const canonical = await pendingCanonical(page);
  expect(canonical).toContain('"arguments":{"n1":12345678901234567891,"n2":-0.0,"text":"hello from wisp"}');
  const exact = card.getByLabel("Exact arguments (what the digest covers and what is sent)");
  await expect(exact).toHaveText(canonical);
  await expect(card).not.toContainText("12345678901234567000");
  // The friendly fields above agree with it, digit for digit.
  const fields = card.locator(".mcp-arguments");
  await expect(fields.locator("div").filter({ hasText: /^n1/ }).locator("dd")).toHaveText("12345678901234567891");
  await expect(fields.locator("div").filter({ hasText: /^n2/ }).locator("dd")).toHaveText("-0.0");
  await expect(card.getByRole("note")).toHaveCount(0);

  await shootAll(page, "exact-mcp-bigint", async (p) => {
    await expect(p.getByRole("group", { name: /echo/ }).locator("pre.exact-arguments")).toContainText("12345678901234567891");
  });
  await page.getByRole("group", { name: "Approve Test server · echo?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/Echo: hello from wisp/).last()).toBeVisible({ timeout: 15_000 });
  const call = readFileSync(record, "utf8")
    .split("\n")
    .find((l) => l.includes('"tools/call"'));
  expect(call).toContain('"arguments":{"n1":12345678901234567891,"n2":-0.0,"text":"hello from wisp"}');
});

test("a path with a right-to-left override is shown marked on the card and in the tab, with the warning", async ({ page }) => {
  host = await startHost();
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  // The simulator decodes a quoted file= as a JSON string: the path is auth, U+202E, txt.js.
  await send(page, '[demo:write] file="auth\\u202etxt.js"');
  const card = page.getByRole("group", { name: "Approve files_write?" });
  await expect(card).toBeVisible();
  await expect(card.getByRole("note")).toHaveText("This contains hidden or direction-changing characters; they are shown marked, like ⟨U+202E⟩. Check what they do before you approve.");
  await expect(card.locator(".field code").first()).toHaveText("auth⟨U+202E⟩txt.js");
  await expect(card.locator(".field mark.hidden-char")).toHaveAttribute("title", "RIGHT-TO-LEFT OVERRIDE");
  await expect(card.locator("pre.exact-arguments")).toContainText('"path":"auth⟨U+202E⟩txt.js"');
  // The raw override is nowhere in the card's text, so nothing on it reads "authsj.txt".
  expect(await card.evaluate((el) => el.textContent!.includes("\u202e"))).toBe(false);

  await shootAll(page, "exact-bidi-path", async (p) => {
    await expect(p.getByRole("group", { name: /files_write/ }).locator(".hidden-warning")).toBeVisible();
  });
  await page.getByRole("group", { name: "Approve files_write?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("group", { name: "Approved: write auth⟨U+202E⟩txt.js" })).toBeVisible();
  await expect(page.locator(".tab-title").filter({ hasText: "auth⟨U+202E⟩txt.js" })).toBeVisible();
  expect(readFileSync(join(host.project, "auth\u202etxt.js"), "utf8")).toContain("Hello from the Wisp simulator.");
});
