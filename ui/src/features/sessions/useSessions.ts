// The session list and which session is shown: read from the Host at start and whenever a run
// starts or ends, the shown one remembered across reloads. Sessions waiting for the person's
// approval are found also when they are not on screen: the list is re-read every few seconds
// and each active run's status looked up (the event stream follows the shown session only).
import { useCallback, useEffect, useState } from "react";
import type { Api } from "../../api";
import type { Session } from "../../types";

/** How often the session list is re-read for approvals waiting in other sessions. */
const SESSION_POLL_MS = 3000;

/** Where the shown session is remembered. */
const STORED = "wisp-session";

export function useSessions(api: Api, report: (e: unknown) => void) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [currentId, setCurrentId] = useState<string | null>(() => localStorage.getItem(STORED));

  const loadSessions = useCallback(async () => {
    const list = await api.sessions();
    setSessions(list);
    return list;
  }, [api]);

  useEffect(() => {
    loadSessions()
      .then((list) => setCurrentId((id) => (id && list.some((s) => s.id === id) ? id : list[0]?.id ?? null)))
      .catch(report);
  }, [loadSessions, report]);

  useEffect(() => {
    if (!currentId) return;
    localStorage.setItem(STORED, currentId);
    // Alt+↓/↑ may choose a session scrolled out of the list: bring it into view.
    document.querySelector(`[data-session-id="${CSS.escape(currentId)}"]`)?.scrollIntoView?.({ block: "nearest" });
  }, [currentId]);

  const [waitingPoll, setWaitingPoll] = useState<Set<string>>(new Set());
  useEffect(() => {
    let stopped = false;
    const check = async () => {
      try {
        const list = await loadSessions();
        const ids = new Set<string>();
        await Promise.all(
          list
            .filter((s) => s.activeRunId)
            .map(async (s) => {
              const r = await api.run(s.activeRunId!).catch(() => null);
              if (r?.status === "awaiting_approval") ids.add(s.id);
            }),
        );
        if (!stopped) setWaitingPoll(ids);
      } catch {
        // The next round tries again; a Host that went away is reported by the event stream.
      }
    };
    void check();
    const h = setInterval(() => void check(), SESSION_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(h);
    };
  }, [api, loadSessions]);

  return { sessions, currentId, setCurrentId, loadSessions, waitingPoll };
}
