// A real Host for browser tests: `wisp serve --simulate` on a temp project and data dir, with a
// fixed token so a test can also ask the API what really happened.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { expect, type APIRequestContext, type Page } from "@playwright/test";

export const TOKEN = "ui-e2e-token-0123456789abcdef0123456789abcdef";
export const BIN = process.env.WISP_BIN ?? resolve(process.env.CARGO_TARGET_DIR ?? "../target", "debug/wisp");
export const SCREENS = resolve("test-results/screens");
export const AUTH = { Authorization: `Bearer ${TOKEN}` };

export interface Host {
  url: string;
  base: string;
  project: string;
  dataDir: string;
  proc: ChildProcess;
}

/** Starts a Host; `reuse` starts it again on an earlier Host's project and data dir, and `port`
 * on a given port (0: any free one). */
export async function startHost(extra: string[] = [], reuse?: Host, port = "0", withProject = true): Promise<Host> {
  let project: string, dataDir: string;
  if (reuse) {
    ({ project, dataDir } = reuse);
  } else {
    const dir = mkdtempSync(join(tmpdir(), "wisp-ui-"));
    project = join(dir, "project");
    dataDir = join(dir, "data");
    mkdirSync(project);
    writeFileSync(join(project, "README.md"), "# Demo project\nThe answer is 42.\n");
  }
  mkdirSync(SCREENS, { recursive: true });
  const proc = spawn(BIN, ["serve", "--simulate", "--no-open", "--port", port, "--data-dir", dataDir, ...extra, ...(withProject ? [project] : [])], {
    // XDG_DATA_HOME beside the data dir: files_trash goes to a trash of the test's own
    // (`trashOf`), never to the home trash of the machine running the tests.
    // WISP_PREVIEW_HEADLESS: web tabs never open a window of the preview browser.
    env: { ...process.env, WISP_TOKEN: TOKEN, XDG_DATA_HOME: xdgDataHome(dataDir), WISP_PREVIEW_HEADLESS: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: proc.stdout! });
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error("wisp serve printed no URL")), 20_000);
    lines.on("line", (l) => {
      if (l.startsWith("Open ")) {
        clearTimeout(timer);
        res(l.slice(5).trim());
      }
    });
    proc.on("exit", (c) => rej(new Error(`wisp serve exited with ${c}`)));
  });
  return { url, base: url.split("/#")[0]!, project, dataDir, proc };
}

function xdgDataHome(dataDir: string): string {
  return join(dirname(dataDir), "xdg-data");
}

/** The freedesktop.org home trash of a Host started by `startHost`. */
export function trashOf(host: Host): string {
  return join(xdgDataHome(host.dataDir), "Trash");
}

/** Stops a Host and waits until its process has exited. */
export async function stopHost(host: Host): Promise<void> {
  if (host.proc.exitCode !== null || host.proc.signalCode !== null) return;
  const gone = new Promise<void>((res) => host.proc.once("exit", () => res()));
  host.proc.kill("SIGTERM");
  await gone;
}

interface ApiRun {
  id: string;
  status: string;
  model?: { provider: string; name: string } | null;
  steps: { toolCalls: { tool: string; status: string; approval: { id: string; state: string } | null }[] }[];
}

/** The runs of the Host's sessions, newest first, as the API reports them. */
export async function apiRuns(request: APIRequestContext, host: Host): Promise<ApiRun[]> {
  const sessions = (await (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json()) as { id: string }[];
  const runs: ApiRun[] = [];
  for (const s of sessions) {
    const page = (await (await request.get(`${host.base}/api/sessions/${s.id}/runs`, { headers: AUTH })).json()) as { runs: ApiRun[] };
    runs.push(...page.runs);
  }
  return runs;
}

/** Every approval the Host holds, with its state. */
export async function apiApprovals(request: APIRequestContext, host: Host) {
  return (await apiRuns(request, host)).flatMap((r) => r.steps.flatMap((s) => s.toolCalls.flatMap((c) => (c.approval ? [{ run: r, call: c, ...c.approval }] : []))));
}

/** Screenshots of the page's current state at 800 and 1,920 px, in English and Chinese, light
 * and dark (the settings are stored, the page reloads and shows what the Host holds). Leaves
 * the page in English, light, at its first size. */
export async function shootAll(page: import("@playwright/test").Page, name: string, ready: (page: import("@playwright/test").Page) => Promise<void>) {
  const size = page.viewportSize();
  for (const width of [800, 1920]) {
    await page.setViewportSize({ width, height: width === 800 ? 900 : 1080 });
    for (const lang of ["en", "zh"]) {
      for (const theme of ["light", "dark"]) {
        await page.evaluate(([l, t]) => {
          localStorage.setItem("wisp-lang", l!);
          localStorage.setItem("wisp-theme", t!);
        }, [lang, theme]);
        await page.reload();
        await ready(page);
        await page.screenshot({ path: join(SCREENS, `${name}-${width}-${lang}-${theme}.png`) });
      }
    }
  }
  await page.evaluate(() => {
    localStorage.setItem("wisp-lang", "en");
    localStorage.setItem("wisp-theme", "light");
  });
  if (size) await page.setViewportSize(size);
  await page.reload();
  await ready(page);
}

/** Opens a new session (on `url` first, when given) and sends `text` from its message box, which
 * it returns. */
export async function sendInNewSession(page: Page, text: string, url?: string) {
  if (url) await page.goto(url);
  await page.getByRole("button", { name: "New session" }).click();
  await expect(page.getByRole("heading", { name: "New session", exact: true })).toBeVisible();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill(text);
  await box.press("Enter");
  return box;
}
