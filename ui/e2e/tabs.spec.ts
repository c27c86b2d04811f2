// The right panel renders the Host's tabs (UI-07, WEB-05, WEB-36), in real Chromium
// against a real Host: on a web-only Host (`--web-only`) a web tab is a sandboxed iframe of a
// loopback site of the test; tabs are opened, switched and closed through the Host (closing a
// web page asks first: Keep keeps it, Close closes it), a reload shows the same tabs, a file an
// approved `[demo:write]` wrote opens as a file tab, and the panel fits 800 px in both
// languages and themes.
import { test, expect, type Page } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AUTH, SCREENS, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
let site: Server;
let siteUrl: string;

test.beforeEach(async () => {
  site = createServer((req, res) => {
    if (req.url === "/deny") {
      res.writeHead(200, { "Content-Type": "text/html", "X-Frame-Options": "DENY" });
      res.end("<title>Refuses frames</title><p>never shown in a frame</p>");
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" });
    if (req.url === "/other") res.end("<title>Other page</title><p>the other page</p>");
    else res.end("<title>Local page</title><p>hello from the local site</p>");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page`;
});
test.afterEach(async () => {
  await stopHost(host);
  await new Promise<void>((r) => site.close(() => r()));
});

async function apiTabs(page: Page, sessionId: string) {
  const r = await page.request.get(`${host.base}/api/sessions/${sessionId}/tabs`, { headers: AUTH });
  expect(r.status()).toBe(200);
  return (await r.json()) as { tabId: string; kind: string; title: string; active: boolean; url?: string; path?: string }[];
}

async function newSession(page: Page): Promise<string> {
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  await expect(page.getByRole("heading", { name: "New session", exact: true })).toBeVisible();
  const [s] = (await (await page.request.get(`${host.base}/api/sessions`, { headers: AUTH })).json()) as { id: string }[];
  return s!.id;
}

test("web-only: new and web tabs open through the Host, switch, close with the dialog and survive a reload", async ({ page }) => {
  host = await startHost(["--web-only"]);
  await page.setViewportSize({ width: 1280, height: 900 });
  const sid = await newSession(page);
  const health = await (await page.request.get(`${host.base}/api/health`)).json();
  expect(health.web_tabs).toBe("iframe");

  await page.getByRole("button", { name: "New tab" }).click();
  await expect(page.getByRole("tab", { name: "New tab" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel")).toContainText("A blank tab");

  // Typed as people type it, without a scheme: the box adds http:// for this computer and
  // says so (the browser's own URL check would have refused it, in its own language).
  // The blank tab shown takes the address, as a browser's does: no second tab.
  const address = page.getByRole("textbox", { name: "Web address to open" });
  await expect(page.getByRole("button", { name: "Go" })).toHaveAttribute("title", "Load this address in the tab shown");
  await address.fill(siteUrl.replace(/^http:\/\//, ""));
  await address.press("Enter");
  const webTab = page.getByRole("tab", { name: /127\.0\.0\.1/ });
  await expect(webTab).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tab")).toHaveCount(1);
  await expect(address).toHaveValue("");
  await expect(page.getByRole("status").filter({ hasText: "Opened as" })).toHaveText(`Opened as ${siteUrl} (http:// added).`);
  // The page is in a sandboxed frame that sends no referrer, and it loaded (WEB-05).
  const frame = page.locator("iframe.web-frame");
  await expect(frame).toHaveAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  await expect(frame).toHaveAttribute("referrerpolicy", "no-referrer");
  await expect(page.frameLocator("iframe.web-frame").getByText("hello from the local site")).toBeVisible();
  await expect(page.getByRole("tabpanel")).toContainText(siteUrl);
  let tabs = await apiTabs(page, sid);
  expect(tabs.map((t) => [t.kind, t.active])).toEqual([["web", true]]);
  expect(tabs[0]!.url).toBe(siteUrl);
  const webTabId = tabs[0]!.tabId;

  // Another address typed into the web tab shown loads in it: the same tab, the new page.
  await address.fill(siteUrl.replace("/page", "/other"));
  await address.press("Enter");
  await expect(page.getByRole("tab", { name: /\/other$/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.frameLocator("iframe.web-frame").getByText("the other page")).toBeVisible();
  tabs = await apiTabs(page, sid);
  expect(tabs.map((t) => [t.tabId, t.url])).toEqual([[webTabId, siteUrl.replace("/page", "/other")]]);
  await address.fill(siteUrl);
  await address.press("Enter");
  await expect(page.frameLocator("iframe.web-frame").getByText("hello from the local site")).toBeVisible();
  // A framed page has no history the panel can walk: only Reload, which loads it anew.
  await expect(page.getByRole("button", { name: "Back" })).toHaveCount(0);
  await page.getByRole("button", { name: "Reload" }).click();
  await expect(page.frameLocator("iframe.web-frame").getByText("hello from the local site")).toBeVisible();

  // Switching goes to the Host.
  await page.getByRole("button", { name: "New tab" }).click();
  await expect(page.getByRole("tab", { name: "New tab" })).toHaveAttribute("aria-selected", "true");
  await webTab.click();
  await expect(webTab).toHaveAttribute("aria-selected", "true");
  await page.getByRole("tab", { name: "New tab" }).click();
  await expect(page.getByRole("tab", { name: "New tab" })).toHaveAttribute("aria-selected", "true");
  await expect(frame).toHaveCount(0);
  await expect.poll(async () => (await apiTabs(page, sid)).map((t) => t.active)).toEqual([false, true]);
  await webTab.click();
  await expect(page.frameLocator("iframe.web-frame").getByText("hello from the local site")).toBeVisible();

  // Closing the page asks; Escape is no answer, Keep keeps it.
  const closeWeb = page.getByTitle(/^Close tab http:\/\/127\.0\.0\.1/);
  await closeWeb.click();
  const dialog = page.getByRole("alertdialog", { name: "Close this page?" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Keep" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Keep" }).click();
  await expect(dialog).toBeHidden();
  await expect(webTab).toBeVisible();
  expect((await apiTabs(page, sid)).map((t) => t.kind)).toEqual(["web", "new"]);
  // Close closes it, and the neighbour is selected.
  await closeWeb.click();
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(webTab).toHaveCount(0);
  await expect(page.getByRole("tab", { name: "New tab" })).toHaveAttribute("aria-selected", "true");
  expect((await apiTabs(page, sid)).map((t) => t.kind)).toEqual(["new"]);

  // A page that refuses framing: the tab says what the UI cannot see (the frame's error page).
  // Typed into the blank tab, which becomes it.
  await page.getByRole("button", { name: "New tab" }).click();
  await address.fill(siteUrl.replace("/page", "/deny"));
  await address.press("Enter");
  await expect(page.getByRole("tab", { name: /deny/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel")).toContainText("A site that refuses to be framed");
  await expect(page.frameLocator("iframe.web-frame").getByText("never shown in a frame")).toHaveCount(0);

  // A reload shows what the Host holds: the same tabs, the same one selected.
  tabs = await apiTabs(page, sid);
  await page.reload();
  await expect(page.getByRole("tab")).toHaveCount(2);
  await expect(page.getByRole("tab", { name: /deny/ })).toHaveAttribute("aria-selected", "true");
  expect(await apiTabs(page, sid)).toEqual(tabs);
});

test("web-only: the selected tab is scrolled into view in a strip too narrow for all tabs", async ({ page }) => {
  host = await startHost(["--web-only"]);
  await page.setViewportSize({ width: 1280, height: 900 });
  const sid = await newSession(page);
  const ids: string[] = [];
  for (let i = 0; i < 14; i++) {
    const r = await page.request.post(`${host.base}/api/sessions/${sid}/tabs`, { headers: AUTH, data: { kind: "new" } });
    expect(r.status()).toBe(201);
    ids.push(((await r.json()) as { tabId: string }).tabId);
  }
  const strip = page.getByRole("tablist", { name: "Preview" });
  await expect(page.getByRole("tab")).toHaveCount(14);
  const inView = async (tabId: string) => {
    const s = (await strip.boundingBox())!;
    const b = (await page.locator(`[data-tab="${tabId}"]`).boundingBox())!;
    return b.x >= s.x - 1 && b.x + b.width <= s.x + s.width + 1;
  };
  // The strip overflows: not every tab fits.
  expect(await strip.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
  for (const id of [ids[0]!, ids[13]!, ids[6]!]) {
    // Selected from outside the strip (as the agent or another window would).
    const r = await page.request.post(`${host.base}/api/tabs/${id}/activate`, { headers: AUTH });
    expect(r.ok()).toBe(true);
    await expect(page.locator(`[data-tab="${id}"]`)).toHaveAttribute("aria-selected", "true");
    await expect.poll(() => inView(id)).toBe(true);
  }
});

test("web-only: the person reorders tabs with the keyboard; the Host keeps the order over a reload", async ({ page }) => {
  host = await startHost(["--web-only"]);
  await page.setViewportSize({ width: 1280, height: 900 });
  const sid = await newSession(page);
  await page.getByRole("button", { name: "New tab" }).click();
  const address = page.getByRole("textbox", { name: "Web address to open" });
  for (const path of ["/page", "/other"]) {
    // Each in a blank tab of its own, which the address turns into a web tab.
    await page.getByRole("button", { name: "New tab" }).click();
    await address.fill(siteUrl.replace("/page", path));
    await address.press("Enter");
    await expect(page.getByRole("tab", { name: new RegExp(`${path}$`) })).toHaveAttribute("aria-selected", "true");
  }
  const order = async () => (await apiTabs(page, sid)).map((t) => `${t.kind === "new" ? "new" : new URL(t.url!).pathname}${t.active ? "*" : ""}`);
  // The tab strip follows the Host's answer, a moment after the Host has it.
  const shown = async () => (await page.getByRole("tab").allTextContents()).map((x) => x.trim().replace(/^.*127\.0\.0\.1:\d+/, ""));
  expect(await order()).toEqual(["new", "/page", "/other*"]);

  // Typing in the address field moves nothing; on the focused tab Ctrl+Shift+← moves it left.
  await address.fill("http://127.0.0.1/x");
  await address.press("Control+Shift+ArrowLeft");
  await address.fill("");
  expect(await order()).toEqual(["new", "/page", "/other*"]);
  const other = page.getByRole("tab", { name: /\/other$/ });
  await other.focus();
  await page.keyboard.press("Control+Shift+ArrowLeft");
  await expect.poll(order).toEqual(["new", "/other*", "/page"]);
  await expect(other).toBeFocused();
  await page.keyboard.press("Control+Shift+ArrowLeft");
  await expect.poll(order).toEqual(["/other*", "new", "/page"]);
  await expect.poll(shown).toEqual(["/other", "New tab", "/page"]);

  // Back by the keyboard: Ctrl+Shift+→ twice puts it last (the drag is in tabs.test.tsx: this
  // Chromium's synthetic drag ends without a drop event).
  await page.keyboard.press("Control+Shift+ArrowRight");
  await page.keyboard.press("Control+Shift+ArrowRight");
  await expect.poll(order).toEqual(["new", "/page", "/other*"]);
  await page.getByRole("tab", { name: "New tab" }).focus();
  await page.keyboard.press("Control+Shift+ArrowRight");
  await expect.poll(order).toEqual(["/page", "new", "/other*"]);
  await expect.poll(shown).toEqual(["/page", "New tab", "/other"]);
  await expect(other).toHaveAttribute("aria-selected", "true");

  // A reload shows the Host's order.
  await page.reload();
  await expect(page.getByRole("tab")).toHaveCount(3);
  await expect.poll(shown).toEqual(["/page", "New tab", "/other"]);
  await expect(page.getByRole("tab", { name: /\/other$/ })).toHaveAttribute("aria-selected", "true");
  expect(await order()).toEqual(["/page", "new", "/other*"]);
});

test("web-only: a close question still waiting is shown again after a reload and on switching to its session", async ({ page }) => {
  host = await startHost(["--web-only"]);
  await page.setViewportSize({ width: 1280, height: 900 });
  const first = await newSession(page);
  const address = page.getByRole("textbox", { name: "Web address to open" });
  await address.fill(siteUrl);
  await address.press("Enter");
  const webTab = page.getByRole("tab", { name: /127\.0\.0\.1/ });
  await expect(webTab).toHaveAttribute("aria-selected", "true");
  await page.getByTitle(/^Close tab http:\/\/127\.0\.0\.1/).click();
  const dialog = page.getByRole("alertdialog", { name: "Close this page?" });
  await expect(dialog).toBeVisible();

  // Reloaded before answering: the Host still waits, and the question is shown again.
  await page.reload();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Keep" })).toBeFocused();
  await dialog.getByRole("button", { name: "Keep" }).click();
  await expect(dialog).toBeHidden();
  await expect(webTab).toBeVisible();
  // Answered, it is not asked again by the next reload: a tab opened through the API once the
  // session's stream is connected shows up (its `tabs` event follows whatever the stream
  // announced at connect), and still no question.
  const streams = (sid: string) => page.waitForResponse((r) => r.url().includes(`/api/sessions/${sid}/events`));
  let connected = streams(first);
  await page.reload();
  await connected;
  await expect(webTab).toBeVisible();
  const opened = await page.request.post(`${host.base}/api/sessions/${first}/tabs`, { headers: AUTH, data: { kind: "new" } });
  expect(opened.status()).toBe(201);
  await expect(page.getByRole("tab", { name: "New tab" })).toBeVisible();
  await expect(dialog).toHaveCount(0);

  // Asked while the person looks at another session: shown once they switch to this one.
  connected = page.waitForResponse((r) => r.url().includes("/events") && !r.url().includes(first));
  await page.locator(".sidebar section.grow h2").getByRole("button", { name: "New session" }).click();
  await connected;
  await expect(page.getByRole("tab")).toHaveCount(0);
  const second = ((await (await page.request.get(`${host.base}/api/sessions`, { headers: AUTH })).json()) as { id: string }[]).find((x) => x.id !== first)!.id;
  const web = (await apiTabs(page, first)).find((t) => t.kind === "web")!;
  const r = await page.request.delete(`${host.base}/api/tabs/${web.tabId}`, { headers: AUTH });
  expect((await r.json()).status).toBe("closing");
  // This session's next change arrives after that question and shows; the question does not.
  await page.request.post(`${host.base}/api/sessions/${second}/tabs`, { headers: AUTH, data: { kind: "new" } });
  await expect(page.getByRole("tab", { name: "New tab" })).toBeVisible();
  await expect(dialog).toHaveCount(0);
  await page.locator(`[data-session-id="${first}"]`).click();
  await expect(dialog).toBeVisible();
  // Its tabs are shown behind the question (hidden from the accessibility tree meanwhile).
  await expect(page.locator("[data-tab]")).toHaveCount(2);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(webTab).toHaveCount(0);
  await expect.poll(async () => (await apiTabs(page, first)).map((t) => t.kind)).toEqual(["new"]);
});

test("native: a web tab is a page of the Host's headless Chromium, shown by title, URL, load state and live view", async ({ page }) => {
  host = await startHost();
  await page.setViewportSize({ width: 1280, height: 900 });
  // The live view's two endpoints belong to the screencast (tests/live_view.rs): here the
  // network answers for them — first no frame, then one — and records the clicks.
  let frames = 0;
  const fronts: string[] = [];
  await page.route("**/api/tabs/*/screen*", async (route) => {
    frames += 1;
    if (frames <= 2) return route.fulfill({ status: 404, contentType: "application/json", body: '{"error":"not_found","message":"no frame yet"}' });
    // A 1×1 JPEG.
    const jpeg = Buffer.from("/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=", "base64");
    return route.fulfill({ status: 200, contentType: "image/jpeg", body: jpeg });
  });
  await page.route("**/api/tabs/*/front", async (route) => {
    fronts.push(route.request().method());
    return route.fulfill({ status: 204 });
  });
  const sid = await newSession(page);
  expect((await (await page.request.get(`${host.base}/api/health`)).json()).web_tabs).toBe("browser");
  const address = page.getByRole("textbox", { name: "Web address to open" });
  await address.fill(siteUrl);
  await address.press("Enter");
  // The browser's title and load state reach the panel through tabs events.
  const tab = page.getByRole("tab", { name: "Local page" });
  await expect(tab).toHaveAttribute("aria-selected", "true", { timeout: 20_000 });
  const body = page.getByRole("tabpanel");
  await expect(body).toContainText(siteUrl);
  await expect(body.getByText("Loaded")).toBeVisible();
  await expect(page.locator("iframe")).toHaveCount(0);
  await expect(body).toContainText("No picture of this page yet.");
  const live = body.getByRole("button", { name: /Live view of the page/ });
  await expect(live).toBeVisible();
  await expect(live.getByRole("img", { name: "Live view of Local page" })).toBeVisible();
  await live.click();
  await expect.poll(() => fronts).toEqual(["POST"]);
  // An address typed now loads in the same page of the browser; Back and Forward walk its
  // history there.
  const [opened] = await apiTabs(page, sid);
  await address.fill(siteUrl.replace("/page", "/other"));
  await address.press("Enter");
  await expect(page.getByRole("tab", { name: "Other page" })).toHaveAttribute("aria-selected", "true", { timeout: 20_000 });
  await body.getByRole("button", { name: "Back" }).click();
  await expect(page.getByRole("tab", { name: "Local page" })).toBeVisible({ timeout: 20_000 });
  await body.getByRole("button", { name: "Forward" }).click();
  await expect(page.getByRole("tab", { name: "Other page" })).toBeVisible({ timeout: 20_000 });
  await body.getByRole("button", { name: "Reload" }).click();
  await expect(body.getByText("Loaded")).toBeVisible({ timeout: 20_000 });
  expect((await apiTabs(page, sid)).map((t) => [t.tabId, t.url])).toEqual([[opened!.tabId, siteUrl.replace("/page", "/other")]]);
  // Closing asks first; Close closes the browser page and the tab.
  await page.getByTitle("Close tab Other page").click();
  await page.getByRole("alertdialog", { name: "Close this page?" }).getByRole("button", { name: "Close" }).click();
  // Every tab, not the one named "Local page": while the page closes its title may go, and
  // the tab is then named by its URL.
  await expect(page.getByRole("tab")).toHaveCount(0, { timeout: 20_000 });
  await expect.poll(() => apiTabs(page, sid)).toEqual([]);
});

test("native: the page is laid out for the live view's area and shown at its own size, also after the window changes", async ({ page }) => {
  host = await startHost();
  await page.setViewportSize({ width: 1280, height: 900 });
  await newSession(page);
  const address = page.getByRole("textbox", { name: "Web address to open" });
  await address.fill(siteUrl);
  await address.press("Enter");
  await expect(page.getByRole("tab", { name: "Local page" })).toHaveAttribute("aria-selected", "true", { timeout: 20_000 });
  const img = page.getByRole("img", { name: "Live view of Local page" });
  const area = page.locator(".live-area");
  // One frame pixel per CSS pixel: the frame is as wide as the area, and shown unscaled.
  const fitted = async () => {
    const [natural, shown, room] = await Promise.all([
      img.evaluate((i: HTMLImageElement) => i.naturalWidth),
      img.evaluate((i: HTMLImageElement) => i.getBoundingClientRect().width),
      area.evaluate((a) => Math.floor(a.getBoundingClientRect().width)),
    ]);
    return { natural, shown: Math.round(shown), room };
  };
  await expect.poll(async () => {
    const f = await fitted();
    return f.natural === f.room && f.shown === f.natural ? "fitted" : JSON.stringify(f);
  }, { timeout: 20_000 }).toBe("fitted");
  const before = (await fitted()).natural;
  expect(before).toBeGreaterThan(320);
  expect(before).toBeLessThan(800);
  await page.setViewportSize({ width: 1920, height: 1000 });
  await expect.poll(async () => {
    const f = await fitted();
    return f.natural !== before && f.natural === Math.min(f.room, 1024) && f.shown === f.natural ? "fitted" : JSON.stringify(f);
  }, { timeout: 20_000 }).toBe("fitted");
  await page.screenshot({ path: join(SCREENS, "web-tab-live-view-fitted.png") });
});

test("a file written by an approved [demo:write] opens as a file tab of the Host; the panel fits 800 px", async ({ page }) => {
  host = await startHost(["--web-only"]);
  await page.setViewportSize({ width: 1280, height: 900 });
  const sid = await newSession(page);
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:write] please");
  await box.press("Enter");
  await page.getByRole("group", { name: "Approve files_write?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("tab", { name: /wisp-demo.txt/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel")).toContainText("Hello from the Wisp simulator.");
  const tabs = await apiTabs(page, sid);
  expect(tabs.map((t) => [t.kind, t.path, t.active])).toEqual([["file", "wisp-demo.txt", true]]);
  // A web tab and a new tab beside it, then every language and theme at 800 px: nothing of the
  // panel leaves the window or its strip.
  const address = page.getByRole("textbox", { name: "Web address to open" });
  await address.fill(`${siteUrl}?a=${"long-query-".repeat(12)}`);
  await address.press("Enter");
  await page.getByRole("button", { name: "New tab" }).click();
  await expect(page.getByRole("tab")).toHaveCount(3);
  await expect(page.getByRole("tab", { name: "New tab" })).toHaveAttribute("aria-selected", "true");
  const before = await apiTabs(page, sid);
  await shootAll(page, "tabs-panel", async (p) => {
    const narrow = p.viewportSize()!.width <= 900;
    if (narrow) await p.locator(".preview-toggle").click();
    const panel = p.locator("#preview-panel");
    await expect(panel).toBeVisible();
    await expect(p.getByRole("tab")).toHaveCount(3);
    const width = p.viewportSize()!.width;
    const boxOf = async (sel: string) => (await p.locator(sel).first().boundingBox())!;
    for (const sel of ["#preview-panel", ".url-form", ".url-form button", ".tab-strip > button.icon"]) {
      const b = await boxOf(sel);
      expect(b.x + b.width, sel).toBeLessThanOrEqual(width + 0.5);
    }
    expect(await panel.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
    // The strip scrolls inside itself rather than widening the panel.
    expect(await p.locator(".tab-strip").evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
  });
  // Nine reloads later the Host's tabs are as they were: replayed events of the write did not
  // open or select its file tab again.
  expect(await apiTabs(page, sid)).toEqual(before);
});

test("QA samples of the tabs work in memory only (UI-11, UI-12, UI-14, UI-15)", async ({ page }) => {
  host = await startHost();
  const asked: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/") || !r.url().startsWith(host.base)) asked.push(r.url());
  });
  await page.goto(host.base + "/qa.html");
  const panel = page.locator('[data-sample="panel"]');
  // UI-11: rejecting opens nothing; approving requests the display (an in-memory tab).
  const openWeb = page.locator('[data-sample="open-webpage"]');
  await openWeb.getByRole("button", { name: "Toggle open-webpage tool sample" }).click();
  await openWeb.getByRole("group").getByRole("button", { name: "Reject" }).click();
  await expect(openWeb.getByText(/rejected — nothing was opened/)).toBeVisible();
  await expect(panel.getByRole("tab")).toHaveCount(0);
  await openWeb.getByRole("button", { name: "Toggle open-webpage tool sample" }).click();
  await openWeb.getByRole("button", { name: "Toggle open-webpage tool sample" }).click();
  await openWeb.getByRole("group").getByRole("button", { name: "Approve" }).click();
  await expect(openWeb.getByText(/open_request_accepted/)).toBeVisible();
  await expect(panel.getByRole("tab", { name: "https://example.com/" })).toHaveAttribute("aria-selected", "true");
  await expect(panel.getByRole("tabpanel")).toContainText("no page is loaded");
  // UI-12, UI-14: the panel's tabs listed live, a page read with no approval card.
  await panel.getByRole("button", { name: "New tab" }).click();
  const read = page.locator('[data-sample="read-page"]');
  await read.getByRole("button", { name: "Get current tab list (in-memory test)" }).click();
  await expect(read.getByLabel("Current tab list")).toContainText('"kind": "new"');
  await expect(read.getByLabel("Current tab list")).toContainText('"url": "https://example.com/"');
  await read.getByRole("button", { name: "Read page text (simulated)" }).click();
  await expect(read.getByLabel("Read result")).toContainText('"source": "untrusted_webpage"');
  await expect(read.getByLabel("Read result")).toContainText("fixed test material");
  await expect(read.getByRole("group")).toHaveCount(0);
  // UI-15: the sample's own buttons open file, folder and new tabs; the actions are exactly
  // preview_tab_action's (WEB-28) and run with no card. A file reload fills marked in-memory
  // text; web navigation is unsupported and fakes neither history nor a load; closing a web tab
  // simulates no native confirmation; close goes through the reducer (the active tab's
  // neighbour is selected).
  const acts = page.locator('[data-sample="tab-actions"]');
  await acts.getByRole("button", { name: "Open a file tab" }).click();
  await acts.getByRole("button", { name: "Open a folder tab" }).click();
  await acts.getByRole("button", { name: "Open a new tab" }).click();
  await acts.getByRole("button", { name: "Get current tab list (in-memory test)" }).click();
  const target = acts.getByRole("combobox", { name: "Target tab" });
  const action = acts.getByRole("combobox", { name: "Action" });
  await expect(action.getByRole("option")).toHaveText(["reload", "back", "forward", "close"]);
  await expect(target.getByRole("option")).toHaveText(["web: https://example.com/", "new: New tab", "file: notes.md", "workspace: docs", "new: New tab"]);
  const result = acts.getByLabel("Action result");
  const runAction = async (tab: string | { index: number }, act: string) => {
    await target.selectOption(typeof tab === "string" ? { label: tab } : tab);
    await action.selectOption(act);
    await acts.getByRole("button", { name: "Run action" }).click();
  };
  await runAction("file: notes.md", "reload");
  await expect(result).toContainText('"status": "reload_requested"');
  await expect(acts.getByRole("group")).toHaveCount(0);
  await panel.getByRole("tab", { name: "notes.md" }).click();
  await expect(panel.getByRole("tabpanel")).toContainText("[in-memory QA text, not read from any file #1] docs/notes.md");
  await runAction("file: notes.md", "back");
  await expect(result).toContainText("file and folder tabs support only reload and close");
  await runAction("web: https://example.com/", "back");
  await expect(result).toContainText('"status": "unsupported"');
  await expect(result).not.toContainText("navigation_requested");
  await runAction("web: https://example.com/", "reload");
  await expect(result).toContainText("nothing was navigated");
  await runAction("web: https://example.com/", "close");
  await expect(result).toContainText('"status": "unsupported"');
  await expect(result).toContainText("that confirmation is not simulated here");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(panel.getByRole("tab", { name: "https://example.com/" })).toHaveCount(1);
  await runAction({ index: 4 }, "reload");
  await expect(result).toContainText("a blank new tab supports only close");
  await expect(acts.getByRole("group")).toHaveCount(0);
  await acts.screenshot({ path: join(SCREENS, "qa-tab-actions-en.png") });
  await runAction("file: notes.md", "close");
  await expect(result).toContainText('"status": "closed"');
  await expect(panel.getByRole("tab")).toHaveCount(4);
  await expect(panel.getByRole("tab", { name: "docs" })).toHaveAttribute("aria-selected", "true");
  // Chinese words of the samples.
  await page.getByRole("combobox", { name: "Language" }).selectOption("zh");
  await expect(page.getByRole("heading", { name: "读取网页正文" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "标签操作（内存模拟）" })).toBeVisible();
  await expect(acts.getByText(/文件或文件夹的 reload（刷新）回填明确标注的内存文本/)).toBeVisible();
  await acts.screenshot({ path: join(SCREENS, "qa-tab-actions-zh.png") });
  await expect(read.getByRole("button", { name: "获取当前标签列表（内存测试）" })).toBeVisible();
  await expect(openWeb.getByRole("button", { name: "切换打开网页工具样例" })).toBeVisible();
  await page.locator('[data-sample="panel"]').screenshot({ path: join(SCREENS, "qa-tabs-panel-zh.png") });
  expect(asked).toEqual([]);
});

test("the project's files open in a workspace tab: a file in a file tab, a subfolder in the same tab, Up to the folder above", async ({ page }) => {
  host = await startHost(["--web-only"]);
  mkdirSync(join(host.project, "docs"));
  writeFileSync(join(host.project, "docs", "guide.md"), "Read me first.\n");
  await page.setViewportSize({ width: 1280, height: 900 });
  const sid = await newSession(page);
  await page.getByRole("button", { name: "Project files" }).click();
  await expect(page.getByRole("tab", { name: "Project folder" })).toHaveAttribute("aria-selected", "true");
  const listing = page.getByRole("list", { name: "Project folder" });
  await expect(listing.getByRole("button")).toHaveText(["README.md", "docs/"]);
  await expect(page.getByRole("button", { name: "Up to the folder above" })).toHaveCount(0);
  await listing.getByRole("button", { name: "docs/" }).click();
  await expect(page.getByRole("tab", { name: "docs/" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tab")).toHaveCount(1);
  const [folderTab] = await apiTabs(page, sid);
  expect([folderTab!.kind, folderTab!.path]).toEqual(["workspace", "docs"]);
  await page.getByRole("list", { name: "Folder: docs" }).getByRole("button", { name: "guide.md" }).click();
  await expect(page.getByRole("tab", { name: "guide.md" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel")).toContainText("Read me first.");
  expect((await apiTabs(page, sid)).map((t) => [t.tabId === folderTab!.tabId, t.kind, t.path])).toEqual([
    [true, "workspace", "docs"],
    [false, "file", "docs/guide.md"],
  ]);
  // A reload shows the same tabs; Up takes the folder tab back to the project's root in place.
  await page.reload();
  await page.getByRole("tab", { name: "docs/" }).click();
  await page.getByRole("button", { name: "Up to the folder above" }).click();
  await expect(page.getByRole("tab", { name: "Project folder" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("list", { name: "Project folder" }).getByRole("button")).toHaveText(["README.md", "docs/"]);
  await expect(page.getByRole("button", { name: "Up to the folder above" })).toHaveCount(0);
  expect((await apiTabs(page, sid)).map((t) => [t.tabId === folderTab!.tabId, t.path])).toEqual([
    [true, "."],
    [false, "docs/guide.md"],
  ]);
});
