// The session list and which session is shown: read from the Host at start and again whenever
// the Host's own stream says it changed, the shown one remembered across reloads. The same
// stream names the sessions waiting for the person's approval, also those not on screen (a
// session's event stream follows the shown session only).
import { useCallback, useEffect, useRef, useState } from "react";
import type { Api } from "../../api";
import type { Session } from "../../types";

/** Where the shown session is remembered. */
const STORED = "wisp-session";

export function useSessions(api: Api, report: (e: unknown) => void) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [currentId, setShown] = useState<string | null>(() => localStorage.getItem(STORED));

  // Lists are read on many occasions at once (start, the stream's connect, a session made):
  // an answer older than one already applied is dropped, or a list from before "New session"
  // would take away the session just made and shown.
  const issued = useRef(0);
  const applied = useRef(0);
  // The remembered session is checked against the first list only if the person has not
  // chosen one since.
  const settled = useRef(false);
  const loadSessions = useCallback(async () => {
    const mine = ++issued.current;
    const list = await api.sessions();
    if (mine > applied.current) {
      applied.current = mine;
      setSessions(list);
      if (!settled.current) {
        settled.current = true;
        setShown((id) => (id && list.some((s) => s.id === id) ? id : list[0]?.id ?? null));
      }
    }
    return list;
  }, [api]);

  /** Shows a session the person chose (or made): it stands whatever list arrives later. */
  const setCurrentId = useCallback((id: string | null) => {
    settled.current = true;
    setShown(id);
  }, []);

  useEffect(() => {
    loadSessions().catch(report);
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
