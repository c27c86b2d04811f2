// The right panel's pieces in jsdom with a mocked fetch: the live view of a native web
// tab (GET …/screen at most 2×/s, a placeholder on 404, a click calls …/front), the iframe of a
// web-only tab (sandboxed, no referrer, never the UI's own origin), the notices of a page that
// moved itself and of a blocked download, the Host's tabs in the panel, and the dialog that
// only a deliberate click answers.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { useState } from "react";
import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { Api } from "../../api";
import { I18n, translator } from "../../i18n";
import type { PreviewTab, TabDialog as Question } from "../../types";
import { LIVE_VIEW_INTERVAL_MS, FRAME_SANDBOX, VIEW_LIMITS, WebView, ownOrigin, viewFor } from "./WebView";
import document_ from "../../generated/openapi.json";
import { TabDialog } from "./TabDialog";
import { PreviewPanel, type PanelApi } from "./Panel";
import type { SessionTabs } from "./useTabs";
import { moveTab, reduceTabs } from "./memory";
import { samePath, useSessionTabs } from "./useTabs";

const withT = (ui: React.ReactNode, lang: "en" | "zh" = "en") => <I18n.Provider value={translator(lang)}>{ui}</I18n.Provider>;

const TAB = "tab_" + "a".repeat(32);
const web = (over: Partial<PreviewTab> = {}): PreviewTab => ({ tabId: TAB, kind: "web", title: "Example Domain", active: true, url: "https://example.com/", ...over });

type Call = { method: string; url: string; auth: string | null };
let calls: Call[];
let screenStatus: number;

beforeEach(() => {
  calls = [];
  screenStatus = 200;
  URL.createObjectURL = vi.fn(() => `blob:frame-${calls.length}`);
  URL.revokeObjectURL = vi.fn();
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init?: RequestInit) => {
      const headers = (init?.headers ?? {}) as Record<string, string>;
      calls.push({ method: init?.method ?? "GET", url, auth: headers.Authorization ?? null });
      if (url.endsWith("/screen"))
        return screenStatus === 200 ? new Response(new Blob(["jpeg"], { type: "image/jpeg" }), { status: 200 }) : new Response(JSON.stringify({ error: "not_found", message: "no frame" }), { status: 404 });
      if (url.endsWith("/front")) return new Response(null, { status: 204 });
      return new Response("{}", { status: 200 });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const screens = () => calls.filter((c) => c.url.split("?")[0] === `/api/tabs/${TAB}/screen`);

describe("native web tab: the live view", () => {
  it("shows the latest frame with the token in a header, at most twice a second, and a click brings the window to the front", async () => {
    vi.useFakeTimers();
    const api = new Api("tok");
    render(withT(<WebView api={api} tab={web({ loadState: "loaded" })} mode="browser" />));
    for (let i = 0; i < 5; i++) await act(async () => {});
    expect(screens()).toHaveLength(1);
    expect(screens()[0]!.auth).toBe("Bearer tok");
    expect(screen.getByText("https://example.com/")).toBeTruthy();
    expect(screen.getByText("Loaded")).toBeTruthy();
    const img = screen.getByRole("img", { name: "Live view of Example Domain" });
    expect(img.getAttribute("src")).toMatch(/^blob:/);
    // Over 3 s: one request per interval, never more than 2 per second.
    for (let i = 0; i < 6; i++) await act(async () => void vi.advanceTimersByTime(LIVE_VIEW_INTERVAL_MS));
    expect(screens().length).toBeGreaterThanOrEqual(6);
    expect(screens().length).toBeLessThanOrEqual(7);
    // The frame shown before is released when a newer one replaces it.
    expect(URL.revokeObjectURL).toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: /Live view of the page/ }));
    await act(async () => {});
    expect(calls.filter((c) => c.method === "POST" && c.url === `/api/tabs/${TAB}/front`)).toHaveLength(1);
  });

  it("asks for nothing while the window is hidden and stops when the tab goes away", async () => {
    vi.useFakeTimers();
    const hidden = vi.spyOn(document, "visibilityState", "get").mockReturnValue("hidden");
    const { unmount } = render(withT(<WebView api={new Api("tok")} tab={web()} mode="browser" />));
    for (let i = 0; i < 4; i++) await act(async () => void vi.advanceTimersByTime(LIVE_VIEW_INTERVAL_MS));
    expect(screens()).toHaveLength(0);
    hidden.mockReturnValue("visible");
    await act(async () => void vi.advanceTimersByTime(LIVE_VIEW_INTERVAL_MS));
    expect(screens()).toHaveLength(1);
    unmount();
    for (let i = 0; i < 4; i++) await act(async () => void vi.advanceTimersByTime(LIVE_VIEW_INTERVAL_MS));
    expect(screens()).toHaveLength(1);
    hidden.mockRestore();
  });

  it("without a frame (404) shows a placeholder and a button that still brings the window forward", async () => {
    screenStatus = 404;
    render(withT(<WebView api={new Api("tok")} tab={web({ loadState: "failed", error: "net::ERR_NAME_NOT_RESOLVED" })} mode="browser" />, "zh"));
    expect(await screen.findByText("暂时没有此页面的画面。")).toBeTruthy();
    expect(screen.queryByRole("img")).toBeNull();
    expect(screen.getByRole("alert").textContent).toContain("net::ERR_NAME_NOT_RESOLVED");
    expect(screen.getByText("加载失败")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "显示浏览器窗口" }));
    await act(async () => {});
    expect(calls.some((c) => c.method === "POST" && c.url.endsWith("/front"))).toBe(true);
  });
});

