// One card per pending call, with the complete arguments that will execute: the exact canonical
// text the digest covers (never a re-serialisation of a parsed copy), and friendly fields that
// agree with it. Hidden and direction-changing characters are shown marked everywhere on the
// card (components/Reveal.tsx), and the card says so when there are any. Answered once:
// afterwards it shows the outcome and never offers the buttons again. A card never takes the
// focus: it scrolls into view and the workbench announces it, and only a person who moved to it
// (Tab or click) can answer it with A or R (see keys.ts).
import { useEffect, useRef, useState } from "react";
import { Check, ShieldAlert, X } from "lucide-react";
import type { ApprovalState, CallStatus } from "../../types";
import { useT, type Key } from "../../i18n";
import { useToolName, useToolOrigin } from "../mcp/labels";
import { Reveal, hasHidden, revealText, type RevealMode } from "../../components/Reveal";
import { Diff } from "./Diff";
import { bindingOf, type Binding, type CurrentFile } from "./currentFile";
import { OpenPageDetails } from "./OpenPage";
import { INSTALL_TOOLS, InstallDetails, installAction } from "./InstallDetails";
import { decisionOf, focusCameFromTab, isTextField, trackFocusIntent, type Decision } from "./keys";

export interface ApprovalRequest {
  approvalId: string;
  tool: string;
  arguments: unknown;
  /** The exact text whose SHA-256 is `digest`: what the card shows as sent. */
  canonical: string;
  digest: string;
  state: ApprovalState;
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
  onDecide: (decision: Decision) => Promise<Outcome>;
  /** How the approved call ended, for a decided card: an approval the execution then refused
   * (a file changed since) or that failed is not titled as if it had been done. */
  callStatus?: CallStatus;
}

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** Arguments shown as multi-line content: newlines and tabs there are layout. */
const CONTENT_KEYS = ["content", "oldText", "newText", "impact"];

/** Tools that change files in the project: their cards say that a hostile process racing inside
 * the folder can still change which file is affected (APPR-07). */
export const FILE_CHANGE_TOOLS = ["files_write", "files_replace", "files_mkdir", "files_move", "files_trash"];

/** Tools whose card shows friendly fields beside the exact text. */
const FRIENDLY = ["files_read", "files_write", "files_replace", "files_mkdir", "files_move", "files_trash", "open_webpage", ...INSTALL_TOOLS];

/** Whether anything the card shows holds a character it marks: the exact text, and for the
 * tools with friendly fields every string among the arguments (a newline in a path is escaped
 * in the JSON text but marked in the path field). */
export function cardHasHidden(tool: string, args: unknown, canonical: string): boolean {
  if (hasHidden(canonical, "name")) return true;
  if (!FRIENDLY.includes(tool)) return false;
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

export function ApprovalCard({ request, currentFile, onLook, onDecide, callStatus }: Props) {
  const t = useT();
  const [outcome, setOutcome] = useState<Outcome>(request.state);
  const [busy, setBusy] = useState(false);
  const card = useRef<HTMLDivElement>(null);
  // True while the card has a focus the person gave it (Tab or a click), see keys.ts.
  const deliberate = useRef(false);
  // A pointer press on the card, between pointer down and up (focus happens on down).
  const pressed = useRef(false);
  useEffect(() => setOutcome((o) => (o === "stale" ? o : request.state)), [request.state]);
  useEffect(() => trackFocusIntent(card.current?.ownerDocument), []);
  const args = (request.arguments ?? {}) as Record<string, unknown>;
  const open = outcome === "pending";
  // A new question is shown where the person looks, without moving their focus.
  const asked = request.state === "pending";
  useEffect(() => {
    if (asked) card.current?.scrollIntoView?.({ block: "nearest" });
  }, [asked]);

  const decide = async (d: Decision) => {
    if (!open || busy) return;
    setBusy(true);
    try {
      setOutcome(await onDecide(d));
    } finally {
      setBusy(false);
    }
  };

  // An answered card is titled by what happened to what was asked.
  // An MCP tool goes by its server's and its own name (UI-08), the model's name in the tooltip.
  const { shown } = useToolName(request.tool);
  const origin = useToolOrigin(request.tool);
  const what = actionOf(request.tool, args, t, revealText(shown));
  const hidden = cardHasHidden(request.tool, args, request.canonical);
  const title =
    outcome === "pending"
      ? request.tool === "files_read"
        ? t("readSensitiveTitle")
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
      <Details tool={request.tool} args={args} currentFile={currentFile} />
      <ExactArguments canonical={request.canonical} compact={FRIENDLY.includes(request.tool)} />
      {open && FILE_CHANGE_TOOLS.includes(request.tool) ? <p className="race-note muted small">{t("raceNote")}</p> : null}
      <div className="approval-foot">
        <span className="muted mono" title={request.digest}>
          {t("digest")} {request.digest.slice(0, 16)}…
        </span>
        {open ? (
          <span className="buttons">
            <span className="muted">{t("keysHint")}</span>
            <button className="reject" disabled={busy} onClick={() => void decide("reject")}>
              <X size={16} aria-hidden /> {t("reject")}
            </button>
            <button className="approve" disabled={busy} onClick={() => void decide("approve")}>
              <Check size={16} aria-hidden /> {t("approve")}
            </button>
          </span>
        ) : (
          <span className={`outcome outcome-${outcome}`} role="status">
            {outcome === "approved" ? t("approved") : outcome === "rejected" ? t("rejected") : outcome === "void" ? t("void") : t("stale")}
          </span>
        )}
      </div>
    </div>
  );
}

