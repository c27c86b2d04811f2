// Settings → Local MCP in real Chromium against a real Host and the real test MCP server
// (`wisp-mcp-test-server`, built by cargo in crates/wisp-mcp): a person adds a server with an
// argument list and a secret variable, trusts and activates it, sees its tools, disables it,
// edits it without any old value shown, and deletes it; the API confirms each step, and the
// secret never reaches the page. Keyring-core's mock store stands in for the OS keyring.
import { test, expect, type Page } from "@playwright/test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AUTH, shootAll, startHost, stopHost, type Host } from "./host";

const SERVER_BIN = process.env.WISP_MCP_TEST_SERVER ?? resolve(process.env.CARGO_TARGET_DIR ?? "../target", "debug/wisp-mcp-test-server");
const CANARY = "wisp-e2e-canary-5d41402abc4b2a76";

interface ApiServer {
  id: string;
  name: string;
  command: string;
  args: string[];
  cwd: string | null;
  env: { name: string; storage: string }[];
  enabled: boolean;
  status: string;
  error: string | null;
  tools: { modelName: string; originalName: string }[];
}

let host: Host | null = null;
/** Starts the Host with keyring-core's mock store (never the machine's keyring), or with no
 * secret store at all: a session bus address that leads nowhere, so the Secret Service cannot
 * be reached. */
