// A session's preview tabs as the Host holds them (UI-07): the list is read from the
// Host, again on every `tabs` event, and the person's actions (open, activate, move, close) go to the
// Host, which answers with the new state (a move shows at once, then as the Host answers). Nothing is kept here that the Host does not hold, so a
// reload shows the same tabs. `dialog` events queue the questions the Host waits on.
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, type Api } from "../../api";
import type { NavigateTab, OpenTab, PreviewTab, TabDialog } from "../../types";
import { moveTab } from "./memory";

export interface SessionTabs {
  tabs: PreviewTab[];
  /** Questions the Host waits on, oldest first; the first is shown. */
  dialogs: TabDialog[];
  /** Bumped when a file is opened again or the tabs changed: the file view reads it anew. */
  fileVersion: number;
  open: (tab: OpenTab) => Promise<PreviewTab | null>;
  /** The tab shown once every tab the person asked to open is open: where a typed address
   * goes. Read at the moment of typing it would still be the one shown before New tab. */
  shown: () => Promise<PreviewTab | null>;
  /** A file tab: the existing one for that path is selected (and re-read), else one is opened;
   * `line` (from 1) is marked and scrolled to there. */
  openFile: (path: string, line?: number) => void;
  /** The line the latest `openFile` asked for, and of which file. */
  fileLine?: { path: string; line: number } | null;
  activate: (tabId: string) => void;
  /** Takes a tab elsewhere in place (another folder or address, back, forward, reload);
   * whether the Host did. */
  navigate: (tabId: string, to: NavigateTab) => Promise<boolean>;
  /** Moves a tab to a place in the order (0 first); the selection stays. */
  move: (tabId: string, index: number) => void;
  close: (tabId: string) => void;
  answer: (dialogId: string, accept: boolean) => Promise<void>;
  /** Feed the session's live events here (`tabs`, `dialog`). */
  onLive: (name: string, data: unknown) => void;
}

export function useSessionTabs(api: Api, sessionId: string | null, onError: (e: unknown) => void): SessionTabs {
  // Held in a ref: a caller's new callback must not count as a new session (which resets).
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  const report = useCallback((e: unknown) => onErrorRef.current(e), []);
  const [tabs, setTabs] = useState<PreviewTab[]>([]);
  const [dialogs, setDialogs] = useState<TabDialog[]>([]);
  const [fileVersion, setFileVersion] = useState(0);
  const [fileLine, setFileLine] = useState<{ path: string; line: number } | null>(null);
  const sid = useRef(sessionId);
  sid.current = sessionId;
  const tabsRef = useRef(tabs);
  tabsRef.current = tabs;

  // Coalesced: a burst of `tabs` events costs one request in flight and one after it.
  const inflight = useRef(false);
  const again = useRef(false);
  const refresh = useCallback(() => {
    const s = sid.current;
    if (!s) return;
    if (inflight.current) {
      again.current = true;
      return;
    }
    inflight.current = true;
    api
      .tabs(s)
      .then((list) => {
        if (sid.current === s) setTabs(list);
      })
      .catch(report)
      .finally(() => {
        inflight.current = false;
        if (again.current) {
          again.current = false;
          refresh();
        }
      });
  }, [api, report]);

  useEffect(() => {
    setTabs([]);
    setDialogs([]);
    refresh();
  }, [sessionId, refresh]);

  // Opens not yet answered by the Host: `shown` waits for them.
  const opening = useRef<Promise<unknown>[]>([]);
  const open = useCallback(
    async (tab: OpenTab) => {
      const s = sid.current;
      if (!s) return null;
      const asked = api.openTab(s, tab);
      opening.current = [...opening.current, asked];
      try {
        const made = await asked;
        // Shown at once, as the Host placed it (last, and selected if it says so); the list
        // read next is the Host's word.
        if (sid.current === s) {
          const others = made.active ? tabsRef.current.map((x) => (x.active ? { ...x, active: false } : x)) : tabsRef.current;
          tabsRef.current = [...others.filter((x) => x.tabId !== made.tabId), made];
          setTabs(tabsRef.current);
        }
        refresh();
        return made;
      } catch (e) {
        report(e);
        return null;
      } finally {
        opening.current = opening.current.filter((p) => p !== asked);
      }
    },
    [api, refresh, report],
  );

  const shown = useCallback(async () => {
    while (opening.current.length) await Promise.allSettled(opening.current);
    return tabsRef.current.find((x) => x.active) ?? null;
  }, []);

  const activate = useCallback(
    (tabId: string) => {
      const s = sid.current;
      api
        .activateTab(tabId)
        .then((list) => {
          if (sid.current === s) setTabs(list);
        })
        .catch(report);
    },
    [api, report],
  );

  const navigate = useCallback(
    async (tabId: string, to: NavigateTab) => {
      const s = sid.current;
      try {
        const list = await api.navigateTab(tabId, to);
        if (sid.current === s) setTabs(list);
        // A reload reads the file or folder again; a new folder is read anyway.
        setFileVersion((v) => v + 1);
        return true;
      } catch (e) {
        report(e);
        return false;
      }
    },
    [api, report],
  );

  const move = useCallback(
    (tabId: string, index: number) => {
      const s = sid.current;
      // Shown at once (a drag must not snap back while the request is out); the Host's answer
      // is the order, and on a refusal the Host's list is read again.
      setTabs((ts) => moveTab(ts, tabId, index));
      api
        .moveTab(tabId, index)
        .then((list) => {
          if (sid.current === s) setTabs(list);
        })
        .catch((e) => {
          report(e);
          refresh();
        });
    },
    [api, refresh, report],
  );

  const openFile = useCallback(
    (path: string, line?: number) => {
      setFileVersion((v) => v + 1);
      setFileLine(line ? { path, line } : null);
      // The Host keeps the path it checked (`./a//b` is `a/b`): compared the same way.
      const known = tabsRef.current.find((x) => x.kind === "file" && typeof x.path === "string" && samePath(x.path, path));
      if (known) activate(known.tabId);
      else void open({ kind: "file", path });
    },
    [activate, open],
  );

  // A web tab answers `closing`: the Host asks first, and its `tabs` event says how it ended.
  const close = useCallback(
    (tabId: string) => {
      api
        .closeTab(tabId)
        .then(refresh)
        .catch(report);
    },
    [api, refresh, report],
  );

  const answer = useCallback(
    async (dialogId: string, accept: boolean) => {
      try {
        await api.answerDialog(dialogId, accept);
      } catch (e) {
        // Answered elsewhere or expired (the Host kept the tab): nothing waits any more.
        if (!(e instanceof ApiError && e.status === 404)) report(e);
      }
      setDialogs((ds) => ds.filter((d) => d.dialogId !== dialogId));
      refresh();
    },
    [api, refresh, report],
  );

  const onLive = useCallback(
    (name: string, data: unknown) => {
      // Any change may be a reload the agent asked for (preview_tab_action): the file shown
      // is read again too.
      if (name === "tabs") {
        refresh();
        setFileVersion((v) => v + 1);
      }
      if (name === "dialog") {
        const d = data as TabDialog;
        if (d.sessionId !== sid.current) return;
        setDialogs((ds) => (ds.some((x) => x.dialogId === d.dialogId) ? ds : [...ds, d]));
      }
    },
    [refresh],
  );

  return { tabs, dialogs, fileVersion, fileLine, open, shown, openFile, activate, navigate, move, close, answer, onLive };
}

/** Whether two project-relative paths name the same file once `.` and empty segments go. */
export function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.split("/").filter((seg) => seg !== "" && seg !== ".").join("/");
  return norm(a) === norm(b);
}
