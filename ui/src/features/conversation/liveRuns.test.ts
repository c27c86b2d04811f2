// The live state of a session's runs as the event stream drives it.
import { describe, expect, it } from "vitest";
import { liveRuns, type LiveRuns } from "./liveRuns";
import type { WispEvent } from "../../types";

const base = { seq: 1, sessionId: "s1", runId: "r1", at: 0 };
const ev = (e: WispEvent, now = 1000) => ({ kind: "event" as const, event: e, now });
const error = { kind: "rate_limited" as const, params: {} };

describe("live runs", () => {
  it("opens a timed request at a step, streams its text and reasoning, and closes it once the calls are known", () => {
    let s: LiveRuns = {};
    s = liveRuns(s, ev({ ...base, type: "step_started", step: 2 }, 500));
    expect(s.r1).toEqual({ step: 2, text: "", thinking: false, requestSince: 500 });
    s = liveRuns(s, { kind: "delta", delta: { sessionId: "s1", runId: "r1", step: 2, reasoningBytes: 10 }, now: 600 });
    s = liveRuns(s, { kind: "delta", delta: { sessionId: "s1", runId: "r1", step: 2, text: "Hel" }, now: 700 });
    s = liveRuns(s, { kind: "delta", delta: { sessionId: "s1", runId: "r1", step: 2, text: "lo" }, now: 800 });
    expect(s.r1).toEqual({ step: 2, text: "Hello", thinking: true, requestSince: 500 });
    s = liveRuns(s, ev({ ...base, type: "tool_call_started", step: 2, callId: "c1", tool: "files_list", arguments: {} }));
    expect(s.r1).toEqual({ step: 2, text: "Hello", thinking: true, requestSince: undefined });
  });

  it("says a retry until output arrives, and starts the round's text afresh", () => {
    let s: LiveRuns = { r1: { step: 0, text: "partial", thinking: false, requestSince: 1 } };
    s = liveRuns(s, ev({ ...base, type: "model_retry", attempt: 2, error }, 900));
    expect(s.r1).toEqual({ step: 0, text: "", thinking: false, retry: { attempt: 2, error }, requestSince: 1 });
    s = liveRuns(s, { kind: "delta", delta: { sessionId: "s1", runId: "r1", step: 0, text: "ok" }, now: 950 });
    expect(s.r1).toEqual({ step: 0, text: "ok", thinking: false, requestSince: 1 });
  });

  it("keeps the round's timer running across retries instead of starting it again at each attempt", () => {
    let s = liveRuns({}, ev({ ...base, type: "step_started", step: 0 }, 1_000));
    s = liveRuns(s, ev({ ...base, type: "model_retry", attempt: 2, error }, 5_000));
    s = liveRuns(s, ev({ ...base, type: "model_retry", attempt: 3, error }, 9_000));
    expect(s.r1).toMatchObject({ retry: { attempt: 3 }, requestSince: 1_000 });
    // A retry with no round known (the stream joined late) starts counting when it arrives.
    expect(liveRuns({}, ev({ ...base, type: "model_retry", attempt: 2, error }, 7_000)).r1?.requestSince).toBe(7_000);
  });

  it("ends a round at its text and at the run's end; an ended run and another session leave nothing", () => {
    let s = liveRuns({}, ev({ ...base, type: "assistant_text", step: 1, text: "done" }));
    expect(s.r1).toEqual({ step: 1, text: "", thinking: false, requestSince: undefined });
    s = liveRuns(s, ev({ ...base, type: "run_finished", status: "completed", finalText: "done", error: null, usage: { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0, estimatedCost: null } }));
    expect(s.r1).toEqual({ step: 0, text: "", thinking: false, requestSince: undefined });
    expect(liveRuns(s, { kind: "ended", runId: "r1" })).toEqual({});
    expect(liveRuns(s, { kind: "clear" })).toEqual({});
  });

  it("leaves the state as it was for events the stored run shows, and for events of no run", () => {
    const s: LiveRuns = { r1: { step: 0, text: "x", thinking: false } };
    expect(liveRuns(s, ev({ ...base, type: "run_status", status: "awaiting_approval" }))).toBe(s);
    expect(liveRuns(s, ev({ ...base, type: "tool_call_finished", callId: "c1", status: "succeeded", result: "{}" }))).toBe(s);
    expect(liveRuns(s, ev({ ...base, runId: null, type: "step_started", step: 3 }))).toBe(s);
  });

  it("says while earlier runs are summarised, and a failed summary until the next round", () => {
    let s: LiveRuns = {};
    s = liveRuns(s, ev({ ...base, type: "step_started", step: 0 }, 500));
    s = liveRuns(s, ev({ ...base, type: "context_summary_started", step: 0, runs: 12 }, 600));
    expect(s.r1).toEqual({ step: 0, text: "", thinking: false, requestSince: 500, summarising: 12 });
    const usage = { promptTokens: 10, completionTokens: 2, reasoningTokens: 0, cacheHitTokens: 8, cacheMissTokens: 2, estimatedCost: null };
    const done = liveRuns(s, ev({ ...base, type: "context_summary_finished", step: 0, runs: 12, usage, error: null }, 700));
    expect(done.r1).toEqual({ step: 0, text: "", thinking: false, requestSince: 500 });
    const failed = liveRuns(s, ev({ ...base, type: "context_summary_finished", step: 0, runs: 12, usage, error }, 700));
    expect(failed.r1).toEqual({ step: 0, text: "", thinking: false, requestSince: 500, summaryFailed: error });
    const next = liveRuns(failed, ev({ ...base, type: "step_started", step: 1 }, 800));
    expect(next.r1).toEqual({ step: 1, text: "", thinking: false, requestSince: 800 });
  });
});
