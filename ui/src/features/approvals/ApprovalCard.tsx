// One card per pending call, with the complete arguments that will execute: the exact canonical
// text the digest covers (never a re-serialisation of a parsed copy), and friendly fields that
// agree with it. Hidden and direction-changing characters are shown marked everywhere on the
// card (components/Reveal.tsx), and the card says so when there are any. Answered once:
// afterwards it shows the outcome and never offers the buttons again. A card never takes the
// focus: it scrolls into view and the workbench announces it, and only a person who moved to it
// (Tab or click) can answer it with A or R (see keys.ts).
import { useEffect, useRef, useState } from "react";
import { Check, ChevronDown, ChevronRight, ShieldAlert, X } from "lucide-react";
import type { ApprovalState, CallStatus } from "../../types";
import { useT } from "../../i18n";
import { useToolName, useToolOrigin } from "../mcp/labels";
import { Reveal, hasHidden, revealText, type RevealMode } from "../../components/Reveal";
import { bindingOf, type CurrentFile } from "./binding";
import { toolViews } from "../tools/registry";
import { decisionOf, focusCameFromTab, isTextField, trackFocusIntent, type Decision } from "./keys";
import { MESSAGE_BOX_ID } from "../conversation/Composer";
import { rawMembers, rawString } from "./rawJson";

export interface ApprovalRequest {
  approvalId: string;
  /** The call it is asked for, when known (shown under the card's details). */
  callId?: string;
  tool: string;
  arguments: unknown;
  /** The exact text whose SHA-256 is `digest`: what the card shows as sent. */
  canonical: string;
  digest: string;
  state: ApprovalState;
  /** A second way to run the call that the person may choose on the card instead (a skill
   * script with full access): exactly what runs then, with its own digest. */
  alternative?: ApprovalOption;
}

/** One way to run a call, as the Host offers it: the canonical text its digest covers. */
export interface ApprovalOption {
  arguments: unknown;
  canonical: string;
  digest: string;
}

export type Outcome = ApprovalState | "stale";

interface Props {
  request: ApprovalRequest;
  /** The file a write or replace would change, as the Host's preview showed it (see
   * currentFile.ts); `undefined` while not fetched. The card diffs against it only when its
   * digest is the one the approval is bound to. */
  currentFile?: CurrentFile;
  /** The person looks at the pending card (pointer or focus): fetch its file again. */
  onLook?: () => void;
  /** The person's answer, quoting the digest of the option the card showed. */
  onDecide: (decision: Decision, digest: string) => Promise<Outcome>;
  /** How the approved call ended, for a decided card: an approval the execution then refused
   * (a file changed since) or that failed is not titled as if it had been done. */
  callStatus?: CallStatus;
  /** What made a void card void, when its call's result says (`void`). */
  voidedBy?: VoidedBy;
}

/** What voided a pending approval, as the Host records it in the call's result. */
export type VoidedBy = "changed" | "revoked" | "withdrawn";