/** What a call does, in a few words ("write notes.txt"). */
function actionOf(tool: string, args: Record<string, unknown>, t: ReturnType<typeof useT>, shown: string) {
  // A title is plain text (it is also the card's accessible name): escapes without marks.
  const vars = { path: revealText(str(args.path)), source: revealText(str(args.source ?? args.from)), target: revealText(str(args.target ?? args.to)) };
  switch (tool) {
    case "files_read":
    case "files_write":
    case "files_replace":
    case "files_mkdir":
    case "files_move":
    case "files_trash":
      return t(`do_${tool}`, vars);
    case "open_webpage":
      return t("do_open_webpage", { url: revealText(str(args.url)) });
    default:
      return INSTALL_TOOLS.includes(tool) ? installAction(tool, args, t) : shown;
  }
}

/** What the card says about the file when it cannot diff against it; nothing while unknown. */
function FileNotice({ binding }: { binding: Binding }) {
  const t = useT();
  switch (binding.kind) {
    case "changed":
      return <p className="file-notice error">{t("fileChangedStale")}</p>;
    case "failed":
      return <p className="file-notice error">{t("fileLoadFailed", { message: binding.message })}</p>;
    case "tooLong":
      return <p className="muted">{t("fileTooLongForDiff")}</p>;
    default:
      return null;
  }
}

