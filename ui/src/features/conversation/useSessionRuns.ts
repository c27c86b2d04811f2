// The shown session's runs, kept true to the Host: the newest page is read when the session is
// shown, then its event stream is followed from the session's last event, and each event makes
// its run be read again (a burst of events of one run costs one request). What streams between
// stored events is the live state (liveRuns.ts). A succeeded call whose family opens its file
// when done (UI-01) is handed to `onFileDone` once its run shows it succeeded.
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import type { Api } from "../../api";
import { FINAL, type Delta, type Run, type RunPage, type Session, type WispEvent } from "../../types";
import { toolViews } from "../tools/registry";
import { liveRuns } from "./liveRuns";

interface Options {
  sessionId: string | null;
  /** The session list as known; read once for where the stream starts. */
  sessions: Session[];
  /** Reads the session list again (a run started or ended). */
  loadSessions: () => Promise<unknown>;
  report: (e: unknown) => void;
  /** Live events with a name of their own (`tabs`, `dialog`, `open_ticket`, `tool_output`). */
  onLive: (name: string, data: unknown) => void;
  onFileDone: (path: string) => void;
}

export function useSessionRuns(api: Api, { sessionId, sessions, loadSessions, report, onLive, onFileDone }: Options) {
  const [runs, setRuns] = useState<Run[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  // The session whose first page of runs has arrived (examples show only for an empty one).
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const [live, dispatchLive] = useReducer(liveRuns, {});
  const currentRef = useRef<string | null>(null);
  currentRef.current = sessionId;
  const onLiveRef = useRef(onLive);
  onLiveRef.current = onLive;
  const onFileDoneRef = useRef(onFileDone);
  onFileDoneRef.current = onFileDone;

  const upsert = useCallback((run: Run) => {
    setRuns((rs) => {
      if (run.sessionId !== currentRef.current) return rs;
      const i = rs.findIndex((r) => r.id === run.id);
      if (i < 0) return [...rs, run].sort((a, b) => a.createdAt - b.createdAt);
      const next = rs.slice();
      next[i] = run;
      return next;
    });
  }, []);

  // Coalesces refreshes: many events of one run in a burst cost one request.
  const inflight = useRef(new Map<string, Promise<void>>());
  const again = useRef(new Set<string>());
  const refreshRun = useCallback(
    (id: string) => {
      if (inflight.current.has(id)) {
        again.current.add(id);
        return;
      }
      const p = api
        .run(id)
        .then((run) => {
          upsert(run);
          if (FINAL.includes(run.status)) dispatchLive({ kind: "ended", runId: id });
        })
        .catch(report)
        .finally(() => {
          inflight.current.delete(id);
          if (again.current.delete(id)) refreshRun(id);
        });
      inflight.current.set(id, p);
    },
    [api, upsert, report],
  );

  // Calls that succeeded by the stream, waiting for their run to show it.
  const succeeded = useRef(new Set<string>());

  useEffect(() => {
    setRuns([]);
    dispatchLive({ kind: "clear" });
    setCursor(null);
    if (!sessionId) return;
    let stop = () => {};
    let cancelled = false;
    // The stream starts after the session's last event as known before its runs are read. On a
    // reload the session list has not arrived yet: it is read first, since replaying the whole
    // log would act on old events again (a written file would reopen its tab in the Host).
    const known = sessions.find((s) => s.id === sessionId);
    (known ? Promise.resolve(known) : api.sessions().then((l) => l.find((s) => s.id === sessionId)))
      .then((session) => api.runs(sessionId).then((page) => ({ page, session })))
      .then(({ page, session }) => {
        if (cancelled) return;
        setRuns(page.runs.slice().reverse());
        setCursor(page.nextCursor);
        setLoadedFor(sessionId);
        const onEvent = (e: WispEvent) => {
          if (!e.runId) return;
          refreshRun(e.runId);
          if (e.type === "run_started" || e.type === "run_finished") void loadSessions();
          if (e.type === "tool_call_finished" && e.status === "succeeded") succeeded.current.add(e.callId);
          dispatchLive({ kind: "event", event: e, now: Date.now() });
        };
        const onDelta = (delta: Delta) => dispatchLive({ kind: "delta", delta, now: Date.now() });
        stop = api.follow(sessionId, session?.lastEventSeq ?? 0, onEvent, onDelta, (name, data) => onLiveRef.current(name, data));
      })
      .catch(report);
    return () => {
      cancelled = true;
      stop();
    };
    // `sessions` is read once for lastEventSeq; following again on every list refresh would
    // reconnect the stream for nothing.
  }, [api, sessionId, refreshRun, report, loadSessions]);

  useEffect(() => {
    for (const run of runs) {
      for (const c of run.steps.flatMap((s) => s.toolCalls)) {
        if (succeeded.current.has(c.callId) && c.status === "succeeded") {
          succeeded.current.delete(c.callId);
          const views = toolViews(c.tool);
          const path = views.opensWhenDone ? views.previewPath?.(c.arguments) : undefined;
          if (path !== undefined) onFileDoneRef.current(path);
        }
      }
    }
  }, [runs]);

  /** An older page, read when the person scrolled up to it. */
  const addOlder = useCallback((page: RunPage) => {
    setRuns((rs) => [...page.runs.slice().reverse(), ...rs]);
    setCursor(page.nextCursor);
  }, []);

  return { runs, cursor, loadedFor, live, refreshRun, addOlder };
}
