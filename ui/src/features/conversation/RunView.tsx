// One run: the user's message, pending approvals (never inside a collapsed layer), the tool
// process (collapsed once the run completed), and the final answer as the main content.
import { Fragment, useEffect, useState } from "react";
import { AlertTriangle, CheckCircle2, ChevronDown, ChevronRight, CircleDashed, Copy, Eye, Loader2, Pencil, Play, RotateCcw, Undo2, XCircle } from "lucide-react";
import type { ContextSummary, Run, StepContext, ToolCall, Usage as UsageTotals } from "../../types";
import { useT, type Key, type T } from "../../i18n";
import { ApprovalCard, voidedByOf, type Outcome } from "../approvals/ApprovalCard";
import type { CurrentFile } from "../approvals/currentFile";
import { Markdown } from "./Markdown";
import { failureText } from "../settings/problem";
import { useToolName } from "../mcp/labels";
import { CallOutput } from "./ToolOutput";
import { ShownToYou } from "./ShownToYou";
import { Reveal, revealText } from "../../components/Reveal";
import { layoutJson } from "../../components/jsonLayout";
import { toolViews } from "../tools/registry";
import type { LiveState } from "./liveRuns";
import { RunUndos } from "../undo/RunUndos";
import type { UndoTarget } from "../undo/UndoDialog";

/** The current time, ticking every second while `on`. */
function useNow(on: boolean) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const h = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(h);
  }, [on]);
  return now;
}

/** How long a model request has been open, while it is. */
function Elapsed({ since }: { since: number }) {
  const t = useT();
  const now = useNow(true);
  return <span className="muted small elapsed">{t("elapsed", { s: Math.max(0, Math.floor((now - since) / 1000)) })}</span>;
}

interface Props {
  run: Run;
  live?: LiveState;
  onDecide: (approvalId: string, decision: "approve" | "reject", digest: string) => Promise<Outcome>;
  onPreview: (path: string, line?: number) => void;
  /** The file a pending write or replace would change, by approval ID (see currentFile.ts). */
  currentFile: (approvalId: string) => CurrentFile | undefined;
  /** The person looks at a card: its file is fetched again. */
  onLook: (approvalId: string) => void;
  /** Recovery; absent where a run cannot be started now. */
  actions?: RunActions;
  /** Opens the plan of an undo of the run's changes; absent while a run of the session is in
   * progress (the Host refuses an undo then). */
  onUndo?: (target: UndoTarget) => void;
}

export interface RunActions {
  /** Sends `text` as a new run (Retry, Continue). */
  send: (text: string) => void;
  /** Puts `text` into the message box for editing. */
  edit: (text: string) => void;
}

/** Copies text to the clipboard; says so for a moment. */
function CopyButton({ text, label }: { text: string; label: string }) {
  const t = useT();
  const [done, setDone] = useState(false);
  return (
    <button
      className="link small"
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        })
      }
    >
      <Copy size={13} aria-hidden /> {done ? t("copied") : label}
    </button>
  );
}

const RETRYABLE: Run["status"][] = ["failed", "cancelled", "budget_exhausted", "interrupted"];
/** Runs that stopped part-way through on their own (the step budget, Wisp closing or
 * crashing): what they did is kept, so the person may let them go on. */
const CONTINUABLE: Run["status"][] = ["budget_exhausted", "interrupted"];

/** The text of the step `call` was asked in, if it is the first pending call of that step. */
function wordsBefore(run: Run, call: ToolCall): string | null {
  const step = run.steps.find((s) => s.toolCalls.includes(call));
  const first = step?.toolCalls.find((c) => c.approval?.state === "pending");
  return step && first === call && step.text.trim() ? step.text : null;
}

