// Conversation-assisted MCP install as a person sees it (UI-17): `[demo:install]` in
// real Chromium against `wisp serve --simulate`, whose own loopback npm registry holds the demo
// package; the real npm installs it. The install card shows source, directory, package and
// impact; the activation is a separate card; the QA sample stays in memory.
import { test, expect } from "@playwright/test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SCREENS, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

test("the install card shows what npm will do; approved, a separate activation card follows", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:install] please");
  await box.press("Enter");
  const card = page.getByRole("group", { name: "Approve mcp_install_npm?" });
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expect(card.getByText("wisp-demo-mcp@1.0.0", { exact: true })).toBeVisible();
  await expect(card.locator(".field").getByText(/http:\/\/127\.0\.0\.1:\d+\//)).toBeVisible();
  await expect(card.locator(".field").getByText(join(host.dataDir, "mcp-installs"), { exact: false })).toBeVisible();
  await expect(card.locator(".inst-impact").getByText(/install scripts disabled/)).toBeVisible();
  await expect(card.getByRole("note")).toContainText("does not certify");
  await page.screenshot({ path: join(SCREENS, "approval-install.png") });
  // A key press on a card nobody moved to decides nothing.
  await page.keyboard.press("a");
  await expect(card.getByRole("button", { name: "Approve" })).toBeVisible();
  await card.getByRole("button", { name: "Approve" }).click();

  const activate = page.getByRole("group", { name: "Approve mcp_activate_service?" });
  await expect(activate).toBeVisible({ timeout: 120_000 });
  await expect(activate.locator(".inst-impact").getByText(/from your next message/)).toBeVisible();
  await expect(page.getByRole("group", { name: /Approved: install wisp-demo-mcp@1\.0\.0/ })).toBeVisible();
  // npm's live output stays under the install call: each step and npm's own lines, in a log
  // screen readers skip.
  const log = page.locator('[data-call-id]').filter({ hasText: "mcp_install_npm" }).getByRole("region", { name: "Live output" });
  await expect(log).toBeVisible();
  await expect(log).toHaveAttribute("aria-live", "off");
  for (const step of ["npm install --package-lock-only", "lockfile check: 1 package", "npm ci", "bin check"]) {
    await expect(log.getByText(`▸ ${step}`, { exact: true })).toBeVisible();
  }
  await expect(log.getByText(/^npm http fetch GET 200 http:\/\/127\.0\.0\.1:\d+\/wisp-demo-mcp/).first()).toBeVisible();
  await page.screenshot({ path: join(SCREENS, "install-output.png") });
  // Live only: a reload shows the pending activation again, and no log (the install's result
  // carries npm's tail).
  await page.reload();
  await expect(activate).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("group", { name: /Approved: install wisp-demo-mcp@1\.0\.0/ })).toBeVisible();
  await expect(page.getByRole("region", { name: "Live output" })).toHaveCount(0);
  await activate.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/send one with \[demo:mcp\]/).first()).toBeVisible({ timeout: 30_000 });
});

test("the QA install sample walks install → disabled config in Settings → activation in memory only (UI-17)", async ({ page }) => {
  const asked: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/") || !r.url().startsWith(host.base)) asked.push(r.url());
  });
  await page.goto(host.base + "/qa.html");
  const sample = page.locator('[data-sample="install"]');
  await expect(sample.getByRole("heading", { name: "Conversation install → activate MCP (memory only) / 对话安装 → 激活 MCP（仅内存）" })).toBeVisible();
  const config = sample.getByRole("listitem", { name: "wisp-demo-mcp 1.0.0 (QA sample)" });
  const installCard = sample.getByRole("group", { name: "Approve mcp_install_npm?" });
  const activateCard = sample.getByRole("group", { name: "Approve mcp_activate_service?" });
  const install = async () => {
    await sample.getByRole("button", { name: /Run sample/ }).click();
    await expect(installCard.getByText("wisp-demo-mcp@1.0.0", { exact: true })).toBeVisible();
    // Nothing is saved before the install is approved.
    await expect(config).toHaveCount(0);
    await installCard.getByRole("button", { name: "Approve" }).click();
    await expect(sample.getByText(/a disabled QA config was saved/)).toBeVisible();
    // Settings → Local MCP shows the config, disabled, with no tools; activation is asked
    // separately.
    await expect(config.getByTestId("mcp-status")).toHaveText("Disabled");
    await expect(config.getByRole("list", { name: /^Tools of/ })).toHaveCount(0);
    await expect(config.getByTestId("mcp-call-limit")).toHaveText("Longest call: 300 s while it reports progress");
    await expect(activateCard).toBeVisible();
  };
  // Rejected: the config stays disabled, no tool list.
  await install();
  await sample.screenshot({ path: join(SCREENS, "qa-install-disabled.png") });
  await activateCard.getByRole("button", { name: "Reject" }).click();
  await expect(sample.getByText(/the QA config stays disabled/)).toBeVisible();
  await expect(config.getByTestId("mcp-status")).toHaveText("Disabled");
  await expect(config.getByRole("list", { name: /^Tools of/ })).toHaveCount(0);
  // Again, approved: active, with the simulated tool list.
  await install();
  await activateCard.getByRole("button", { name: "Approve" }).click();
  await expect(sample.getByText(/the QA config is active with a sample tool list/)).toBeVisible();
  await expect(config.getByTestId("mcp-status")).toHaveText("Active · 2 tools");
  const tools = config.getByRole("list", { name: "Tools of wisp-demo-mcp 1.0.0 (QA sample)" });
  await expect(tools.getByRole("listitem")).toHaveCount(2);
  await expect(tools).toContainText("echo");
  await expect(tools).toContainText("Sample tool (in memory)");
  await sample.screenshot({ path: join(SCREENS, "qa-install-active.png") });
  // Register existing MCP: says it installs nothing, and after approval claims no install.
  const register = page.locator('[data-sample="register"]');
  await expect(register.getByText(/nothing is installed, downloaded or started/)).toBeVisible();
  await register.getByRole("button", { name: /Run sample/ }).click();
  const registerCard = register.getByRole("group", { name: "Approve mcp_register?" });
  await expect(registerCard).toBeVisible();
  await expect(registerCard).toContainText("Nothing is installed, downloaded or started.");
  await expect(registerCard).not.toContainText(/npm|registry/i);
  await registerCard.getByRole("button", { name: "Approve" }).click();
  await expect(register.getByText("memory state: registered a disabled QA config; nothing was installed or run")).toBeVisible();
  await expect(register.getByRole("listitem", { name: "weather-server" }).getByTestId("mcp-status")).toHaveText("Disabled");
  await expect(register.getByText(/install approved|installed \(/)).toHaveCount(0);
  // Nothing left the page: no API call, no registry, no install folder.
  expect(asked).toEqual([]);
  expect(existsSync(join(host.dataDir, "mcp-installs"))).toBe(false);
});
