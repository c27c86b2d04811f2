// Tabs in memory, for the QA page only (UI-14, UI-15): the same shape as the Host's list and the
// same rules — a new tab becomes the active one; closing the active tab selects its neighbour
// (the tab that took its place, else the new last one), closing a background tab keeps the
// selection (WEB-35); a move puts a tab at a place (past the last one: the end) and keeps the
// selection. The workbench itself never uses this: the Host holds the real tabs.
import type { NavigateTab, OpenTab, PreviewTab } from "../../types";

export type TabAction =
  | { type: "open"; tab: OpenTab; id: string }
  | { type: "activate"; id: string }
  | { type: "close"; id: string }
  | { type: "move"; id: string; index: number }
  | { type: "navigate"; id: string; to: NavigateTab };

/** `tabs` with tab `id` at place `index` (0 first; past the last place: the end), as the Host
 * moves it (`POST /api/tabs/{id}/move`); the selection does not change. Unknown IDs and moves
 * to where the tab already is answer `tabs` itself. */
export function moveTab(tabs: PreviewTab[], id: string, index: number): PreviewTab[] {
  const from = tabs.findIndex((x) => x.tabId === id);
  if (from < 0) return tabs;
  const rest = tabs.filter((x) => x.tabId !== id);
  const to = Math.max(0, Math.min(Math.floor(index), rest.length));
  if (to === from) return tabs;
  return [...rest.slice(0, to), tabs[from]!, ...rest.slice(to)];
}

const titleOf = (t: OpenTab): string => (t.kind === "web" ? t.url : t.kind === "file" ? t.path.split("/").pop() ?? t.path : "New tab");

export function reduceTabs(tabs: PreviewTab[], action: TabAction): PreviewTab[] {
  switch (action.type) {
    case "open": {
      const t = action.tab;
      const made: PreviewTab = { tabId: action.id, kind: t.kind, title: titleOf(t), active: true, ...(t.kind === "web" ? { url: t.url } : t.kind === "file" ? { path: t.path } : {}) };
      return [...tabs.map((x) => ({ ...x, active: false })), made];
    }
    case "activate":
      return tabs.some((x) => x.tabId === action.id) ? tabs.map((x) => ({ ...x, active: x.tabId === action.id })) : tabs;
    case "move":
      return moveTab(tabs, action.id, action.index);
    case "navigate": {
      // In place, as the Host does: a folder tab to another folder, a web or blank tab to an
      // address; history has nothing to walk in memory.
      const to = action.to;
      return tabs.map((x) => {
        if (x.tabId !== action.id) return x;
        if (to.to === "folder" && x.kind === "workspace") return { ...workspaceTab(x.tabId, to.path ?? "."), active: x.active };
        if (to.to === "address" && (x.kind === "web" || x.kind === "new")) return { tabId: x.tabId, kind: "web", title: to.url, active: x.active, url: to.url };
        return x;
      });
    }
    case "close": {
      const at = tabs.findIndex((x) => x.tabId === action.id);
      if (at < 0) return tabs;
      const rest = tabs.filter((x) => x.tabId !== action.id);
      if (!tabs[at]!.active) return rest;
      const next = rest[at] ?? rest[rest.length - 1];
      return rest.map((x) => ({ ...x, active: x === next }));
    }
  }
}

/** A workspace (folder) tab of the QA page: the Host's own list has them as kind `workspace`. */
export function workspaceTab(id: string, path: string): PreviewTab {
  return { tabId: id, kind: "workspace", title: path.split("/").filter(Boolean).pop() ?? path, active: true, path };
}
