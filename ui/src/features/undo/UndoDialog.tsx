// The plan of an undo, shown like an approval card before anything happens: each recorded change
// (newest first, the order they are undone) with what undoing it does — a restored file as a diff
// from what is there now to what comes back — or why it is skipped; the calls no undo can take
// back; and the exact text the digest covers, hidden characters marked. Only the person's click on
// the confirm button undoes, quoting the digest of the plan shown: a plan that changed meanwhile
// is refused by the Host, and the dialog reads it again.
import { useEffect, useState } from "react";
import { AlertTriangle, Undo2 } from "lucide-react";
import { ApiError, type Api, type UndoOf } from "../../api";
import { Shell } from "../../components/Dialogs";
import { hasHidden, Reveal } from "../../components/Reveal";
import { useT, type Key, type T } from "../../i18n";
import type { UndoItem, UndoPlan, UndoResult } from "../../types";
import { Diff } from "../approvals/Diff";
import { useToolName } from "../mcp/labels";

/** What the dialog is about: a run, and whose changes in it. */
export interface UndoTarget {
  runId: string;
  of: UndoOf;
}

interface Props {
  api: Api;
  target: UndoTarget | null;
  onClose: () => void;
  /** The undo ran: the run is read again. */
  onDone: (runId: string) => void;
}

/** Why an item is not undone, in the person's words. */
export function skipText(t: T, item: UndoItem): string | null {
  return item.skip ? t(`undoSkip_${item.skip}` as Key) : null;
}

function ToolName({ tool }: { tool: string }) {
  const { shown } = useToolName(tool);
  return <Reveal text={shown} />;
}

function Item({ item, inPlan }: { item: UndoItem; inPlan: boolean }) {
  const t = useT();
  const skip = skipText(t, item);
  return (
    <li className={skip ? "undo-item undo-skipped" : "undo-item"} data-undo-change={item.change} data-action={item.action} data-skip={item.skip ?? undefined}>
      <div>
        <strong>{t(`undoVerb_${item.action}` as Key)}</strong>{" "}
        <span className="mono">
          <Reveal text={item.path} />
        </span>
        {item.to != null && (
          <>
            {" "}
            {t("undoTo")}{" "}
            <span className="mono">
              <Reveal text={item.to} />
            </span>
          </>
        )}
        <span className="muted small">
          {" "}
          · <ToolName tool={item.tool} />
        </span>
      </div>
      {skip && (
        <div className="undo-skip small" role="note">
          <AlertTriangle size={13} aria-hidden /> {skip}
          {item.detail && (
            <span className="muted" title={item.detail}>
              {" "}
              — <Reveal text={item.detail} mode="text" />
            </span>
          )}
        </div>
      )}
      {inPlan && !skip && item.action === "restore" && (
        item.now != null && item.restored != null ? (
          <Diff before={item.now} after={item.restored} />
        ) : (
          <p className="muted small">{t("undoNoDiff")}</p>
        )
      )}
    </li>
  );
}

export function UndoDialog({ api, target, onClose, onDone }: Props) {
  const t = useT();
  const [plan, setPlan] = useState<UndoPlan | null>(null);
  const [result, setResult] = useState<UndoResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [reads, setReads] = useState(0);
  const runId = target?.runId;
  const callId = target?.of.callId;
  const undoId = target?.of.undoId;
  useEffect(() => {
    setPlan(null);
    setResult(null);
    setError(null);
    if (!runId) return;
    let live = true;
    api
      .undoPlan(runId, { callId, undoId })
      .then((p) => live && setPlan(p))
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [api, runId, callId, undoId, reads]);

  const ready = plan ? plan.items.filter((i) => !i.skip) : [];
  const confirm = () => {
    if (!target || !plan) return;
    setBusy(true);
    setError(null);
    api
      .undo(target.runId, plan.digest, target.of)
      .then((r) => {
        setResult(r);
        onDone(target.runId);
      })
      .catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 409) {
          // What it would do changed (a file was edited meanwhile): show the plan as it is now.
          setError(t("undoChanged"));
          setReads((n) => n + 1);
        } else {
          setError(e instanceof Error ? e.message : String(e));
        }
      })
      .finally(() => setBusy(false));
  };
  const title = undoId ? t("undoUndoTitle") : callId ? t("undoCallTitle") : t("undoRunTitle");
  const undone = result ? result.items.filter((i) => !i.skip).length : 0;
  return (
    <Shell open={target !== null} onOpenChange={(o) => !o && onClose()} title={title} wide>
      <div className="undo-plan" data-testid="undo-plan">
        {error && (
          <p className="error small" role="alert">
            {error}
          </p>
        )}
        {!plan && !error && <p className="muted">{t("undoReading")}</p>}
        {result ? (
          <>
            <p role="status" data-testid="undo-result">
              {t("undoDone", { n: undone, m: result.items.length })}
            </p>
            <ol className="undo-items">
              {result.items.map((i) => (
                <Item key={i.change} item={i} inPlan={false} />
              ))}
            </ol>
          </>
        ) : (
          plan && (
            <>
              {plan.items.length === 0 ? (
                <p className="muted">{t("undoNothing")}</p>
              ) : (
                <>
                  <p className="muted small">{t("undoPlanHelp")}</p>
                  <ol className="undo-items">
                    {plan.items.map((i) => (
                      <Item key={i.change} item={i} inPlan />
                    ))}
                  </ol>
                </>
              )}
              {plan.notUndoable.length > 0 && (
                <div className="undo-cannot" role="note">
                  <p className="small">{t("undoCannot")}</p>
                  <ul>
                    {plan.notUndoable.map((c) => (
                      <li key={c.callId} className="mono small">
                        <ToolName tool={c.tool} />
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              {plan.items.length > 0 && (
                <details className="undo-exact">
                  <summary className="small">{t("undoExact")}</summary>
                  {hasHidden(plan.canonical, "name") && <p className="hidden-warning small">{t("hiddenChars")}</p>}
                  <pre className="canonical" tabIndex={0}>
                    <Reveal text={plan.canonical} mode="name" />
                  </pre>
                  <div className="muted mono small">sha256 {plan.digest}</div>
                </details>
              )}
            </>
          )
        )}
      </div>
      {/* A direct child of the dialog: it stays in view while a long plan scrolls. */}
      <div className="dialog-buttons">
          <button type="button" onClick={onClose}>
            {result ? t("dialogClose") : t("cancel")}
          </button>
          {!result && plan && plan.items.length > 0 && (
            <button type="button" className="primary" data-testid="undo-confirm" disabled={busy || ready.length === 0} onClick={confirm}>
              <Undo2 size={15} aria-hidden /> {t("undoConfirm", { n: ready.length })}
            </button>
          )}
      </div>
    </Shell>
  );
}