export function RunView({ run, live, onDecide, onPreview, currentFile, onLook, actions, onUndo }: Props) {
  const t = useT();
  const calls = run.steps.flatMap((s) => s.toolCalls);
  const pending = calls.filter((c) => c.approval?.state === "pending");
  const processSteps = run.steps.filter((s) => s.toolCalls.length > 0);
  const partials = run.steps.filter((s) => s.partial && s.text);
  const active = run.status === "running" || run.status === "awaiting_approval";
  const [open, setOpen] = useState<boolean | null>(null);
  // Collapsed by default only when everything went well: a rejected or failed call is part of
  // what the person should see without digging.
  const successful = run.status === "completed" && calls.every((c) => c.status === "succeeded");
  const expanded = open ?? !successful;

  return (
    <article className="run" data-run-id={run.id} data-status={run.status}>
      <div className="user-msg">
        <span className="who">{t("you")}</span>
        <div className="bubble">{run.text}</div>
        <div className="msg-actions">
          <CopyButton text={run.text} label={t("copy")} />
          {actions && (
            <button className="link small" onClick={() => actions.edit(run.text)}>
              <Pencil size={13} aria-hidden /> {t("editResend")}
            </button>
          )}
        </div>
      </div>
      <div className="answer">
        {pending.map((c) => (
          <Fragment key={c.approval!.id}>
            {/* What the model said with the call, above its card (once per step). */}
            {wordsBefore(run, c) && (
              <div className="card-words">
                <span className="muted small">{t("modelWrote")}</span>
                <Markdown text={wordsBefore(run, c)!} />
              </div>
            )}
          <ApprovalCard
            request={{ approvalId: c.approval!.id, callId: c.callId, tool: c.tool, arguments: c.approval!.arguments, canonical: c.approval!.canonical, digest: c.approval!.digest, state: "pending", alternative: c.approval!.alternative ?? undefined }}
            currentFile={currentFile(c.approval!.id)}
            onLook={() => onLook(c.approval!.id)}
            onDecide={(d, digest) => onDecide(c.approval!.id, d, digest)}
          />
          </Fragment>
        ))}
        {run.summaries.map((s, i) => (
          <RunSummary key={i} summary={s} />
        ))}
        {processSteps.length > 0 && (
          <section className="process">
            <button className="process-toggle" aria-expanded={expanded} onClick={() => setOpen(!expanded)}>
              {expanded ? <ChevronDown size={16} aria-hidden /> : <ChevronRight size={16} aria-hidden />}
              {t("process")} <span className="muted">{t("steps", { n: processSteps.length, c: calls.length })}</span>
            </button>
            {expanded && (
              <ol className="steps">
                {processSteps.map((s) => (
                  <li key={s.index} className="step">
                    <div className="muted step-label">{t("step", { n: s.index + 1 })}</div>
                    {s.text && <Markdown text={s.text} />}
                    {s.toolCalls.map((c) => (
                      <div key={c.callId}>
                        <CallView call={c} onPreview={onPreview} onUndo={onUndo && !active ? () => onUndo({ runId: run.id, of: { callId: c.callId } }) : undefined} />
                        {c.approval && c.approval.state !== "pending" && (
                          // A decided card keeps showing what was asked and how it ended.
                          <ApprovalCard
                            request={{ approvalId: c.approval.id, callId: c.callId, tool: c.tool, arguments: c.approval.arguments, canonical: c.approval.canonical, digest: c.approval.digest, state: c.approval.state, alternative: c.approval.alternative ?? undefined }}
                            onDecide={async () => c.approval!.state}
                            callStatus={c.status}
                            voidedBy={voidedByOf(c.result)}
                          />
                        )}
                      </div>
                    ))}
                  </li>
                ))}
              </ol>
            )}
          </section>
        )}
        {run.steps.length === 0 && run.status === "completed" && run.finalText === null && (
          <p className="muted">{t("historical")}</p>
        )}
        {active && live?.retry && (
          <div className="status-line retry" role="status">
            <strong>{t("retrying", { n: live.retry.attempt })}</strong> <span>{failureText(t, live.retry.error)}</span>
          </div>
        )}
        {active && live?.summarising !== undefined && (
          <div className="status-line summarising" role="status">
            <Loader2 size={14} className="spin" aria-hidden /> {t("summarising", { n: live.summarising })}
          </div>
        )}
        {active && live?.summaryFailed && (
          <div className="status-line retry" role="status">
            <strong>{t("summaryFailed")}</strong> <span>{failureText(t, live.summaryFailed)}</span>
          </div>
        )}
        {active && live && (
          <div className="live" aria-live="polite">
            {live.text ? <Markdown text={live.text} /> : null}
            {!live.text && run.status === "running" ? (
              <span className="muted thinking">
                <Loader2 size={14} className="spin" aria-hidden /> {live.thinking ? t("thinking") : t("waitingModel")}
              </span>
            ) : null}
            {live.requestSince !== undefined && run.status === "running" ? <Elapsed since={live.requestSince} /> : null}
          </div>
        )}
        {active && !live && run.status === "running" && (
          <span className="muted thinking">
            <Loader2 size={14} className="spin" aria-hidden /> {t("working")}
          </span>
        )}
        {partials.map((s) => (
          // What had streamed when the round was cut off: kept, and said to be incomplete.
          <div key={s.index} className="partial" data-partial-step={s.index}>
            <div className="muted small">{t("partialAnswer")}</div>
            <Markdown text={s.text} />
          </div>
        ))}
        {run.finalText !== null && <Markdown text={run.finalText} />}
        <RunStatusLine run={run} />
        <RunUndos run={run} onUndo={active ? undefined : onUndo} />
        {(run.finalText || partials.length > 0 || (actions && RETRYABLE.includes(run.status)) || (onUndo && !active && run.undoable > 0)) && (
          <div className="msg-actions">
            {run.finalText ? <CopyButton text={run.finalText} label={t("copyAnswer")} /> : null}
            {!run.finalText && partials.length > 0 ? <CopyButton text={partials.map((s) => s.text).join("\n\n")} label={t("copyAnswer")} /> : null}
            {actions && RETRYABLE.includes(run.status) && (
              <button className="link small" onClick={() => actions.send(run.text)}>
                <RotateCcw size={13} aria-hidden /> {t("retry")}
              </button>
            )}
            {actions && CONTINUABLE.includes(run.status) && (
              <button className="link small" onClick={() => actions.send(t("continueMessage"))}>
                <Play size={13} aria-hidden /> {t("continue")}
              </button>
            )}
            {onUndo && !active && run.undoable > 0 && (
              <button className="link small" data-testid="undo-run" onClick={() => onUndo({ runId: run.id, of: {} })}>
                <Undo2 size={13} aria-hidden /> {t("undoRun")}
              </button>
            )}
          </div>
        )}
      </div>
    </article>
  );
}