describe("native web tab: the page fitted to the live view's area", () => {
  it("asks for the area's size, within the limits the API document states", () => {
    expect(viewFor(512.7, 400.2)).toEqual({ width: 512, height: 400 });
    expect(viewFor(100, 50)).toEqual({ width: VIEW_LIMITS.minWidth, height: VIEW_LIMITS.minHeight });
    expect(viewFor(3000, 2000)).toEqual({ width: VIEW_LIMITS.maxWidth, height: VIEW_LIMITS.maxHeight });
    const params = (document_ as unknown as { paths: Record<string, { get: { parameters: { name: string; schema: { minimum: number; maximum: number } }[] } }> }).paths["/api/tabs/{id}/screen"]!.get.parameters;
    const limit = (name: string) => params.find((p) => p.name === name)!.schema;
    expect([limit("width").minimum, limit("width").maximum]).toEqual([VIEW_LIMITS.minWidth, VIEW_LIMITS.maxWidth]);
    expect([limit("height").minimum, limit("height").maximum]).toEqual([VIEW_LIMITS.minHeight, VIEW_LIMITS.maxHeight]);
  });

  it("sends the measured area with every frame request", async () => {
    vi.useFakeTimers();
    const observed: ResizeObserverCallback[] = [];
    vi.stubGlobal(
      "ResizeObserver",
      class {
        constructor(cb: ResizeObserverCallback) {
          observed.push(cb);
        }
        observe() {}
        disconnect() {}
      },
    );
    const rect = vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockReturnValue({ width: 600.5, height: 450, top: 0, left: 0, right: 600, bottom: 450, x: 0, y: 0, toJSON: () => ({}) });
    render(withT(<WebView api={new Api("tok")} tab={web()} mode="browser" />));
    for (let i = 0; i < 5; i++) await act(async () => {});
    expect(observed).toHaveLength(1);
    expect(screens()[0]!.url).toBe(`/api/tabs/${TAB}/screen?width=600&height=450`);
    rect.mockRestore();
    vi.unstubAllGlobals();
  });
});

describe("native web tab: a page that moved itself, a blocked download", () => {
  it("says where the page went, that the agent cannot read it, and how the person can let it", () => {
    screenStatus = 404;
    const moved = { addressKind: "loopback", openedKind: "public" } as const;
    const { unmount } = render(withT(<WebView api={new Api("tok")} tab={web({ loadState: "loaded", url: "http://127.0.0.1:9/secret", moved })} mode="browser" />));
    const notice = screen.getByRole("alert").textContent ?? "";
    expect(notice).toContain("went by itself (a redirect, a refresh, a script, a link or its history) to an address on this computer, more private than a public address that was opened here");
    expect(notice).toContain("The agent cannot read it or act on it. If it should, open the address yourself");
    unmount();
    render(withT(<WebView api={new Api("tok")} tab={web({ loadState: "loaded", moved: { addressKind: "private", openedKind: "public" } })} mode="browser" />, "zh"));
    expect(screen.getByRole("alert").textContent).toBe("此页面自行跳转（重定向、刷新、脚本、链接或历史记录）到了局域网内的地址，比此处打开的公网地址更私密。智能体不能读取此页面，也不能对其操作。如需让它读取，请你自己在上方的地址栏中打开该地址。");
  });

  it("names the blocked download as the page's plain text, and counts several", () => {
    screenStatus = 404;
    const { unmount } = render(withT(<WebView api={new Api("tok")} tab={web({ loadState: "loaded", blockedDownloads: { count: 1, lastFileName: "<b>evil</b>.sh" } })} mode="browser" />));
    expect(screen.getByRole("status").textContent).toBe("A download from this page was blocked: <b>evil</b>.sh");
    expect(screen.queryByRole("alert")).toBeNull();
    unmount();
    render(withT(<WebView api={new Api("tok")} tab={web({ loadState: "loaded", blockedDownloads: { count: 3, lastFileName: "x.sh" } })} mode="browser" />, "zh"));
    expect(screen.getByRole("status").textContent).toBe("已阻止此页面的 3 次下载；最近一次：x.sh");
  });
});

describe("web-only tab: the iframe", () => {
  it("is sandboxed without top navigation or popups, sends no referrer and fetches no live view", async () => {
    render(withT(<WebView api={new Api("tok")} tab={web()} mode="iframe" />));
    const frame = screen.getByTitle("Example Domain") as HTMLIFrameElement;
    expect(frame.tagName).toBe("IFRAME");
    expect(frame.getAttribute("src")).toBe("https://example.com/");
    expect(frame.getAttribute("sandbox")).toBe(FRAME_SANDBOX);
    expect(FRAME_SANDBOX).not.toMatch(/allow-top-navigation|allow-popups|allow-modals/);
    expect(frame.getAttribute("referrerpolicy")).toBe("no-referrer");
    await act(async () => {});
    expect(screens()).toHaveLength(0);
  });

  it("never frames the UI's own origin", () => {
    expect(ownOrigin("http://127.0.0.1:4000/qa.html", "http://127.0.0.1:4000")).toBe(true);
    expect(ownOrigin("http://127.0.0.1:4001/", "http://127.0.0.1:4000")).toBe(false);
    expect(ownOrigin("not a url", "http://127.0.0.1:4000")).toBe(true);
    render(withT(<WebView api={new Api("tok")} tab={web({ url: `${window.location.origin}/` })} mode="iframe" />));
    expect(document.querySelector("iframe")).toBeNull();
    expect(screen.getByRole("alert").textContent).toContain("does not show its own pages");
  });
});

