// Settings → Model in real Chromium against a live-mode Host (no --simulate): a person enters
// the endpoint and key of `wisp sim` (playing DeepSeek), tests the connection, runs, and sees
// which model answered and what it cost; the key never shows again. Keyring-core's mock store
// stands in for the OS keyring (WISP_SECRET_STORE=mock).
import { test, expect } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { shootAll, startHost, stopHost } from "./host";

const TOKEN = "ui-e2e-token-0123456789abcdef0123456789abcdef";
const BIN = process.env.WISP_BIN ?? resolve(process.env.CARGO_TARGET_DIR ?? "../target", "debug/wisp");

/** Starts `args` and collects printed lines until `done` says enough. */
function launch(args: string[], env: Record<string, string>, done: (lines: string[]) => boolean): Promise<{ proc: ChildProcess; lines: string[] }> {
  const clean = { ...process.env };
  for (const v of ["DEEPSEEK_BASE_URL", "DEEPSEEK_MODEL", "DEEPSEEK_API_KEY"]) delete clean[v];
  const proc = spawn(BIN, args, { env: { ...clean, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const lines: string[] = [];
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${args[0]} printed too little: ${lines.join("\n")}`)), 20_000);
    createInterface({ input: proc.stdout! }).on("line", (l) => {
      lines.push(l);
      if (done(lines)) {
        clearTimeout(timer);
        res({ proc, lines });
      }
    });
    proc.on("exit", (c) => rej(new Error(`${args[0]} exited with ${c}`)));
  });
}

let procs: ChildProcess[] = [];
test.afterEach(() => {
  for (const p of procs) p.kill("SIGTERM");
  procs = [];
});

/** A loopback port nothing listens on (it was free a moment ago). */
async function deadPort(): Promise<number> {
  const net = await import("node:net");
  return new Promise<number>((res) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

/** `wisp sim` playing DeepSeek: its base URL and key. */
async function startSim(): Promise<{ url: string; key: string }> {
  const sim = await launch(["sim", "--port", "0", "--pace-ms", "0"], {}, (l) => l.some((x) => x.includes("DEEPSEEK_API_KEY=")));
  procs.push(sim.proc);
  const value = (name: string) => sim.lines.find((l) => l.includes(`${name}=`))!.split("=")[1]!.trim();
  return { url: value("DEEPSEEK_BASE_URL"), key: value("DEEPSEEK_API_KEY") };
}

/** `wisp serve` in live mode on a fresh data dir and project, with `env` added to the tests'
 * token and the mock secret store: the process and the URL it prints. */
async function serveLive(env: Record<string, string> = {}): Promise<{ proc: ChildProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), "wisp-ui-settings-"));
  mkdirSync(join(dir, "project"));
  const host = await launch(
    ["serve", "--no-open", "--port", "0", "--data-dir", join(dir, "data"), join(dir, "project")],
    { WISP_TOKEN: TOKEN, WISP_SECRET_STORE: "mock", ...env },
    (l) => l.some((x) => x.startsWith("Open ")),
  );
  procs.push(host.proc);
  return { proc: host.proc, url: host.lines.find((l) => l.startsWith("Open "))!.slice(5).trim() };
}

test("a key entered in Settings → Model reaches the endpoint, and the run says which model answered", async ({ page }) => {
  const { url: simUrl, key: simKey } = await startSim();

  const { url } = await serveLive();

  await page.goto(url);
  await expect(page.getByRole("alert").filter({ hasText: "No API key is set" })).toBeVisible();
  await expect(page.getByText("DeepSeek · deepseek-v4-flash").first()).toBeVisible();
  await page.getByRole("button", { name: "Settings" }).click();
  const settings = page.getByRole("region", { name: "Model" });
  await settings.getByLabel("Base URL").fill(simUrl);
  await settings.getByRole("button", { name: "Save model settings" }).click();
  await expect(settings.getByText("Saved: used from the next run.")).toBeVisible();
  await settings.getByRole("button", { name: "Replace" }).click();
  await settings.getByLabel("New API key").fill(simKey);
  await settings.getByRole("button", { name: "Keep key" }).click();
  await expect(settings.getByTestId("key-state")).toHaveText("Set (system keyring)");
  await settings.getByRole("button", { name: "Test connection" }).click();
  await expect(settings.getByTestId("test-outcome")).toContainText("Connected: the endpoint offers deepseek-v4-flash, deepseek-v4-pro.");
  expect(await page.content()).not.toContain(simKey);
  await page.keyboard.press("Escape");

  await expect(page.getByRole("alert").filter({ hasText: "No API key is set" })).toHaveCount(0);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("hello");
  await box.press("Enter");
  await expect(page.getByText(/DeepSeek · deepseek-v4-flash ·/).last()).toBeVisible();
  await expect(page.locator(".usage .cost")).toHaveText(/≈ 0\.\d+ USD/);
  // The session's total: every run priced, so an estimate, not a lower bound.
  await expect(page.getByTestId("session-cost")).toHaveText(/^This session: ≈ 0\.\d+ USD · cached: \d+% · context: 1% of 1,048,576 tokens$/);
  // A second message repeats the first run's request up to where it adds: the provider's cache
  // serves most of it, and the run's line says so.
  await box.fill("again");
  await box.press("Enter");
  await expect(page.locator(".usage")).toHaveCount(2);
  await expect(page.locator(".usage .cached-share").last()).toHaveText(/^ · cached: [1-9]\d*%$/);
  // How full DeepSeek V4's window the run's last request was: a short session, a sliver of it.
  await expect(page.locator(".usage .context-use").last()).toHaveText(/^ · context: 1% of 1,048,576 tokens$/);
  await expect(page.getByTestId("session-cost")).toHaveText(/^This session: ≈ 0\.\d+ USD · cached: \d+% · context: 1% of 1,048,576 tokens$/);
  await expect(page.getByRole("status").filter({ hasText: "SIMULATION —" })).toHaveCount(0);
  expect(await page.content()).not.toContain(simKey);

  // A spending warning the session has passed: the header says so, and runs go on.
  await expect(page.getByTestId("spending-passed")).toHaveCount(0);
  await page.getByRole("button", { name: "Settings" }).click();
  const long = page.getByRole("region", { name: "Long sessions" });
  await long.getByLabel("Spending warning per session (USD)").fill("0.000001");
  await long.getByRole("button", { name: "Save" }).click();
  await expect(long.getByText("Saved; every session's next request follows them.")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("spending-passed")).toHaveText("Past your spending warning of 0.000001 USD");
  await box.fill("still going");
  await box.press("Enter");
  await expect(page.locator(".usage")).toHaveCount(3);
  // Stop at the limit: the next run stops before asking the model, saying why.
  await page.getByRole("button", { name: "Settings" }).click();
  await long.getByLabel(/Stop at the limit/).check();
  await long.getByRole("button", { name: "Save" }).click();
  await expect(long.getByText("Saved; every session's next request follows them.")).toBeVisible();
  await page.keyboard.press("Escape");
  await box.fill("and now?");
  await box.press("Enter");
  await expect(page.locator("article.run").last()).toHaveAttribute("data-status", "failed");
  await expect(page.locator("article.run").last()).toContainText(/Stopped before the next request: this session's estimated cost \(0\.\d+ USD\) reached the limit of 0\.000001 USD set in Settings → Model/);
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });
  test("a dead base URL from the environment is said at start in Chinese, with host, port and variable", async ({ page }) => {
    const port = await deadPort();
    const host = await serveLive({ DEEPSEEK_BASE_URL: `http://127.0.0.1:${port}`, DEEPSEEK_API_KEY: "sk-any" });
    await page.goto(host.url);
    await expect(page.getByRole("alert")).toContainText(`无法连接 127.0.0.1:${port} 上的模型服务（地址来自 DEEPSEEK_BASE_URL）`);
    // A full-width colon takes no space after it.
    await expect(page.getByRole("alert")).toContainText("模型暂不可用：无法连接");
    await page.getByRole("button", { name: "设置" }).click();
    const settings = page.getByRole("region", { name: "模型" });
    await expect(settings.getByText("来自环境变量").first()).toBeVisible();
    await settings.getByRole("button", { name: "测试连接" }).click();
    await expect(settings.getByTestId("test-outcome")).toContainText(`无法连接 127.0.0.1:${port}`);
  });

  /** Sends "hello" in a new session and returns the failed run's status line. */
  async function failedRun(page: import("@playwright/test").Page) {
    await page.getByRole("button", { name: "新会话" }).click();
    const box = page.getByRole("textbox", { name: /输入消息/ });
    await box.fill("hello");
    await box.press("Enter");
    const line = page.locator(".status-line.status-failed");
    await expect(line).toBeVisible({ timeout: 30_000 });
    return line;
  }

  test("failed runs are worded in Chinese from their kind: a dead address and a refused key", async ({ page }) => {
    const port = await deadPort();
    const dead = await serveLive({ DEEPSEEK_BASE_URL: `http://127.0.0.1:${port}`, DEEPSEEK_API_KEY: "sk-any" });
    await page.goto(dead.url);
    let line = await failedRun(page);
    await expect(line).toContainText(`无法连接 127.0.0.1:${port} 上的模型服务（地址来自 DEEPSEEK_BASE_URL）`);
    await expect(line).not.toContainText("Cannot reach");
    dead.proc.kill("SIGTERM");

    const { url: simUrl } = await startSim();
    const simPort = new URL(simUrl).port;
    const refused = await serveLive({ DEEPSEEK_BASE_URL: simUrl, DEEPSEEK_API_KEY: "sk-wrong-key" });
    await page.goto(refused.url);
    line = await failedRun(page);
    await expect(line).toContainText(`127.0.0.1:${simPort} 上的模型服务拒绝了 API 密钥（401；密钥来自 DEEPSEEK_API_KEY）`);
    await expect(line).not.toContainText("refused");
  });
});