function RunStatusLine({ run }: { run: Run }) {
  const t = useT();
  if (run.status === "completed" || run.status === "running") {
    return run.status === "completed" && run.usage.promptTokens > 0 ? <Usage run={run} /> : null;
  }
  const help: Partial<Record<Run["status"], Key>> = {
    budget_exhausted: "budgetHelp",
    interrupted: "interruptedHelp",
    cancelled: "cancelledHelp",
  };
  const h = help[run.status];
  return (
    <div className={`status-line status-${run.status}`} role={run.status === "failed" ? "alert" : undefined}>
      <strong>{t(`status_${run.status}` as Key)}</strong>
      {/* A run's own error says what happened (the steps of its budget, whether Wisp was
          closed or crashed); the general help only for a run stored without one. */}
      {run.error ? <span> {failureText(t, run.error)}</span> : h ? <span> {t(h)}</span> : null}
      {run.usage.promptTokens > 0 && <Usage run={run} />}
    </div>
  );
}

/** A session's estimated cost, saying when some runs had no estimate (then it is a lower bound). */
export function sessionCostText(t: T, u: UsageTotals | undefined): string | null {
  if (!u) return null;
  const n = u.runsWithoutEstimate ?? 0;
  const priced = typeof u.estimatedCost === "number";
  if (priced && n === 0) return t("sessionCost", { v: u.estimatedCost!.toFixed(6), c: "USD" });
  if (priced) return t("sessionCostAtLeast", { v: u.estimatedCost!.toFixed(6), c: "USD", n });
  if (n > 0) return t("sessionCostUnknown", { n });
  return null;
}

/** What share of the input tokens the provider's cache served ("cached: 92%"), rounded down so
 * a share short of all never reads 100%; null before any input. */
export function cachedShareText(t: T, u: UsageTotals | undefined): string | null {
  if (!u || u.promptTokens === 0) return null;
  return t("cachedShare", { s: Math.floor((u.cacheHitTokens * 100) / u.promptTokens) });
}

/** How much of the model's context window the request took ("context: 12% of 1,048,576 tokens"),
 * rounded up so a request near the window never looks further from it than it is. */
export function contextUseText(t: T, c: StepContext): string | null {
  if (c.window === 0 || c.promptTokens === 0) return null;
  return t("contextUse", { s: Math.ceil((c.promptTokens * 100) / c.window), w: c.window.toLocaleString("en-US") });
}

/** What a run's requests left out to fit the window: the most any of its rounds left out. */
export function omittedText(t: T, run: Run): string | null {
  const n = Math.max(0, ...run.steps.map((s) => s.context?.omittedResults ?? 0));
  return n > 0 ? t("contextOmitted", { n }) : null;
}

/** Which of the session's earlier runs the run's last request carried in the model's summary,
 * with tool results left out, or whole; null when it carried them all whole. */
export function outlineText(t: T, c: StepContext | null): string | null {
  if (!c || (c.summarisedRuns === 0 && c.trimmedRuns === 0)) return null;
  return t("contextOutline", { s: c.summarisedRuns, p: c.trimmedRuns, w: c.wholeRuns });
}

