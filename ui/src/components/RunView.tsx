// One run: the user's message, pending approvals (never inside a collapsed layer), the tool
// process (collapsed once the run completed), and the final answer as the main content.
import { useState } from "react";
import { AlertTriangle, CheckCircle2, ChevronDown, ChevronRight, CircleDashed, Eye, Loader2, XCircle } from "lucide-react";
import type { Run, ToolCall } from "../types";
import { useT, type Key } from "../i18n";
import { ApprovalCard, type Outcome } from "./ApprovalCard";
import { Markdown } from "./Markdown";
import { runErrorText } from "../features/settings/problem";

export interface LiveState {
  step: number;
  text: string;
  thinking: boolean;
  /** The model request failed and is being tried again (tools are not re-run). */
  retry?: { attempt: number; message: string };
}

interface Props {
  run: Run;
  live?: LiveState;
  onDecide: (approvalId: string, decision: "approve" | "reject", digest: string) => Promise<Outcome>;
  onPreview: (path: string) => void;
  /** The text of the file a pending write would replace, by approval ID (see ApprovalCard). */
  currentText: (approvalId: string) => string | null | undefined;
}

export function RunView({ run, live, onDecide, onPreview, currentText }: Props) {
  const t = useT();
  const calls = run.steps.flatMap((s) => s.toolCalls);
  const pending = calls.filter((c) => c.approval?.state === "pending");
  const processSteps = run.steps.filter((s) => s.toolCalls.length > 0);
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
      </div>
      <div className="answer">
        {pending.map((c) => (
          <ApprovalCard
            key={c.approval!.id}
            autoFocus
            request={{ approvalId: c.approval!.id, tool: c.tool, arguments: c.approval!.arguments, digest: c.approval!.digest, state: "pending" }}
            currentText={c.tool === "files_write" ? currentText(c.approval!.id) : undefined}
            onDecide={(d) => onDecide(c.approval!.id, d, c.approval!.digest)}
          />
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
                        <CallView call={c} onPreview={onPreview} />
                        {c.approval && c.approval.state !== "pending" && (
                          // A decided card keeps showing what was asked and how it ended.
                          <ApprovalCard
                            request={{ approvalId: c.approval.id, tool: c.tool, arguments: c.approval.arguments, digest: c.approval.digest, state: c.approval.state }}
                            onDecide={async () => c.approval!.state}
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
            <strong>{t("retrying", { n: live.retry.attempt })}</strong> <span>{live.retry.message}</span>
          </div>
        )}
        {active && live && (
          <div className="live" aria-live="polite">
            {live.text ? <Markdown text={live.text} /> : null}
            {live.thinking && !live.text ? (
              <span className="muted thinking">
                <Loader2 size={14} className="spin" aria-hidden /> {t("thinking")}
              </span>
            ) : null}
          </div>
        )}
        {active && !live && run.status === "running" && (
          <span className="muted thinking">
            <Loader2 size={14} className="spin" aria-hidden /> {t("working")}
          </span>
        )}
        {run.finalText !== null && <Markdown text={run.finalText} />}
        <RunStatusLine run={run} />
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
      {run.status === "failed" && run.error ? <span> {runErrorText(t, run.error)}</span> : h ? <span> {t(h)}</span> : null}
      {run.usage.promptTokens > 0 && <Usage run={run} />}
    </div>
  );
}

function Usage({ run }: { run: Run }) {
  const t = useT();
  const u = run.usage;
  return (
    <div className="usage muted">
      {run.model && (
        <span className="run-model">
          {t(`provider_${run.model.provider}` as Key)} · {run.model.name} ·{" "}
        </span>
      )}
      {t("usage", { p: u.promptTokens, h: u.cacheHitTokens, m: u.cacheMissTokens, c: u.completionTokens, r: u.reasoningTokens })}
      {typeof u.estimatedCost === "number" && <span className="cost"> · {t("cost", { v: u.estimatedCost.toFixed(6), c: "USD" })}</span>}
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

function CallView({ call, onPreview }: { call: ToolCall; onPreview: (path: string) => void }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const path = typeof call.arguments === "object" && call.arguments ? (call.arguments as { path?: unknown }).path : undefined;
  const previewable = (call.tool === "files_read" || call.tool === "files_write") && call.status === "succeeded" && typeof path === "string";
  return (
    <div className={`call call-${call.status}`} data-call-id={call.callId}>
      <div className="call-head">
        <button className="call-toggle" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={`${call.tool} ${call.callId}`}>
          {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />}
          {icons[call.status]}
          <span className="tool">{call.tool}</span>
          <span className="muted mono small">{call.callId}</span>
          <span className={`badge badge-${call.status}`}>{t(`call_${call.status}` as Key)}</span>
        </button>
        {previewable && (
          <button className="link" onClick={() => onPreview(path)}>
            <Eye size={14} aria-hidden /> {t("openPreview")}
          </button>
        )}
      </div>
      {open && (
        <div className="call-body">
          <div className="muted">{t("arguments")}</div>
          <pre>{typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments, null, 2)}</pre>
          {call.result !== null && (
            <>
              <div className="muted">{t("result")}</div>
              <pre>{pretty(call.result)}</pre>
            </>
          )}
        </div>
      )}
    </div>
  );
}

function pretty(s: string) {
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}