/** A panel API whose every folder holds a folder `inner` and a file `a.txt`. */
const folderApi = {
  preview: async () => ({ path: "", content: "", size: 0, partial: false, sha256: null }),
  folder: async (_s: string, path?: string) => ({
    path: path ?? ".",
    entries: [
      { name: "inner", kind: "dir" },
      { name: "a.txt", kind: "file", size: 1 },
    ],
    truncated: false,
  }),
  tabScreen: async () => null,
  frontTab: async () => {},
} satisfies PanelApi;

describe("the panel", () => {
  const ctl = (tabs: PreviewTab[]): SessionTabs & { log: string[] } => {
    const log: string[] = [];
    const self: SessionTabs & { log: string[] } = {
      log,
      tabs,
      dialogs: [],
      fileVersion: 0,
      open: async (t) => {
        log.push(`open ${JSON.stringify(t)}`);
        return null;
      },
      // Read when asked: a test changes `tabs` as the Host's answer would.
      shown: async () => self.tabs.find((x) => x.active) ?? null,
      openFile: (p) => log.push(`file ${p}`),
      activate: (id) => log.push(`activate ${id}`),
      navigate: async (id, to) => {
        log.push(`navigate ${id} ${JSON.stringify(to)}`);
        return true;
      },
      move: (id, index) => log.push(`move ${id} ${index}`),
      close: (id) => log.push(`close ${id}`),
      answer: async () => {},
      onLive: () => {},
    };
    return self;
  };
  const file: PreviewTab = { tabId: "tab_" + "f".repeat(32), kind: "file", title: "a.txt", active: false, path: "docs/a.txt" };
  const blank: PreviewTab = { tabId: "tab_" + "b".repeat(32), kind: "new", title: "New tab", active: true };

  it("shows no controls before there is a session to open tabs in", () => {
    render(withT(<PreviewPanel api={new Api("tok")} sessionId={null} tabs={ctl([])} webTabs="iframe" onHide={() => {}} />));
    expect(screen.queryByRole("button", { name: "New tab" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Project files" })).toBeNull();
    expect(screen.queryByRole("textbox")).toBeNull();
    expect(document.querySelectorAll("button:disabled, input:disabled")).toHaveLength(0);
  });

  it("has no disabled control in a session with no tab yet; Go with no address says what it needs", async () => {
    const c = ctl([]);
    render(withT(<PreviewPanel api={new Api("tok")} sessionId="s1" tabs={c} webTabs="iframe" onHide={() => {}} />));
    expect(document.querySelectorAll("button:disabled, input:disabled")).toHaveLength(0);
    await act(async () => void fireEvent.click(screen.getByRole("button", { name: "Open" })));
    expect(screen.getByRole("alert").textContent).toBe("Type a web address to open, such as example.com or localhost:3000.");
    expect(screen.getByRole("textbox", { name: "Web address to open" }).getAttribute("aria-invalid")).toBe("true");
  });

  it("renders the Host's tabs in order with the active one selected, and sends the person's actions", async () => {
    const c = ctl([file, blank]);
    render(withT(<PreviewPanel api={new Api("tok")} sessionId="s1" tabs={c} webTabs="iframe" onHide={() => {}} />));
    const tabs = screen.getAllByRole("tab");
    expect(tabs.map((t) => t.textContent?.trim())).toEqual(["a.txt", "New tab"]);
    expect(tabs.map((t) => t.getAttribute("aria-selected"))).toEqual(["false", "true"]);
    expect(screen.getByRole("tabpanel").textContent).toContain("A blank tab");
    fireEvent.click(tabs[0]!);
    fireEvent.keyDown(tabs[1]!, { key: "ArrowRight" });
    fireEvent.click(screen.getByTitle("Close tab a.txt"));
    // The keyboard's way: Delete on a focused tab (the close buttons are the pointer's only).
    fireEvent.keyDown(tabs[1]!, { key: "Delete" });
    expect(screen.queryByRole("button", { name: /Close tab/ })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "New tab" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Web address to open" }), { target: { value: " https://example.com/ " } });
    fireEvent.submit(screen.getByRole("textbox", { name: "Web address to open" }).closest("form")!);
    await act(async () => {});
    expect(c.log).toEqual([
      `activate ${file.tabId}`,
      // From the last tab, → wraps to the first.
      `activate ${file.tabId}`,
      `close ${file.tabId}`,
      `close ${blank.tabId}`,
      'open {"kind":"new"}',
      // The blank tab shown takes the address, as a browser's does.
      `navigate ${blank.tabId} {"to":"address","url":"https://example.com/"}`,
    ]);
  });
  it("opens a typed address in a web tab of its own from a file tab, and in the tab shown from a web tab", async () => {
    const page = web({ active: false });
    const c = ctl([{ ...file, active: true }, page]);
    const { rerender } = render(withT(<PreviewPanel api={folderApi} sessionId="s1" tabs={c} webTabs="iframe" onHide={() => {}} />));
    const box = () => screen.getByRole("textbox", { name: "Web address to open" });
    const go = async (typed: string) => {
      fireEvent.change(box(), { target: { value: typed } });
      fireEvent.submit(box().closest("form")!);
      await act(async () => {});
    };
    expect(screen.getByRole("button", { name: "Open" }).getAttribute("title")).toBe("Open this address in a new web tab");
    await go("example.com/a");
    c.tabs = [{ ...file, active: false }, { ...page, active: true }];
    rerender(withT(<PreviewPanel api={folderApi} sessionId="s1" tabs={{ ...c }} webTabs="iframe" onHide={() => {}} />));
    expect(screen.getByRole("button", { name: "Go" }).getAttribute("title")).toBe("Load this address in the tab shown");
    await go("example.com/b");
    expect(c.log).toEqual(['open {"kind":"web","url":"https://example.com/a"}', `navigate ${page.tabId} {"to":"address","url":"https://example.com/b"}`]);
  });
  it("opens what a browser's address bar would, says which scheme it added, and refuses what is no address", async () => {
    const c = ctl([blank]);
    render(withT(<PreviewPanel api={new Api("tok")} sessionId="s1" tabs={c} webTabs="iframe" onHide={() => {}} />));
    const box = screen.getByRole("textbox", { name: "Web address to open" });
    fireEvent.change(box, { target: { value: "127.0.0.1:43299/site/about" } });
    fireEvent.submit(box.closest("form")!);
    await act(async () => {});
    expect(c.log).toEqual([`navigate ${blank.tabId} {"to":"address","url":"http://127.0.0.1:43299/site/about"}`]);
    expect(screen.getByRole("status").textContent).toBe("Opened as http://127.0.0.1:43299/site/about (http:// added).");
    expect((box as HTMLInputElement).value).toBe("");
    fireEvent.change(box, { target: { value: "two words" } });
    fireEvent.submit(box.closest("form")!);
    await act(async () => {});
    expect(c.log).toHaveLength(1);
    expect(screen.getByRole("alert").textContent).toMatch(/^That is not a web address/);
    expect(box.getAttribute("aria-invalid")).toBe("true");
    // Typing again takes the refusal back.
    fireEvent.change(box, { target: { value: "example.com" } });
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

describe("the panel: moving in place", () => {
  const log: string[] = [];
  const ctlOf = (tabs: PreviewTab[]): SessionTabs => ({
    tabs,
    dialogs: [],
    fileVersion: 0,
    open: async (t) => {
      log.push(`open ${JSON.stringify(t)}`);
      return null;
    },
    shown: async () => tabs.find((x) => x.active) ?? null,
    openFile: (p) => log.push(`file ${p}`),
    activate: () => {},
    navigate: async (id, to) => {
      log.push(`navigate ${id.slice(4, 5)} ${JSON.stringify(to)}`);
      return true;
    },
    move: () => {},
    close: () => {},
    answer: async () => {},
    onLive: () => {},
  });
  const folder = (path: string): PreviewTab => ({ tabId: "tab_" + "d".repeat(32), kind: "workspace", title: path, active: true, path });
  beforeEach(() => {
    log.length = 0;
  });

  it("a folder opens in the same tab, a file in a file tab, and Up goes to the folder above, then to the root", async () => {
    const { rerender } = render(withT(<PreviewPanel api={folderApi} sessionId="s1" tabs={ctlOf([folder("src/deep")])} webTabs="iframe" onHide={() => {}} />));
    await act(async () => {});
    fireEvent.click(screen.getByRole("button", { name: "inner/" }));
    fireEvent.click(screen.getByRole("button", { name: "a.txt" }));
    fireEvent.click(screen.getByRole("button", { name: "Up to the folder above" }));
    rerender(withT(<PreviewPanel api={folderApi} sessionId="s1" tabs={ctlOf([folder("src")])} webTabs="iframe" onHide={() => {}} />));
    await act(async () => {});
    fireEvent.click(screen.getByRole("button", { name: "Up to the folder above" }));
    expect(log).toEqual(['navigate d {"to":"folder","path":"src/deep/inner"}', "file src/deep/a.txt", 'navigate d {"to":"folder","path":"src"}', 'navigate d {"to":"folder"}']);
    rerender(withT(<PreviewPanel api={folderApi} sessionId="s1" tabs={ctlOf([folder(".")])} webTabs="iframe" onHide={() => {}} />));
    await act(async () => {});
    expect(screen.queryByRole("button", { name: "Up to the folder above" })).toBeNull();
    expect(log.some((l) => l.startsWith("open"))).toBe(false);
  });

  it("a page of Wisp's browser goes back, forward and reloads through the Host; a framed page only reloads, as a new frame", async () => {
    screenStatus = 404;
    const steps: unknown[] = [];
    const { unmount } = render(withT(<WebView api={new Api("tok")} tab={web({ loadState: "loaded" })} mode="browser" onNavigate={(to) => steps.push(to)} />));
    for (const name of ["Back", "Forward", "Reload"]) fireEvent.click(screen.getByRole("button", { name }));
    expect(steps).toEqual([{ to: "back" }, { to: "forward" }, { to: "reload" }]);
    unmount();
    render(withT(<WebView api={new Api("tok")} tab={web()} mode="iframe" onNavigate={(to) => steps.push(to)} />));
    expect(screen.queryByRole("button", { name: "Back" })).toBeNull();
    const before = screen.getByTitle("Example Domain");
    fireEvent.click(screen.getByRole("button", { name: "Reload" }));
    expect(screen.getByTitle("Example Domain")).not.toBe(before);
    expect(steps).toHaveLength(3);
  });
});

describe("the panel: a file tab", () => {
  const md: PreviewTab = { tabId: "tab_" + "m".repeat(32), kind: "file", title: "a.md", active: true, path: "docs/a.md" };
  const api = { ...folderApi, preview: async (_s: string, path: string) => ({ path, content: "# Guide\n\nSome *text*.\n", size: 20, partial: false, sha256: null }) } satisfies PanelApi;
  const ctl = (fileLine: SessionTabs["fileLine"]): SessionTabs => ({
    tabs: [md],
    dialogs: [],
    fileVersion: 0,
    fileLine,
    open: async () => null,
    shown: async () => md,
    openFile: () => {},
    activate: () => {},
    navigate: async () => true,
    move: () => {},
    close: () => {},
    answer: async () => {},
    onLive: () => {},
  });

  it("renders Markdown, shows its source on request, and opens at a line asked for in the source", async () => {
    const { rerender } = render(withT(<PreviewPanel api={api} sessionId="s1" tabs={ctl(null)} webTabs="iframe" onHide={() => {}} />));
    await act(async () => {});
    expect(screen.getByRole("heading", { name: "Guide" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Show source" }));
    expect(screen.queryByRole("heading", { name: "Guide" })).toBeNull();
    expect(screen.getByRole("region", { name: "Text of docs/a.md" }).textContent).toContain("# Guide");
    fireEvent.click(screen.getByRole("button", { name: "Show rendered" }));
    expect(screen.getByRole("heading", { name: "Guide" })).toBeTruthy();
    // A search hit's line: the source, that line marked; a line of another file marks nothing.
    rerender(withT(<PreviewPanel api={api} sessionId="s1" tabs={ctl({ path: "./docs//a.md", line: 3 })} webTabs="iframe" onHide={() => {}} />));
    await act(async () => {});
    expect(screen.getByRole("button", { name: "Show rendered" }).getAttribute("aria-pressed")).toBe("true");
    expect(document.querySelector(".line-mark")?.getAttribute("data-line")).toBe("3");
    rerender(withT(<PreviewPanel api={api} sessionId="s1" tabs={ctl({ path: "docs/b.md", line: 2 })} webTabs="iframe" onHide={() => {}} />));
    await act(async () => {});
    expect(document.querySelector(".line-mark")).toBeNull();
  });
});

describe("the panel: moving tabs", () => {
  const tab = (id: string, active = false): PreviewTab => ({ tabId: `tab_${id.repeat(32)}`, kind: "file", title: `T${id}`, active, path: `T${id}` });
  const [a, b, c] = [tab("a"), tab("b", true), tab("c")];
  // The panel over tabs kept by the QA page's reducer, so a move re-renders as the Host's answer would.
  function Harness({ log }: { log: string[] }) {
    const [tabs, setTabs] = useState([a, b, c]);
    const ctl: SessionTabs = {
      tabs,
      dialogs: [],
      fileVersion: 0,
      open: async () => null,
      shown: async () => tabs.find((x) => x.active) ?? null,
      openFile: () => {},
      navigate: async () => true,
      activate: (id) => {
        log.push(`activate ${id}`);
        setTabs((ts) => reduceTabs(ts, { type: "activate", id }));
      },
      move: (id, index) => {
        log.push(`move ${id} ${index}`);
        setTabs((ts) => reduceTabs(ts, { type: "move", id, index }));
      },
      close: () => {},
      answer: async () => {},
      onLive: () => {},
    };
    return withT(<PreviewPanel api={new Api("tok")} sessionId="s1" tabs={ctl} webTabs="iframe" onHide={() => {}} />);
  }
  const names = () => screen.getAllByRole("tab").map((t) => t.textContent?.trim());
  const ctrlShift = (el: Element, key: string) => fireEvent.keyDown(el, { key, ctrlKey: true, shiftKey: true });

  it("Ctrl+Shift+→/← moves the focused tab, which keeps the focus and the selection; not past either end", () => {
    const log: string[] = [];
    render(<Harness log={log} />);
    const tb = screen.getByRole("tab", { name: "Tb" });
    expect(tb.getAttribute("aria-keyshortcuts")).toBe("Delete Control+Shift+ArrowLeft Control+Shift+ArrowRight");
    tb.focus();
    ctrlShift(tb, "ArrowRight");
    expect(names()).toEqual(["Ta", "Tc", "Tb"]);
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: "Tb" }));
    expect(screen.getByRole("tab", { name: "Tb" }).getAttribute("aria-selected")).toBe("true");
    // At the end it stays.
    ctrlShift(document.activeElement!, "ArrowRight");
    ctrlShift(document.activeElement!, "ArrowLeft");
    ctrlShift(document.activeElement!, "ArrowLeft");
    expect(names()).toEqual(["Tb", "Ta", "Tc"]);
    ctrlShift(document.activeElement!, "ArrowLeft");
    expect(log).toEqual([`move ${b.tabId} 2`, `move ${b.tabId} 1`, `move ${b.tabId} 0`]);
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: "Tb" }));
    // A background tab moves too, and the selection stays where it was.
    const ta = screen.getByRole("tab", { name: "Ta" });
    ta.focus();
    ctrlShift(ta, "ArrowRight");
    expect(names()).toEqual(["Tb", "Tc", "Ta"]);
    expect(screen.getAllByRole("tab").map((t) => t.getAttribute("aria-selected"))).toEqual(["true", "false", "false"]);
  });

  it("moves nothing from a close button, the address field, or with other modifiers; plain arrows still select", () => {
    const log: string[] = [];
    render(<Harness log={log} />);
    ctrlShift(screen.getByTitle("Close tab Ta"), "ArrowRight");
    const address = screen.getByRole("textbox", { name: "Web address to open" });
    fireEvent.change(address, { target: { value: "https://example.com/" } });
    ctrlShift(address, "ArrowLeft");
    fireEvent.keyDown(screen.getByRole("tab", { name: "Tb" }), { key: "ArrowRight", ctrlKey: true, shiftKey: true, altKey: true });
    expect(log).toEqual([]);
    expect(names()).toEqual(["Ta", "Tb", "Tc"]);
    fireEvent.keyDown(screen.getByRole("tab", { name: "Tb" }), { key: "ArrowRight" });
    expect(log).toEqual([`activate ${c.tabId}`]);
  });

  it("a tab dragged onto another takes its place; a drop of anything else moves nothing", () => {
    const log: string[] = [];
    render(<Harness log={log} />);
    const box = (name: string) => screen.getByRole("tab", { name }).closest(".tab")!;
    const dataTransfer = { setData: () => {}, getData: () => "", effectAllowed: "", dropEffect: "" };
    fireEvent.dragStart(box("Tc"), { dataTransfer });
    fireEvent.dragOver(box("Ta"), { dataTransfer });
    expect(box("Ta").className).toContain("drop-before");
    fireEvent.drop(box("Ta"), { dataTransfer });
    fireEvent.dragEnd(box("Tc"), { dataTransfer });
    expect(names()).toEqual(["Tc", "Ta", "Tb"]);
    fireEvent.dragStart(box("Tc"), { dataTransfer });
    fireEvent.dragOver(box("Tb"), { dataTransfer });
    expect(box("Tb").className).toContain("drop-after");
    fireEvent.drop(box("Tb"), { dataTransfer });
    expect(names()).toEqual(["Ta", "Tb", "Tc"]);
    // Something dragged in from elsewhere (text, a file): not a tab of this strip.
    fireEvent.dragOver(box("Ta"), { dataTransfer });
    fireEvent.drop(box("Ta"), { dataTransfer });
    expect(log).toEqual([`move ${c.tabId} 0`, `move ${c.tabId} 2`]);
    expect(screen.getByRole("tab", { name: "Tb" }).getAttribute("aria-selected")).toBe("true");
  });
});

describe("the panel in Chinese", () => {
  it("names a blank tab in the person's language, not the Host's English", () => {
    const blank: PreviewTab = { tabId: "tab_" + "b".repeat(32), kind: "new", title: "New tab", active: true };
    const c = { tabs: [blank], dialogs: [], fileVersion: 0, open: async () => null, shown: async () => null, openFile: () => {}, activate: () => {}, navigate: async () => true, move: () => {}, close: () => {}, answer: async () => {}, onLive: () => {} };
    render(withT(<PreviewPanel api={new Api("tok")} sessionId="s1" tabs={c} webTabs="iframe" onHide={() => {}} />, "zh"));
    expect(screen.getByRole("tab").textContent?.trim()).toBe("新标签");
    expect(screen.getByTitle("关闭标签 新标签")).toBeTruthy();
  });
});

describe("the tab dialog", () => {
  const q = (kind: Question["kind"], message = ""): Question => ({ sessionId: "s1", dialogId: "dlg_" + "1".repeat(32), kind, tabId: TAB, message });

  it("close_confirm: Keep has the focus; Escape, Enter-repeat and clicks outside answer nothing; Close answers once", async () => {
    const onAnswer = vi.fn(async () => {});
    render(withT(<TabDialog dialog={q("close_confirm")} tab={web()} onAnswer={onAnswer} />));
    const dialog = screen.getByRole("alertdialog", { name: "Close this page?" });
    expect(dialog.textContent).toContain("Example Domain stays open unless you choose Close.");
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Keep" }));
    fireEvent.keyDown(document.activeElement!, { key: "Escape" });
    fireEvent.pointerDown(document.body);
    const close = screen.getByRole("button", { name: "Close" });
    const held = fireEvent.keyDown(close, { key: "Enter", repeat: true });
    expect(held).toBe(false);
    expect(onAnswer).not.toHaveBeenCalled();
    expect(screen.getByRole("alertdialog")).toBeTruthy();
    fireEvent.click(close);
    await act(async () => {});
    expect(onAnswer).toHaveBeenCalledTimes(1);
    expect(onAnswer).toHaveBeenCalledWith(q("close_confirm").dialogId, true);
  });

  it("beforeunload: the page's words as plain text, Stay keeps; in Chinese too", async () => {
    const onAnswer = vi.fn(async () => {});
    render(withT(<TabDialog dialog={q("beforeunload", "<b>unsaved</b> changes")} tab={web()} onAnswer={onAnswer} />, "zh"));
    expect(screen.getByRole("alertdialog", { name: "离开此页面？" })).toBeTruthy();
    expect(screen.getByText("<b>unsaved</b> changes")).toBeTruthy();
    expect(document.querySelector(".page-says b")).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "留下" }));
    fireEvent.click(screen.getByRole("button", { name: "留下" }));
    await act(async () => {});
    expect(onAnswer).toHaveBeenCalledWith(q("beforeunload").dialogId, false);
  });
});

describe("the in-memory tab reducer of the QA page (WEB-35)", () => {
  const open = (tabs: PreviewTab[], id: string) => reduceTabs(tabs, { type: "open", tab: { kind: "new" }, id });
  const three = open(open(open([], "a"), "b"), "c");
  const shape = (tabs: PreviewTab[]) => tabs.map((t) => `${t.tabId}${t.active ? "*" : ""}`).join(" ");

  it("a new tab is the active one", () => {
    expect(shape(three)).toBe("a b c*");
  });
  it("closing the active tab selects the tab that takes its place, else the new last one", () => {
    const onB = reduceTabs(three, { type: "activate", id: "b" });
    expect(shape(reduceTabs(onB, { type: "close", id: "b" }))).toBe("a c*");
    expect(shape(reduceTabs(three, { type: "close", id: "c" }))).toBe("a b*");
    expect(shape(reduceTabs(open([], "x"), { type: "close", id: "x" }))).toBe("");
  });
  it("a move puts a tab at a place (past the last one: the end) and keeps the selection", () => {
    expect(shape(reduceTabs(three, { type: "move", id: "c", index: 0 }))).toBe("c* a b");
    expect(shape(reduceTabs(three, { type: "move", id: "a", index: 1 }))).toBe("b a c*");
    expect(shape(reduceTabs(three, { type: "move", id: "a", index: 49 }))).toBe("b c* a");
    expect(shape(reduceTabs(three, { type: "move", id: "b", index: -3 }))).toBe("b a c*");
    expect(reduceTabs(three, { type: "move", id: "b", index: 1 })).toBe(three);
    expect(reduceTabs(three, { type: "move", id: "zz", index: 0 })).toBe(three);
    expect(moveTab([], "a", 0)).toEqual([]);
  });
  it("closing a background tab keeps the selection; unknown IDs change nothing", () => {
    expect(shape(reduceTabs(three, { type: "close", id: "a" }))).toBe("b c*");
    expect(reduceTabs(three, { type: "close", id: "zz" })).toBe(three);
    expect(reduceTabs(three, { type: "activate", id: "zz" })).toBe(three);
  });
});

describe("useSessionTabs: the Host's list, kept current", () => {
  const file = (id: string, path: string, active = false): PreviewTab => ({ tabId: id, kind: "file", title: path, active, path });

  it("reads the list, again on a tabs event; a known file is activated rather than opened twice; dialogs queue and a gone one is dropped", async () => {
    let list: PreviewTab[] = [file("tab_1", "a.txt", true)];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push({ method: init?.method ?? "GET", url, auth: null });
        if (url === "/api/sessions/s1/tabs" && (init?.method ?? "GET") === "GET") return new Response(JSON.stringify(list), { status: 200 });
        if (url.endsWith("/activate")) return new Response(JSON.stringify(list.map((t) => ({ ...t, active: url.includes(t.tabId) }))), { status: 200 });
        if (url.startsWith("/api/dialogs/")) return new Response(JSON.stringify({ error: "not_found", message: "no open dialog" }), { status: 404 });
        return new Response("{}", { status: 201 });
      }),
    );
    const reported: unknown[] = [];
    const api = new Api("tok");
    const { result } = renderHook(() => useSessionTabs(api, "s1", (e) => reported.push(e)));
    await act(async () => {});
    expect(result.current.tabs.map((t) => t.tabId)).toEqual(["tab_1"]);
    list = [file("tab_1", "a.txt"), file("tab_2", "b.txt", true)];
    const version = result.current.fileVersion;
    await act(async () => result.current.onLive("tabs", { sessionId: "s1" }));
    expect(result.current.tabs.map((t) => `${t.tabId}${t.active ? "*" : ""}`)).toEqual(["tab_1", "tab_2*"]);
    expect(result.current.fileVersion).toBeGreaterThan(version);
    // An open file is selected; a new one is asked of the Host.
    await act(async () => result.current.openFile("./a.txt"));
    await act(async () => result.current.openFile("c.txt"));
    expect(calls.filter((c) => c.method === "POST").map((c) => c.url)).toEqual(["/api/tabs/tab_1/activate", "/api/sessions/s1/tabs"]);
    // Dialogs: this session's, once each; answered or gone, they leave the queue.
    const d = { sessionId: "s1", dialogId: "dlg_1", kind: "close_confirm" as const, tabId: "tab_2", message: "" };
    act(() => {
      result.current.onLive("dialog", d);
      result.current.onLive("dialog", d);
      result.current.onLive("dialog", { ...d, sessionId: "s2", dialogId: "dlg_2" });
    });
    expect(result.current.dialogs.map((x) => x.dialogId)).toEqual(["dlg_1"]);
    await act(async () => result.current.answer("dlg_1", false));
    expect(result.current.dialogs).toEqual([]);
    expect(calls.some((c) => c.url === "/api/dialogs/dlg_1" && c.method === "POST")).toBe(true);
    expect(reported).toEqual([]);
  });
});