function Details({ tool, args, currentFile }: { tool: string; args: Record<string, unknown>; currentFile?: CurrentFile }) {
  const t = useT();
  switch (tool) {
    case "files_write": {
      // A write that creates its file binds its absence; one that replaces a file binds that
      // file's digest (`replaces`), and only a preview with that digest is diffed against.
      const binding = bindingOf(args.replaces, currentFile);
      return (
        <div className="details">
          <Field label={t("path")} value={str(args.path)} />
          {args.creates === true ? (
            <p className="muted">{t("newFile")}</p>
          ) : binding.kind === "same" ? (
            binding.content === str(args.content) ? (
              <p className="muted">{t("noChange")}</p>
            ) : (
              <>
                <p className="muted">{t("diffAgainstCurrent")}</p>
                <Diff before={binding.content} after={str(args.content)} />
              </>
            )
          ) : (
            <FileNotice binding={binding} />
          )}
          <p className="muted">{t("content")}</p>
          <pre className="content">
            <Reveal text={str(args.content)} mode="text" />
          </pre>
        </div>
      );
    }
    case "files_replace": {
      // The diff in context only against the very content `sha256` binds; otherwise the
      // requested change alone, and why.
      const binding = bindingOf(args.sha256, currentFile);
      const oldText = str(args.oldText);
      const newText = str(args.newText);
      return (
        <div className="details">
          <Field label={t("path")} value={str(args.path)} />
          <p className="muted">{t("oldText")}</p>
          <pre className="content">
            <Reveal text={oldText} mode="text" />
          </pre>
          <p className="muted">{t("newText")}</p>
          <pre className="content">
            <Reveal text={newText} mode="text" />
          </pre>
          {binding.kind === "same" && binding.content.includes(oldText) ? (
            <>
              <p className="muted">{t("diffAgainstCurrent")}</p>
              <Diff before={binding.content} after={binding.content.replace(oldText, () => newText)} />
            </>
          ) : (
            <>
              <FileNotice binding={binding} />
              <p className="muted">{t("requestedChange")}</p>
              <Diff before={oldText} after={newText} />
            </>
          )}
          {typeof args.line === "number" ? <Field label={t("line")} value={String(args.line)} /> : null}
          {args.sha256 ? <Field label="sha256" value={str(args.sha256)} /> : null}
        </div>
      );
    }
    case "files_read":
      return <SensitiveReadDetails args={args} />;
    case "files_mkdir":
      return (
        <div className="details">
          <Field label={t("path")} value={str(args.path)} />
          <p className="muted">{t("mkdirNote")}</p>
        </div>
      );
    case "files_move": {
      // The counts come from the Host's fingerprint of the source tree, which the approval's
      // digest covers: the move runs only on the tree these numbers describe.
      const counted = typeof args.files === "number" && typeof args.folders === "number";
      return (
        <div className="details">
          <p className="move-paths">
            <code aria-label={t("source")}>
              <Reveal text={str(args.source ?? args.from)} />
            </code>{" "}
            →{" "}
            <code aria-label={t("target")}>
              <Reveal text={str(args.target ?? args.to)} />
            </code>
          </p>
          {counted ? (
            <p className="move-counts">
              {t("moveCounts", { files: String(args.files), folders: String(args.folders) })}
            </p>
          ) : (
            <p className="muted">{t("moveNote")}</p>
          )}
          {typeof args.fingerprint === "string" ? (
            <div className="field" title={args.fingerprint}>
              <span className="muted">{t("fingerprint")}</span> <code>{args.fingerprint.slice(0, 16)}…</code>
            </div>
          ) : null}
        </div>
      );
    }
    case "files_trash":
      return (
        <div className="details">
          <Field label={t("path")} value={str(args.path)} />
          {typeof args.files === "number" && typeof args.dirs === "number" ? (
            <Field label={t("trashGoes")} value={t("trashCounts", { files: args.files, dirs: args.dirs })} />
          ) : null}
          <p className="muted">{t("trashNote")}</p>
        </div>
      );
    case "open_webpage":
      return <OpenPageDetails args={args} />;
    case "mcp_install_npm":
    case "mcp_register":
    case "mcp_activate_service":
      return <InstallDetails tool={tool} args={args} />;
    default:
      // Any other tool (a local MCP server's): the exact text below is the whole story.
      return null;
  }
}

/** The canonical text the digest covers, verbatim: big integers keep every digit, `-0.0` its
 * sign. Always shown; under the friendly fields of the tools that have them it is a shorter
 * box that scrolls. */
function ExactArguments({ canonical, compact }: { canonical: string; compact: boolean }) {
  const t = useT();
  return (
    <div className="details">
      <p className="muted">{t("exactArguments")}</p>
      <pre className={`exact-arguments${compact ? " compact" : ""}`} aria-label={t("exactArguments")}>
        <Reveal text={canonical} />
      </pre>
    </div>
  );
}

/** Bytes, grouped the same way in both languages (1,234). */
const bytes = (n: unknown) => (typeof n === "number" ? n.toLocaleString("en-US") : str(n));

/** A read of a file that looks like credentials (files_read asks only for those): what would be
 * sent and why Wisp asks — never the content, which the Host does not put on the card. */
function SensitiveReadDetails({ args }: { args: Record<string, unknown> }) {
  const t = useT();
  const size = typeof args.size === "number" ? args.size : undefined;
  const from = typeof args.offset === "number" ? args.offset : 0;
  const to = typeof args.end === "number" ? args.end : size;
  const part = size !== undefined && to !== undefined && (from > 0 || to < size);
  // The reason in the person's language by its kind; the Host's English sentence otherwise.
  const key = `sensitive_${str(args.sensitive)}`;
  const why = t(key as Key);
  return (
    <div className="details">
      <Field label={t("path")} value={str(args.path)} />
      {size !== undefined ? <Field label={t("readSize")} value={t("readSizeBytes", { n: bytes(size) })} /> : null}
      {part ? <Field label={t("readPart")} value={t("readPartBytes", { from: bytes(from), to: bytes(to), size: bytes(size) })} /> : null}
      <p className="read-why">
        <span className="muted">{t("readWhy")}</span> {why === key ? str(args.reason) : why}
      </p>
      <p className="muted">{t("readNote")}</p>
    </div>
  );
}

function Field({ label, value }: { label: string; value: string }) {
  return (
    <div className="field">
      <span className="muted">{label}</span>{" "}
      <code>
        <Reveal text={value} />
      </code>
    </div>
  );
}