/** The model's summary of earlier runs made during a run: labelled as such, with its cost. */
function RunSummary({ summary }: { summary: ContextSummary }) {
  const t = useT();
  const u = summary.usage;
  return (
    <details className="context-summary" data-testid="context-summary">
      <summary>
        {t("summaryTitle", { n: summary.runs })}
        <span className="muted small">
          {" "}
          · {t("usage", { p: u.promptTokens, h: u.cacheHitTokens, m: u.cacheMissTokens, c: u.completionTokens, r: u.reasoningTokens })}
          {typeof u.estimatedCost === "number" && <> · {t("cost", { v: u.estimatedCost.toFixed(6), c: "USD" })}</>}
        </span>
      </summary>
      <p className="muted small">{t("summaryHelp", { s: summary.step + 1 })}</p>
      <Markdown text={summary.text} />
    </details>
  );
}

/** The context of the newest request among `runs` (oldest first) that recorded one. */
export function lastContextOf(runs: readonly Run[]): StepContext | null {
  for (let i = runs.length - 1; i >= 0; i--) {
    const steps = runs[i]!.steps;
    for (let j = steps.length - 1; j >= 0; j--) {
      const c = steps[j]!.context;
      if (c) return c;
    }
  }
  return null;
}

/** The header's notice once a session's estimated cost has passed the spending warning. */
export function spendingText(t: T, u: UsageTotals | undefined, warning: number | null | undefined, currency: string): string | null {
  if (!u || typeof warning !== "number" || typeof u.estimatedCost !== "number" || u.estimatedCost < warning) return null;
  return t("spendingPassed", { v: String(warning), c: currency });
}

/** A session's cost and cache share, as its header shows them; null when there is neither. */
export function sessionUsageText(t: T, u: UsageTotals | undefined): string | null {
  const parts = [sessionCostText(t, u), cachedShareText(t, u)].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(" · ") : null;
}

function Usage({ run }: { run: Run }) {
  const t = useT();
  const u = run.usage;
  // The run's last request: how full the window was when it ended.
  const last = run.steps.reduce<StepContext | null>((found, s) => s.context ?? found, null);
  const use = last ? contextUseText(t, last) : null;
  const omitted = omittedText(t, run);
  const outline = outlineText(t, last);
  return (
    <div className="usage muted">
      {run.model && (
        <span className="run-model">
          {t(`provider_${run.model.provider}` as Key)} · {run.model.name} ·{" "}
        </span>
      )}
      {t("usage", { p: u.promptTokens, h: u.cacheHitTokens, m: u.cacheMissTokens, c: u.completionTokens, r: u.reasoningTokens })}
      <span className="cached-share"> · {cachedShareText(t, u)}</span>
      {use && <span className="context-use"> · {use}</span>}
      {typeof u.estimatedCost === "number" && <span className="cost"> · {t("cost", { v: u.estimatedCost.toFixed(6), c: "USD" })}</span>}
      {omitted && (
        <div className="context-omitted" data-testid="context-omitted">
          {omitted}
        </div>
      )}
      {outline && (
        <div className="context-outline" data-testid="context-outline">
          {outline}
        </div>
      )}
    </div>
  );
}

const icons = {
  succeeded: <CheckCircle2 size={15} className="ok" aria-hidden />,
  failed: <XCircle size={15} className="bad" aria-hidden />,
  rejected: <XCircle size={15} className="bad" aria-hidden />,
  cancelled: <XCircle size={15} className="muted" aria-hidden />,
  running: <Loader2 size={15} className="spin" aria-hidden />,
  awaiting_approval: <AlertTriangle size={15} className="warn" aria-hidden />,
  pending: <CircleDashed size={15} className="muted" aria-hidden />,
};

/** A call's id without its run's: `s1-c0` is round 1, call 0 (the Host's ids are
 * `RUN-sSTEP-cINDEX`, unique across sessions; the row is already inside its run). */
export function shortCallId(callId: string): string {
  return /-(s\d+-c\d+)$/.exec(callId)?.[1] ?? callId;
}

/** What a call was about, for its collapsed row: the path, the move, the address, the query
 * or the package its arguments name (an MCP tool's server and name are its title already). */
