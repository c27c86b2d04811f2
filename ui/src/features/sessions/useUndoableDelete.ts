// Deleting a session without a confirmation, undoable for a few seconds: the session leaves
// the list at once and the Host is asked to delete it only when the time is up (or when
// another delete or leaving the page makes it final). Until then nothing is lost: Undo shows
// it again, and a Host that refuses (a run started meanwhile) keeps it, saying why.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Api } from "../../api";
import type { Session } from "../../types";

/** How long Undo is offered. The time stops while the pointer is on the offer. */
export const UNDO_MS = 6000;

interface Options {
  sessions: Session[];
  loadSessions: () => Promise<Session[]>;
  show: (id: string | null) => void;
  report: (e: unknown) => void;
}

export function useUndoableDelete(api: Api, { sessions, loadSessions, show, report }: Options) {
  const [pending, setPending] = useState<Session | null>(null);
  const pendingRef = useRef<Session | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const stopTimer = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
  };

  const commit = useCallback(
    (s: Session) => {
      if (pendingRef.current?.id === s.id) {
        stopTimer();
        pendingRef.current = null;
      }
      // It stays hidden until the list read after the answer, so it does not flash back.
      api
        .deleteSession(s.id)
        .catch(report)
        .then(loadSessions)
        .catch(report)
        .finally(() => setPending((p) => (p?.id === s.id ? null : p)));
    },
    [api, loadSessions, report],
  );

  const startTimer = useCallback(() => {
    stopTimer();
    const s = pendingRef.current;
    if (s) timer.current = setTimeout(() => commit(s), UNDO_MS);
  }, [commit]);

  const start = (s: Session) => {
    const before = pendingRef.current;
    if (before) commit(before);
    pendingRef.current = s;
    setPending(s);
    startTimer();
    // Its place goes to the newest session left.
    show(sessions.find((x) => x.id !== s.id && x.id !== before?.id)?.id ?? null);
  };

  const undo = () => {
    const s = pendingRef.current;
    if (!s) return;
    stopTimer();
    pendingRef.current = null;
    setPending(null);
    show(s.id);
  };

  useEffect(() => {
    // Leaving the page makes a delete final, as the person saw it go.
    const leave = () => {
      const s = pendingRef.current;
      if (!s) return;
      stopTimer();
      pendingRef.current = null;
      api.deleteSessionOnLeave(s.id);
    };
    window.addEventListener("pagehide", leave);
    return () => window.removeEventListener("pagehide", leave);
  }, [api]);

  return { pending, start, undo, hold: stopTimer, resume: startTimer };
}