/** The `void` of a call's result, when it names one of the reasons. */
export function voidedByOf(result: string | null | undefined): VoidedBy | undefined {
  if (!result) return undefined;
  try {
    const v = (JSON.parse(result) as { void?: unknown }).void;
    return v === "changed" || v === "revoked" || v === "withdrawn" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Arguments shown as multi-line content: newlines and tabs there are layout. */
const CONTENT_KEYS = ["content", "oldText", "newText", "impact"];

/** Whether anything the card shows holds a character it marks: the exact text, and for the
 * tools with friendly fields every string among the arguments (a newline in a path is escaped
 * in the JSON text but marked in the path field). */
export function cardHasHidden(tool: string, args: unknown, canonical: string): boolean {
  if (hasHidden(canonical, "name")) return true;
  if (!toolViews(tool).Details) return false;
  const walk = (v: unknown, mode: RevealMode): boolean =>
    typeof v === "string"
      ? hasHidden(v, mode)
      : Array.isArray(v)
        ? v.some((x) => walk(x, mode))
        : typeof v === "object" && v !== null
          ? Object.entries(v).some(([k, x]) => walk(x, CONTENT_KEYS.includes(k) ? "text" : "name"))
          : false;
  return walk(args, "name");
}

/** Shows a new card where the person looks: whole when it fits the scrolling list, else from
 * its title (scrolling to its nearest edge would show the buttons and hide what is asked). */
function showTop(el: HTMLElement) {
  let scroller: HTMLElement | null = el.parentElement;
  while (scroller && !/(auto|scroll)/.test(getComputedStyle(scroller).overflowY)) scroller = scroller.parentElement;
  const room = scroller?.clientHeight ?? el.ownerDocument.defaultView?.innerHeight ?? 0;
  el.scrollIntoView?.({ block: el.getBoundingClientRect().height > room ? "start" : "nearest" });
}

export function ApprovalCard({ request, currentFile, onLook, onDecide, callStatus, voidedBy }: Props) {
  const t = useT();
  const [outcome, setOutcome] = useState<Outcome>(request.state);
  const [busy, setBusy] = useState(false);
  // Digest and IDs, shown on request.
  const [meta, setMeta] = useState(false);
  const card = useRef<HTMLDivElement>(null);
  // True while the card has a focus the person gave it (Tab or a click), see keys.ts.
  const deliberate = useRef(false);
  // A pointer press on the card, between pointer down and up (focus happens on down).
  const pressed = useRef(false);
  useEffect(() => setOutcome((o) => (o === "stale" ? o : request.state)), [request.state]);
  useEffect(() => trackFocusIntent(card.current?.ownerDocument), []);
  // Which of the Host's options the card shows, and so approves: the first unless the person
  // chose the other here. Once the Host has the decision, `request` is what ran.
  const [chosen, setChosen] = useState<"first" | "alternative">("first");
  const shows: ApprovalOption = chosen === "alternative" && request.state === "pending" && request.alternative ? request.alternative : request;
  const args = (shows.arguments ?? {}) as Record<string, unknown>;
  const open = outcome === "pending";
  // A new question is shown where the person looks, without moving their focus.
  const asked = request.state === "pending";
  useEffect(() => {
    if (asked && card.current) showTop(card.current);
  }, [asked]);

  // Answered by the person here: once the answer shows, the outcome stays in view and the focus
  // (on the card or on a button that is gone now) goes back to the message box. Never to the
  // next card: a focus the program gives is no deliberate act (keys.ts), so A and R would not
  // answer it, and chaining answers by key must not be possible.
  const answered = useRef(false);
  useEffect(() => {
    if (!answered.current || outcome === "pending") return;
    answered.current = false;
    const el = card.current;
    if (!el) return;
    const focus = el.ownerDocument.activeElement;
    if (!focus || focus === el.ownerDocument.body || el.contains(focus)) {
      el.ownerDocument.getElementById(MESSAGE_BOX_ID)?.focus({ preventScroll: true });
    }
    el.scrollIntoView?.({ block: "nearest" });
  }, [outcome]);

  const decide = async (d: Decision) => {
    if (!open || busy) return;
    setBusy(true);
    try {
      const o = await onDecide(d, shows.digest);
      answered.current = true;
      setOutcome(o);
    } finally {
      setBusy(false);
    }
  };

  // An answered card is titled by what happened to what was asked.
  // An MCP tool goes by its server's and its own name (UI-08), the model's name in the tooltip.
  const { shown, label } = useToolName(request.tool);
  const origin = useToolOrigin(request.tool);
  const views = toolViews(request.tool);
  const what = views.action?.(request.tool, args, t) ?? revealText(shown);
  const hidden = cardHasHidden(request.tool, args, shows.canonical);
  // Known to be stale (its file differs from the one it is bound to): approving would only be
  // refused, so Reject is the main action.
  const stale = open && views.boundDigest !== undefined && bindingOf(views.boundDigest(args), currentFile).kind === "changed";
  const title =
    outcome === "pending"
      ? views.pendingTitle
        ? t(views.pendingTitle)
        : t("approvalTitle", { tool: revealText(shown) })
      : t(outcome === "approved" ? (callStatus === "failed" ? "titleApprovedFailed" : "titleApproved") : outcome === "rejected" ? "titleRejected" : outcome === "void" ? "titleVoid" : "titleStale", { what });
  return (
    <div
      ref={card}
      className={`approval approval-${outcome}${outcome === "approved" && callStatus === "failed" ? " approval-failed" : ""}`}
      tabIndex={0}
      role="group"
      aria-label={title}
      onPointerEnter={() => {
        if (open) onLook?.();
      }}
      onPointerDown={() => (pressed.current = true)}
      onPointerUp={() => (pressed.current = false)}
      onFocus={(e) => {
        if (e.target === card.current) deliberate.current = pressed.current || focusCameFromTab();
        if (open) onLook?.();
      }}
      onBlur={(e) => {
        if (e.target === card.current) deliberate.current = false;
      }}
      onKeyDown={(e) => {
        // Only the card itself: keys on its buttons or in any text field are not decisions.
        if (e.target !== card.current || isTextField(e.target) || !deliberate.current) return;
        const d = decisionOf(e.nativeEvent);
        if (!d) return;
        e.preventDefault();
        void decide(d);
      }}
    >
      <div className="approval-head">
        <ShieldAlert size={18} aria-hidden />
        <strong>{title}</strong>
        <span className="muted origin" title={request.tool}>
          <Reveal text={origin} />
        </span>
      </div>
      {hidden ? (
        <p className="hidden-warning" role="note">
          {t("hiddenChars")}
        </p>
      ) : null}
      {open && request.alternative ? (
        <fieldset className="card-options">
          <legend className="muted small">{t("cardOptions")}</legend>
          {([["first", request], ["alternative", request.alternative]] as const).map(([which, option], i) => (
            <label key={which} className="mcp-check">
              <input type="radio" name={`options-${request.approvalId}`} checked={chosen === which} disabled={busy} onChange={() => setChosen(which)} />
              {views.optionLabel?.((option.arguments ?? {}) as Record<string, unknown>, t) ?? t("cardOption", { n: i + 1 })}
            </label>
          ))}
        </fieldset>
      ) : null}
      {views.Details ? <views.Details tool={request.tool} args={args} currentFile={currentFile} /> : label ? <McpDetails description={label.description} canonical={shows.canonical} /> : null}
      <ExactArguments canonical={shows.canonical} compact={!!views.Details || !!label} />
      {open && views.changesFiles ? <p className="race-note muted small">{t("raceNote")}</p> : null}
      {open && !views.undoable && !views.readsOnly ? (
        <p className="no-undo-note muted small" data-testid="no-undo-note">
          {t("noUndoNote")}
        </p>
      ) : null}
      <div className="approval-foot">
        {/* What identifies the approval, for a person comparing it with the Host's log. */}
        <div className="card-meta muted small">
          <button type="button" className="link small" aria-expanded={meta} onClick={() => setMeta((m) => !m)}>
            {meta ? <ChevronDown size={13} aria-hidden /> : <ChevronRight size={13} aria-hidden />} {t("cardDetails")}
          </button>
          {meta && (
            <dl>
              <dt>{t("digest")}</dt>
              <dd className="mono">{shows.digest}</dd>
              <dt>{t("approvalIdLabel")}</dt>
              <dd className="mono">{request.approvalId}</dd>
              {request.callId && (
                <>
                  <dt>{t("callIdLabel")}</dt>
                  <dd className="mono">{request.callId}</dd>
                </>
              )}
            </dl>
          )}
        </div>
        {open ? (
          <span className="buttons">
            <span className="muted">{t("keysHint")}</span>
            <button className={stale ? "reject primary" : "reject"} disabled={busy} onClick={() => void decide("reject")}>
              <X size={16} aria-hidden /> {t("reject")}
            </button>
            <button className={stale ? "approve stale" : "approve"} disabled={busy} onClick={() => void decide("approve")}>
              <Check size={16} aria-hidden /> {t("approve")}
            </button>
          </span>
        ) : (
          <span className={`outcome outcome-${outcome}`} role="status">
            {outcome === "approved" ? t("approved") : outcome === "rejected" ? t("rejected") : outcome === "void" ? t(voidedBy ? `void_${voidedBy}` : "void") : t("stale")}
          </span>
        )}
      </div>
    </div>
  );
}

/** An MCP tool's card: the server's description of the tool (its own words, marked as such) and
 * the arguments it is called with, one per line, each as the exact text writes it (a string
 * as its text); the exact text below also names the server, its ID and the tool-list version
 * the approval is bound to. */
function McpDetails({ description, canonical }: { description: string; canonical: string }) {
  const t = useT();
  const called = rawMembers(canonical)?.find(([k]) => k === "arguments")?.[1];
  const entries = (called ? rawMembers(called) : null) ?? [];
  return (
    <div className="mcp-details">
      {description.trim() && (
        <p className="mcp-description">
          <span className="muted small">{t("mcpDescription")}</span> <Reveal text={description} mode="text" />
        </p>
      )}
      {entries.length ? (
        <dl className="mcp-arguments">
          {entries.map(([k, raw]) => {
            const text = rawString(raw);
            return (
              <div key={k}>
                <dt className="mono">
                  <Reveal text={k} />
                </dt>
                <dd>
                  <pre>
                    <Reveal text={text ?? raw} mode={text === null ? "name" : "text"} />
                  </pre>
                </dd>
              </div>
            );
          })}
        </dl>
      ) : (
        <p className="muted small">{t("mcpNoArguments")}</p>
      )}
    </div>
  );
}

/** The canonical text the digest covers, verbatim: big integers keep every digit, `-0.0` its
 * sign. Always shown; under the friendly fields of the tools that have them it is a shorter
 * box that scrolls. */
function ExactArguments({ canonical, compact }: { canonical: string; compact: boolean }) {
  const t = useT();
  return (
    <div className="details">
      <p className="muted">{t("exactArguments")}</p>
      {/* Focusable, so a long text scrolls from the keyboard; the card's decision keys work on
          the card itself only, never here. */}
      <pre className={`exact-arguments${compact ? " compact" : ""}`} aria-label={t("exactArguments")} tabIndex={0}>
        <Reveal text={canonical} />
      </pre>
    </div>
  );
}
