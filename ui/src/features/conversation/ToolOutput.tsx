// A running tool call's live output (npm's output shown to the person, capped,
// progress included): the Host's `tool_output` events, never stored, kept here per call in
// memory only — so a reload or another session starts empty, and once a call has ended its
// result carries npm's tail. Shown under the call as a small scrolling log that screen readers
// skip (`aria-live="off"`); they hear the step names only, from `StepAnnouncer`.
import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState } from "react";
import { useT } from "../../i18n";

/** Lines the UI keeps per call (the latest); the Host sends at most 500 output lines. */
export const MAX_LOG_LINES = 200;

/** Scrolled this close to the bottom, the log follows new lines. */
const FOLLOW_PX = 24;

/** One `tool_output` event as the Host sends it. */
export interface ToolOutputEvent {
  sessionId: string;
  runId: string;
  callId: string;
  kind: "step" | "output" | "held_back";
  step: string;
  line: string;
  heldBack?: number;
}

export interface LogLine {
  /** Position in the call's log, for React keys. */
  n: number;
  kind: ToolOutputEvent["kind"];
  line: string;
  heldBack?: number;
}

export interface CallLog {
  lines: LogLine[];
  /** Lines received so far (older ones beyond MAX_LOG_LINES are dropped from `lines`). */
  total: number;
}

/** The logs of the shown session's calls, by call ID. */
export const ToolOutputs = createContext<Record<string, CallLog>>({});

function isToolOutput(d: unknown): d is ToolOutputEvent {
  if (typeof d !== "object" || d === null) return false;
  const o = d as Record<string, unknown>;
  return (
    typeof o.sessionId === "string" &&
    typeof o.callId === "string" &&
    typeof o.line === "string" &&
    (o.kind === "step" || o.kind === "output" || o.kind === "held_back")
  );
}

/** Adds one event to a call's log, keeping the latest MAX_LOG_LINES. */
export function appendLine(log: CallLog | undefined, e: ToolOutputEvent): CallLog {
  const prev = log ?? { lines: [], total: 0 };
  const line: LogLine = { n: prev.total, kind: e.kind, line: e.line, heldBack: e.heldBack };
  const lines = [...prev.lines, line];
  return { lines: lines.length > MAX_LOG_LINES ? lines.slice(lines.length - MAX_LOG_LINES) : lines, total: prev.total + 1 };
}

/** The shown session's call logs and the latest step (for the announcer). `onLive` takes
 * every named live event of the stream and keeps the `tool_output` ones of `sessionId`. */
export function useToolOutput(sessionId: string | null) {
  const [logs, setLogs] = useState<Record<string, CallLog>>({});
  const [step, setStep] = useState("");
  // Another session (or none): its calls' lines are not this one's.
  useEffect(() => {
    setLogs({});
    setStep("");
  }, [sessionId]);
  const onLive = useCallback(
    (name: string, data: unknown) => {
      if (name !== "tool_output" || !isToolOutput(data) || data.sessionId !== sessionId) return;
      setLogs((l) => ({ ...l, [data.callId]: appendLine(l[data.callId], data) }));
      if (data.kind === "step") setStep(data.line);
    },
    [sessionId],
  );
  return { logs, step, onLive };
}

/** Says each new step of a running call to screen readers (the log itself is silent). It
 * exists before any step, so the first one is read too. */
export function StepAnnouncer({ step }: { step: string }) {
  const t = useT();
  return (
    <div className="sr-only" aria-live="polite" data-testid="step-announcer">
      {step ? t("toolOutputStep", { step }) : ""}
    </div>
  );
}

/** The log under one call, when it has any lines. */
export function CallOutput({ callId }: { callId: string }) {
  const log = useContext(ToolOutputs)[callId];
  return log && log.lines.length > 0 ? <OutputLog log={log} /> : null;
}

export function OutputLog({ log }: { log: CallLog }) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  // New lines keep the newest in view, unless the person scrolled up to read.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [log]);
  const dropped = log.total - log.lines.length;
  return (
    <div
      ref={box}
      className="tool-output mono small"
      role="region"
      aria-label={t("toolOutputLabel")}
      aria-live="off"
      // Scrollable, so reachable by keyboard.
      tabIndex={0}
      onScroll={(e) => {
        const el = e.currentTarget;
        follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_PX;
      }}
    >
      {dropped > 0 && <div className="tool-output-dropped muted">{t("toolOutputDropped", { n: dropped })}</div>}
      {log.lines.map((l) =>
        l.kind === "step" ? (
          <div key={l.n} className="tool-output-step" data-kind="step">
            ▸ {l.line}
          </div>
        ) : l.kind === "held_back" ? (
          <div key={l.n} className="tool-output-held muted" data-kind="held_back">
            {t("toolOutputHeldBack", { n: l.heldBack ?? 0 })}
          </div>
        ) : (
          <div key={l.n} className="tool-output-line" data-kind="output">
            {l.line || "\u00a0"}
          </div>
        ),
      )}
    </div>
  );
}
