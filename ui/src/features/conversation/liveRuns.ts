// What the event stream says about the runs of the shown session while they go, before (and
// besides) the stored run the Host answers with: the streaming text of the open model round,
// whether the model is reasoning, a retry notice, and since when a model request is open. A
// reducer over the stream's events, so every event kind is decided in one exhaustive switch.
import type { Delta, RunError, WispEvent } from "../../types";

export interface LiveState {
  step: number;
  text: string;
  thinking: boolean;
  /** The model request failed and is being tried again (tools are not re-run). */
  retry?: { attempt: number; error: RunError };
  /** When the open model request started (its first attempt), in ms; absent when none is open. */
  requestSince?: number;
  /** The model is summarising this many earlier runs before the round's request. */
  summarising?: number;
  /** The summary failed; the round's request goes without it. */
  summaryFailed?: RunError;
}

/** Live state by run ID. */
export type LiveRuns = Readonly<Record<string, LiveState>>;

export type LiveAction =
  /** A stored event of the session; `now` is when it arrived. */
  | { kind: "event"; event: WispEvent; now: number }
  /** A piece of a streaming model round. */
  | { kind: "delta"; delta: Delta; now: number }
  /** The run's stored state says it ended: nothing of it streams any more. */
  | { kind: "ended"; runId: string }
  /** Another session is shown. */
  | { kind: "clear" };

export function liveRuns(state: LiveRuns, action: LiveAction): LiveRuns {
  switch (action.kind) {
    case "clear":
      return {};
    case "ended": {
      if (!(action.runId in state)) return state;
      const { [action.runId]: _gone, ...rest } = state;
      return rest;
    }
    case "delta": {
      const d = action.delta;
      const prev = state[d.runId];
      const same = prev && prev.step === d.step;
      return {
        ...state,
        // Output ends a retry notice; the request stays open (and timed) until it ends.
        [d.runId]: {
          step: d.step,
          text: (same ? prev.text : "") + (d.text ?? ""),
          thinking: (same && prev.thinking) || (d.reasoningBytes ?? 0) > 0,
          requestSince: same ? prev.requestSince : action.now,
        },
      };
    }
    case "event":
      return onEvent(state, action.event, action.now);
  }
}

function onEvent(state: LiveRuns, e: WispEvent, now: number): LiveRuns {
  const runId = e.runId;
  if (!runId) return state;
  // A round's text starts afresh; only `step_started` opens a model request.
  const newRound = (step: number, requestSince: number | undefined): LiveRuns => ({ ...state, [runId]: { step, text: "", thinking: false, requestSince } });
  switch (e.type) {
    case "step_started":
      return newRound(e.step, now);
    case "assistant_text":
      return newRound(e.step, undefined);
    case "run_finished":
      return newRound(0, undefined);
    case "tool_call_started": {
      // The model's answer is complete once its calls are known: no request is open.
      const prev = state[runId];
      return prev ? { ...state, [runId]: { ...prev, requestSince: undefined } } : state;
    }
    case "model_retry":
      return {
        ...state,
        [runId]: {
          ...(state[runId] ?? { step: 0, text: "", thinking: false }),
          text: "",
          retry: { attempt: e.attempt, error: e.error },
          // The person waits for the round, not for one attempt: the timer goes on counting
          // from the round's first request while the attempt number climbs.
          requestSince: state[runId]?.requestSince ?? now,
        },
      };
    case "context_summary_started":
      return { ...state, [runId]: { ...(state[runId] ?? { step: e.step, text: "", thinking: false, requestSince: now }), summarising: e.runs, summaryFailed: undefined } };
    case "context_summary_finished": {
      const { summarising: _done, ...prev } = state[runId] ?? { step: e.step, text: "", thinking: false };
      // A stored summary shows in the run; a failed one only until the round goes on.
      return { ...state, [runId]: e.error ? { ...prev, summaryFailed: e.error } : prev };
    }
    case "run_started":
    case "approval_requested":
    case "approval_resolved":
    case "tool_call_finished":
    case "run_status":
    case "run_undone":
      // Shown by the stored run, which the workbench reads again on every event.
      return state;
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}