describe("useSessionTabs: New tab, then an address typed at once", () => {
  const blank = (id: string, active = false): PreviewTab => ({ tabId: id, kind: "new", title: "New tab", active });
  function Live({ api }: { api: Api }) {
    const tabs = useSessionTabs(api, "s1", () => {});
    return <PreviewPanel api={api} sessionId="s1" tabs={tabs} webTabs="iframe" onHide={() => {}} />;
  }

  it("goes to the new tab, not to the one still shown while the Host answers", async () => {
    let list: PreviewTab[] = [blank("tab_1", true)];
    let answerOpen: (() => void) | null = null;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        const method = init?.method ?? "GET";
        calls.push({ method, url, auth: null });
        if (url === "/api/sessions/s1/tabs" && method === "POST") {
          await new Promise<void>((r) => (answerOpen = r));
          list = [blank("tab_1"), blank("tab_2", true)];
          return new Response(JSON.stringify(list[1]), { status: 201 });
        }
        if (url.endsWith("/navigate")) return new Response(JSON.stringify(list), { status: 200 });
        return new Response(JSON.stringify(list), { status: 200 });
      }),
    );
    render(withT(<Live api={new Api("tok")} />));
    await act(async () => {});
    fireEvent.click(screen.getByRole("button", { name: "New tab" }));
    const box = screen.getByRole("textbox", { name: "Web address to open" });
    fireEvent.change(box, { target: { value: "example.com" } });
    fireEvent.submit(box.closest("form")!);
    await act(async () => {});
    // Nothing is sent anywhere until the Host says which tab it opened.
    expect(calls.filter((c) => c.url.endsWith("/navigate"))).toEqual([]);
    await act(async () => answerOpen?.());
    await act(async () => {});
    expect(calls.filter((c) => c.method === "POST").map((c) => c.url)).toEqual(["/api/sessions/s1/tabs", "/api/tabs/tab_2/navigate"]);
    expect(screen.getAllByRole("tab").map((t) => t.getAttribute("aria-selected"))).toEqual(["false", "true"]);
  });
});