async function start(store: "mock" | "none" = "mock", home?: string) {
  const saved = { store: process.env.WISP_SECRET_STORE, bus: process.env.DBUS_SESSION_BUS_ADDRESS, home: process.env.HOME };
  if (home) process.env.HOME = home;
  if (store === "mock") process.env.WISP_SECRET_STORE = "mock";
  else {
    delete process.env.WISP_SECRET_STORE;
    process.env.DBUS_SESSION_BUS_ADDRESS = "unix:path=/nonexistent/wisp-e2e-no-bus";
  }
  try {
    host = await startHost();
  } finally {
    for (const [k, v] of [["WISP_SECRET_STORE", saved.store], ["DBUS_SESSION_BUS_ADDRESS", saved.bus], ["HOME", saved.home]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
test.afterEach(async () => {
  if (host) await stopHost(host);
  host = null;
});

async function servers(page: Page): Promise<ApiServer[]> {
  const r = await page.request.get(`${host!.base}/api/mcp/servers`, { headers: AUTH });
  expect(r.ok()).toBe(true);
  return (await r.json()) as ApiServer[];
}

async function openMcp(page: Page) {
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("tab", { name: "Local MCP" }).click();
  return page.getByRole("region", { name: "Local MCP" });
}

test("add a server, trust and activate it, see its tools, disable, edit without old values, delete", async ({ page }) => {
  await start();
  await page.goto(host!.url);
  const mcp = await openMcp(page);
  await expect(mcp.getByText("No server yet.")).toBeVisible();

  await mcp.getByRole("button", { name: "Add a server" }).click();
  const form = mcp.getByRole("form", { name: "New server" });
  await form.getByLabel("Name", { exact: true }).fill("Test server");
  await form.getByLabel("Command", { exact: true }).fill(SERVER_BIN);
  await form.getByRole("button", { name: "Add argument" }).click();
  await form.getByLabel("Argument 1", { exact: true }).fill("--flood");
  await form.getByRole("button", { name: "Add argument" }).click();
  await form.getByLabel("Argument 2", { exact: true }).fill("0");
  await form.getByRole("button", { name: "Add variable" }).click();
  await form.getByLabel("Variable 1 name", { exact: true }).fill("WISP_E2E_CANARY");
  await form.getByLabel("Variable 1 value", { exact: true }).fill(CANARY);
  await form.getByRole("button", { name: "Add server" }).click();

  const item = mcp.getByRole("listitem", { name: "Test server" });
  await expect(item.getByTestId("mcp-status")).toHaveText("Disabled");
  await expect(item.getByRole("list", { name: "Command and arguments" }).getByRole("listitem")).toHaveText([SERVER_BIN, "--flood", "0"]);
  await expect(item.getByTestId("mcp-env")).toHaveText("Environment variables: WISP_E2E_CANARY (OS secret store)");
  let [stored] = await servers(page);
  expect(stored).toMatchObject({ name: "Test server", command: SERVER_BIN, args: ["--flood", "0"], env: [{ name: "WISP_E2E_CANARY", storage: "keyring" }], enabled: false, status: "disabled" });
  expect(await page.content()).not.toContain(CANARY);

  // Trust and activate: a confirmation first, which says what activation means.
  await item.getByRole("button", { name: "Trust and activate…" }).click();
  expect((await servers(page))[0]!.status).toBe("disabled");
  const confirm = item.getByRole("group", { name: "Trust and activate Test server?" });
  await expect(confirm).toContainText("with your rights on this computer");
  await expect(confirm).toContainText("its working directory is not a sandbox");
  // The focus stays on the opener: Enter there closes the question again, never confirms it.
  await page.keyboard.press("Enter");
  await expect(confirm).toHaveCount(0);
  expect((await servers(page))[0]!.status).toBe("disabled");
  await item.getByRole("button", { name: "Trust and activate…" }).click();
  await confirm.getByRole("button", { name: "Trust and activate" }).click();

  await expect(item.getByTestId("mcp-status")).toHaveText(/^Active · \d+ tools$/, { timeout: 15_000 });
  [stored] = await servers(page);
  expect(stored!.status).toBe("active");
  expect(stored!.enabled).toBe(true);
  const names = stored!.tools.map((x) => x.originalName);
  expect(names).toContain("echo");
  await expect(item.getByTestId("mcp-status")).toHaveText(`Active · ${names.length} tools`);
  const tools = item.getByRole("list", { name: "Tools of Test server" });
  await expect(tools.getByRole("listitem")).toHaveCount(names.length);
  const echo = stored!.tools.find((x) => x.originalName === "echo")!;
  await expect(tools.getByRole("listitem").filter({ hasText: "Test server · echo" })).toContainText(echo.modelName);
  await item.getByRole("button", { name: "Refresh tools" }).click();
  await expect(item.getByTestId("mcp-status")).toHaveText(`Active · ${names.length} tools`);

  await item.getByRole("button", { name: "Disable" }).click();
  await expect(item.getByTestId("mcp-status")).toHaveText("Disabled");
  await expect(item.getByRole("list", { name: "Tools of Test server" })).toHaveCount(0);
  [stored] = await servers(page);
  expect(stored).toMatchObject({ enabled: false, status: "disabled", tools: [] });

  // Edit: nothing old is shown; a rename keeps the variables, and leaves the server disabled.
  // No plain "Activate": trusting is the only way in.
  await expect(item.getByRole("button", { name: "Activate", exact: true })).toHaveCount(0);
  // By keyboard alone: open the question, Tab to its button (past Delete… and Cancel), press it.
  await item.getByRole("button", { name: "Trust and activate…" }).focus();
  await page.keyboard.press("Enter");
  await expect(confirm).toBeVisible();
  const yes = confirm.getByRole("button", { name: "Trust and activate" });
  for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
  await expect(yes).toBeFocused();
  expect((await servers(page))[0]!.status).toBe("disabled");
  await page.keyboard.press("Enter");
  await expect(item.getByTestId("mcp-status")).toHaveText(/^Active/, { timeout: 15_000 });
  await item.getByRole("button", { name: "Edit" }).click();
  const edit = mcp.getByRole("form", { name: "Edit Test server" });
  await expect(edit.getByLabel("Command", { exact: true })).toHaveValue(SERVER_BIN);
  await expect(edit.getByLabel("Variable 1 value", { exact: true })).toHaveCount(0);
  await expect(edit.getByTestId("mcp-env-kept")).toHaveText("Kept as they are: WISP_E2E_CANARY (OS secret store).");
  expect(await page.content()).not.toContain(CANARY);
  for (const input of await edit.locator("input").all()) expect(await input.inputValue()).not.toContain(CANARY);
  await edit.getByLabel("Name", { exact: true }).fill("Renamed server");
  await edit.getByRole("button", { name: "Save server" }).click();
  const renamed = mcp.getByRole("listitem", { name: "Renamed server" });
  await expect(renamed.getByTestId("mcp-status")).toHaveText("Disabled");
  [stored] = await servers(page);
  expect(stored).toMatchObject({ name: "Renamed server", enabled: false, status: "disabled", env: [{ name: "WISP_E2E_CANARY", storage: "keyring" }] });

  await renamed.getByRole("button", { name: "Delete…" }).click();
  await expect(renamed.getByRole("group", { name: "Delete Renamed server?" })).toContainText("stored secret values are removed");
  await renamed.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(mcp.getByRole("status")).toHaveText("Deleted Renamed server and its stored values.");
  await expect(mcp.getByRole("listitem", { name: "Renamed server" })).toHaveCount(0);
  expect(await servers(page)).toEqual([]);
  expect(await page.content()).not.toContain(CANARY);
});

test("a program that is not found fails with the Host's hint next to that server", async ({ page }) => {
  await start();
  await page.goto(host!.url);
  const mcp = await openMcp(page);
  await mcp.getByRole("button", { name: "Add a server" }).click();
  const form = mcp.getByRole("form", { name: "New server" });
  await form.getByLabel("Name", { exact: true }).fill("Missing");
  await form.getByLabel("Command", { exact: true }).fill("wisp-no-such-program-e2e");
  await form.getByRole("button", { name: "Add server" }).click();
  const item = mcp.getByRole("listitem", { name: "Missing" });
  await item.getByRole("button", { name: "Trust and activate…" }).click();
  await item.getByRole("button", { name: "Trust and activate", exact: true }).click();
  const [stored] = await servers(page);
  expect(stored!.status).toBe("failed");
  expect(stored!.error).toContain("wisp-no-such-program-e2e");
  // The page shows the Host's own words (they advise an absolute path, MCP-04).
  await expect(item.getByTestId("mcp-status")).toHaveText(`Failed: ${stored!.error}`);
  expect(stored!.error!.toLowerCase()).toContain("absolute path");
});

test("the Local MCP page fits 800 px in both languages and themes", async ({ page }) => {
  await start();
  const r = await page.request.post(`${host!.base}/api/mcp/servers`, {
    headers: AUTH,
    data: { name: "Test server", command: SERVER_BIN, args: ["--flood", "0", "/a/rather/long/argument/path/that/must/wrap/somewhere/in/a/narrow/window.js"], cwd: "/tmp" },
  });
  expect(r.ok()).toBe(true);
  const { id } = (await r.json()) as { id: string };
  expect((await page.request.post(`${host!.base}/api/mcp/servers/${id}/activate`, { headers: AUTH })).ok()).toBe(true);
  await page.goto(host!.url);
  const ready = async (p: Page) => {
    await p.getByRole("button", { name: /^(Settings|设置)$/ }).click();
    await p.getByRole("tab", { name: /^(Local MCP|本地 MCP)$/ }).click();
    await expect(p.getByTestId("mcp-status")).toHaveText(/^(Active|已激活)/);
  };
  await shootAll(page, "settings-mcp", ready);
  await page.setViewportSize({ width: 800, height: 900 });
  await page.reload();
  await ready(page);
  const overflow = await page.getByRole("dialog").evaluate((d) => d.scrollWidth - d.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test("without a secret store, saving a variable says so next to the form and offers this session only", async ({ page }) => {
  await start("none");
  await page.goto(host!.url);
  const mcp = await openMcp(page);
  await mcp.getByRole("button", { name: "Add a server" }).click();
  const form = mcp.getByRole("form", { name: "New server" });
  await form.getByLabel("Name", { exact: true }).fill("No store");
  await form.getByLabel("Command", { exact: true }).fill(SERVER_BIN);
  await form.getByRole("button", { name: "Add variable" }).click();
  await form.getByLabel("Variable 1 name", { exact: true }).fill("WISP_E2E_CANARY");
  await form.getByLabel("Variable 1 value", { exact: true }).fill(CANARY);
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(form.getByRole("alert")).toContainText("The system's secret store cannot be reached");
  expect(await servers(page)).toEqual([]);
  await form.getByRole("button", { name: "Keep the values only for this session" }).click();
  await expect(form.getByLabel("Variable 1 kept in", { exact: true })).toHaveValue("session");
  await form.getByRole("button", { name: "Add server" }).click();
  const item = mcp.getByRole("listitem", { name: "No store" });
  await expect(item.getByTestId("mcp-env")).toHaveText("Environment variables: WISP_E2E_CANARY (only for this session)");
  const [stored] = await servers(page);
  expect(stored).toMatchObject({ env: [{ name: "WISP_E2E_CANARY", storage: "session" }], status: "disabled" });
  await item.getByRole("button", { name: "Trust and activate…" }).click();
  await item.getByRole("button", { name: "Trust and activate", exact: true }).click();
  await expect(item.getByTestId("mcp-status")).toHaveText(/^Active · \d+ tools$/, { timeout: 15_000 });
  expect(await page.content()).not.toContain(CANARY);
  // The page has learnt there is no store: the next server's variable is kept for this session
  // from the start, and the store is not offered.
  await mcp.getByRole("button", { name: "Add a server" }).click();
  const next = mcp.getByRole("form", { name: "New server" });
  await next.getByRole("button", { name: "Add variable" }).click();
  await expect(next.getByLabel("Variable 1 kept in", { exact: true })).toHaveValue("session");
  await expect(next.getByRole("option", { name: "OS secret store" })).toBeDisabled();
  await expect(next).toContainText("new variables are kept for this session only");
});

test("import: a server from Cursor's config arrives disabled, its value stored only after the person chose where", async ({ page }) => {
  // The person's home for this Host only: a Cursor config with one local server and a secret.
  const home = mkdtempSync(join(tmpdir(), "wisp-ui-home-"));
  mkdirSync(join(home, ".cursor"));
  const cursorFile = join(home, ".cursor", "mcp.json");
  writeFileSync(cursorFile, JSON.stringify({ mcpServers: { "cursor-test": { command: SERVER_BIN, args: ["--flood", "0"], env: { WISP_E2E_CANARY: CANARY } } } }));
  await start("mock", home);
  // And the project's VS Code config with a remote server, which cannot be imported.
  mkdirSync(join(host!.project, ".vscode"));
  writeFileSync(join(host!.project, ".vscode", "mcp.json"), JSON.stringify({ servers: { "vs-remote": { type: "http", url: "https://example.invalid/mcp" } } }));

  await page.goto(host!.url);
  const mcp = await openMcp(page);
  await mcp.getByRole("button", { name: "Import from other apps…" }).click();
  const panel = mcp.getByRole("form", { name: "Import servers from other apps" });
  const cursor = panel.getByRole("listitem").filter({ hasText: "cursor-test" }).first();
  await expect(cursor).toContainText(`Cursor · ${cursorFile}`);
  await expect(cursor).toContainText("Environment variables: WISP_E2E_CANARY");
  await expect(panel.getByRole("checkbox", { name: /vs-remote/ })).toBeDisabled();
  await panel.getByRole("checkbox", { name: /cursor-test/ }).check();
  const importButton = panel.getByRole("button", { name: "Import 1 server" });
  await expect(importButton).toBeDisabled();
  await panel.getByRole("radio", { name: "Copy them into the OS secret store" }).check();
  await importButton.click();
  await expect(mcp.getByRole("status")).toHaveText("Imported 1 server, disabled.");

  const item = mcp.getByRole("listitem", { name: "cursor-test" });
  await expect(item.getByTestId("mcp-status")).toHaveText("Disabled");
  await expect(item.getByTestId("mcp-env")).toHaveText("Environment variables: WISP_E2E_CANARY (OS secret store)");
  const [stored] = await servers(page);
  expect(stored).toMatchObject({ name: "cursor-test", command: SERVER_BIN, args: ["--flood", "0"], enabled: false, env: [{ name: "WISP_E2E_CANARY", storage: "keyring" }] });
  await item.getByRole("button", { name: "Trust and activate…" }).click();
  await item.getByRole("button", { name: "Trust and activate", exact: true }).click();
  await expect(item.getByTestId("mcp-status")).toHaveText(/^Active · \d+ tools$/, { timeout: 15_000 });
  expect(await page.content()).not.toContain(CANARY);
});

test("an MCP call's approval card names the server and the original tool, and the approved call's result reaches the answer", async ({ page }) => {
  await start();
  const r = await page.request.post(`${host!.base}/api/mcp/servers`, { headers: AUTH, data: { name: "Test server", command: SERVER_BIN, args: [] } });
  const { id } = (await r.json()) as { id: string };
  expect((await page.request.post(`${host!.base}/api/mcp/servers/${id}/activate`, { headers: AUTH })).ok()).toBe(true);
  await page.goto(host!.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:mcp] say hello");
  await box.press("Enter");
  const card = page.getByRole("group", { name: "Approve Test server · echo?" });
  await expect(card).toBeVisible({ timeout: 15_000 });
  await expect(card.locator(".origin")).toHaveText("MCP server Test server");
  await expect(card).toContainText("hello from wisp");
  await expect(page.getByTestId("announcer")).toContainText("Test server · echo");
  // The call in the (open, running) process is named the same way.
  await expect(page.getByRole("button", { name: /^Test server · echo / })).toBeVisible();
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/Echo: hello from wisp/).last()).toBeVisible({ timeout: 15_000 });
});