export function subjectOf(args: unknown): string | null {
  if (!args || typeof args !== "object") return null;
  const a = args as Record<string, unknown>;
  const s = (k: string) => (typeof a[k] === "string" && a[k] !== "" ? (a[k] as string) : null);
  if (s("source") && s("target")) return `${s("source")} → ${s("target")}`;
  const first = s("path") ?? s("url") ?? s("tabId");
  const query = s("query");
  if (first && query) return `${first} · “${query}”`;
  if (first) return first;
  if (query) return `“${query}”`;
  if (s("package")) return s("version") ? `${s("package")}@${s("version")}` : s("package");
  return s("command") ?? s("name");
}

/** A failed call's error in one line, from its result (`{"error": …}` or the text itself). */
export function errorLine(result: string | null): string | null {
  if (!result) return null;
  let text = result;
  try {
    const v = JSON.parse(result) as unknown;
    if (v && typeof v === "object" && typeof (v as { error?: unknown }).error === "string") text = (v as { error: string }).error;
  } catch {
    // Not JSON: the text is the error.
  }
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.trim() || null;
}

function CallView({ call, onPreview, onUndo }: { call: ToolCall; onPreview: (path: string, line?: number) => void; onUndo?: () => void }) {
  const t = useT();
  const { shown } = useToolName(call.tool);
  const [open, setOpen] = useState(false);
  const views = toolViews(call.tool);
  const path = call.status === "succeeded" ? views.previewPath?.(call.arguments) : undefined;
  const subject = subjectOf(call.arguments);
  const error = call.status === "failed" ? errorLine(call.result) : null;
  return (
    <div className={`call call-${call.status}`} data-call-id={call.callId}>
      <div className="call-head">
        <button className="call-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />}
          {icons[call.status]}
          <span className="tool" title={shown === call.tool ? undefined : call.tool}>
            <Reveal text={shown} />
          </span>
          {subject && (
            <span className="call-subject mono small" title={revealText(subject)}>
              <Reveal text={subject} />
            </span>
          )}
          <span className={`badge badge-${call.status}`}>{t(`call_${call.status}` as Key)}</span>
          <span className="muted mono small call-id" title={call.callId}>
            {shortCallId(call.callId)}
          </span>
        </button>
        {path !== undefined && (
          <button className="link" onClick={() => onPreview(path)}>
            <Eye size={14} aria-hidden /> {t("openPreview")}
          </button>
        )}
        {onUndo && views.undoable && call.status === "succeeded" && call.approval?.state === "approved" && (
          <button className="link" onClick={onUndo}>
            <Undo2 size={14} aria-hidden /> {t("undoCall")}
          </button>
        )}
      </div>
      {error && (
        <p className="call-error-line" title={error}>
          <Reveal text={error} />
        </p>
      )}
      <CancelNote call={call} />
      {views.Result && call.status === "succeeded" && call.result !== null && <views.Result result={call.result} onPreview={onPreview} />}
      <CallOutput callId={call.callId} />
      {call.shown && <ShownToYou text={call.shown} />}
      {open && (
        <div className="call-body">
          {/* The model's text and the result as they were sent, laid out without reparsing a
              number, hidden characters marked. */}
          {/* Focusable, so a long text scrolls from the keyboard. */}
          <div className="muted call-part">
            {t("arguments")} <CopyButton text={call.argumentsText} label={t("copyArguments")} />
          </div>
          <pre className="call-arguments" tabIndex={0} aria-label={t("arguments")}>
            <Reveal text={layoutJson(call.argumentsText)} mode="text" />
          </pre>
          {call.result !== null && (
            <>
              <div className="muted call-part">
                {t("result")} <CopyButton text={call.result} label={t("copyResult")} />
              </div>
              <pre className="call-result" tabIndex={0} aria-label={t("result")}>
                <Reveal text={layoutJson(call.result)} mode="text" />
              </pre>
            </>
          )}
        </div>
      )}
    </div>
  );
}

/** What a cancel did to a call, from its stored result: a call that finished as the cancel
 * arrived keeps its own status and says so; one the cancel stopped says what it had done. */
function CancelNote({ call }: { call: ToolCall }) {
  const t = useT();
  if (call.result === null || !call.result.includes("cancelNote")) return null;
  let out: { cancelNote?: unknown; error?: unknown };
  try {
    out = JSON.parse(call.result) as typeof out;
  } catch {
    return null;
  }
  if (typeof out.cancelNote !== "string") return null;
  if (call.status === "cancelled") {
    return (
      <div className="cancel-note muted small" data-cancel-note="stopped">
        {t("callStoppedByCancel")} {typeof out.error === "string" ? <Reveal text={out.error} mode="text" /> : null}
      </div>
    );
  }
  return (
    <div className="cancel-note muted small" data-cancel-note="finished">
      {t("callFinishedDespiteCancel")}
    </div>
  );
}