test("under --simulate Settings → Model shows the simulator as pinned, saves nothing and tests the simulator", async ({ page }) => {
  const host = await startHost();
  try {
    await page.goto(host.url);
    await page.getByRole("button", { name: "Settings" }).click();
    const settings = page.getByRole("region", { name: "Model" });
    await expect(settings.getByRole("note")).toContainText("Wisp was started with --simulate");
    await expect(settings.getByLabel("Provider")).toBeDisabled();
    await expect(settings.getByLabel("Model name")).toBeDisabled();
    await expect(settings.getByRole("button", { name: "Save model settings" })).toHaveCount(0);
    await settings.getByRole("button", { name: "Test connection" }).click();
    await expect(settings.getByTestId("test-outcome")).toContainText("Connected: the endpoint offers deepseek-v4-flash");
  } finally {
    await stopHost(host);
  }
});

test("Settings → Model fits 800 px in both languages and themes", async ({ page }) => {
  const { url } = await serveLive();
  await page.goto(url);
  const ready = async (p: import("@playwright/test").Page) => {
    await p.getByRole("button", { name: /^(Settings|设置)$/ }).click();
    await expect(p.getByTestId("key-state")).toBeVisible();
  };
  await shootAll(page, "settings-model", ready);
  await page.setViewportSize({ width: 800, height: 900 });
  for (const lang of ["zh", "en"]) {
    await page.evaluate((l) => localStorage.setItem("wisp-lang", l), lang);
    await page.reload();
    await ready(page);
    const dialog = page.getByRole("dialog");
    expect(await dialog.evaluate((d) => d.scrollWidth - d.clientWidth)).toBeLessThanOrEqual(0);
    // The key's line reads on one or two lines, not one word per line.
    const keyLine = page.locator(".api-key > span").first();
    expect((await keyLine.boundingBox())!.height).toBeLessThan(48);
    // The closing button is whole inside the dialog.
    const ok = dialog.getByRole("button", { name: /^(OK|确定)$/ });
    const d = (await dialog.boundingBox())!;
    const b = (await ok.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(d.x);
    expect(b.x + b.width).toBeLessThanOrEqual(d.x + d.width);
    expect(b.y + b.height).toBeLessThanOrEqual(d.y + d.height);
    // Labels do not wrap inside themselves, and the provider select shows its whole choice.
    const select = page.getByLabel(/^(Provider|提供方|服务商)$/).first();
    expect(await select.evaluate((s) => s.scrollWidth - s.clientWidth)).toBeLessThanOrEqual(0);
  }
});