describe("useSessionTabs: a move", () => {
  const t = (id: string, active = false): PreviewTab => ({ tabId: id, kind: "new", title: id, active });

  it("shows at once, asks the Host, then shows the Host's order; a refusal reads the Host's list again", async () => {
    let list: PreviewTab[] = [t("tab_1"), t("tab_2", true), t("tab_3")];
    let refuse = false;
    const bodies: unknown[] = [];
    let answer: (() => void) | null = null;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push({ method: init?.method ?? "GET", url, auth: null });
        if (url.endsWith("/move")) {
          bodies.push(JSON.parse(String(init?.body)));
          if (refuse) return new Response(JSON.stringify({ error: "invalid_body", message: "index: a place in the session's tabs, 0 to 49" }), { status: 400 });
          await new Promise<void>((r) => (answer = r));
          // The Host's own order wins over the one shown meanwhile.
          list = [list[1]!, list[2]!, list[0]!];
          return new Response(JSON.stringify(list), { status: 200 });
        }
        return new Response(JSON.stringify(list), { status: 200 });
      }),
    );
    const reported: unknown[] = [];
    const api = new Api("tok");
    const { result } = renderHook(() => useSessionTabs(api, "s1", (e) => reported.push(e)));
    await act(async () => {});
    act(() => result.current.move("tab_1", 2));
    const ids = () => result.current.tabs.map((x) => `${x.tabId}${x.active ? "*" : ""}`);
    expect(ids()).toEqual(["tab_2*", "tab_3", "tab_1"]);
    await act(async () => {});
    expect(calls.filter((c) => c.method === "POST").map((c) => c.url)).toEqual(["/api/tabs/tab_1/move"]);
    expect(bodies).toEqual([{ index: 2 }]);
    await act(async () => answer?.());
    expect(ids()).toEqual(["tab_2*", "tab_3", "tab_1"]);
    refuse = true;
    act(() => result.current.move("tab_1", 0));
    expect(ids()).toEqual(["tab_1", "tab_2*", "tab_3"]);
    await act(async () => {});
    await act(async () => {});
    expect(ids()).toEqual(["tab_2*", "tab_3", "tab_1"]);
    expect(reported).toHaveLength(1);
  });
});

it("compares file paths as the Host keeps them", () => {
  expect(samePath("./docs//a.md", "docs/a.md")).toBe(true);
  expect(samePath("docs/./a.md/", "docs/a.md")).toBe(true);
  expect(samePath("docs/a.md", "docs/b.md")).toBe(false);
  expect(samePath("a/b", "ab")).toBe(false);
});
