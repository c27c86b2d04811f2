// The session list and which session is shown: read from the Host at start and again whenever
// the Host's own stream says it changed, the shown one remembered across reloads. The same
// stream names the sessions waiting for the person's approval, also those not on screen (a
// session's event stream follows the shown session only).
import { useCallback, useEffect, useState } from "react";
import type { Api } from "../../api";
import type { Session } from "../../types";

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

  const [waiting, setWaiting] = useState<Set<string>>(new Set());
  useEffect(
    () =>
      // Sent at connect (and every reconnect) and after every change: read the list each time.
      api.followSessions((c) => {
        setWaiting(new Set(c.waiting));
        loadSessions().catch(() => {
          // The next change reads it again; a Host that went away is reported by the streams.
        });
      }),
    [api, loadSessions],
  );

  return { sessions, currentId, setCurrentId, loadSessions, waiting };
}
