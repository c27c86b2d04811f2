// The files family's views (FILE-*): the approval cards of the tools that read sensitive files
// or change the project, the search results under a files_search call, and which files a call
// opens in the preview or binds its card to (see ../tools/views.ts).
import { useT, type Key, type T } from "../../i18n";
import { Reveal, revealText } from "../../components/Reveal";
import { Diff } from "../approvals/Diff";
import { bindingOf, type Binding } from "../approvals/binding";
import { Field, str } from "../approvals/parts";
import type { DetailsProps, ResultProps, ToolFamily, ToolViews } from "../tools/views";

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

function WriteDetails({ args, currentFile }: DetailsProps) {
  const t = useT();
  // A write that creates its file binds its absence; one that replaces a file binds that
  // file's digest (`replaces`), and only a preview with that digest is diffed against.
  const binding = bindingOf(args.replaces, currentFile);
  return (
    <div className="details">
      <Field label={t("path")} value={str(args.path)} />
      {args.undoable === false && (
        <p className="no-undo-note small" role="note" data-testid="not-undoable">
          {t("writeNotUndoable")}
        </p>
      )}
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

function ReplaceDetails({ args, currentFile }: DetailsProps) {
  const t = useT();
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

function MkdirDetails({ args }: DetailsProps) {
  const t = useT();
  return (
    <div className="details">
      <Field label={t("path")} value={str(args.path)} />
      <p className="muted">{t("mkdirNote")}</p>
    </div>
  );
}

function MoveDetails({ args }: DetailsProps) {
  const t = useT();
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

function TrashDetails({ args }: DetailsProps) {
  const t = useT();
  // Runs stored before the counts were named "folders" call them "dirs".
  const folders = args.folders ?? args.dirs;
  return (
    <div className="details">
      <Field label={t("path")} value={str(args.path)} />
      {typeof args.files === "number" && typeof folders === "number" ? (
        <Field
          label={t("trashGoes")}
          value={folders === 0 ? t("trashOneFile") : t("trashCounts", { files: args.files, folders })}
        />
      ) : null}
      <p className="muted">{t("trashNote")}</p>
    </div>
  );
}

/** Bytes, grouped the same way in both languages (1,234). */
const bytes = (n: unknown) => (typeof n === "number" ? n.toLocaleString("en-US") : str(n));

/** A read of a file that looks like credentials (files_read asks only for those): what would be
 * sent and why Wisp asks — never the content, which the Host does not put on the card. */
function SensitiveReadDetails({ args }: DetailsProps) {
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

type SearchHit = { path: string; kind?: string; line?: number; snippet?: string };
type SearchOut = { results?: SearchHit[]; truncated?: boolean; truncatedBy?: string[]; skipped?: { count?: number; reasons?: Record<string, number> } };

/** files_search results as a list; a file's path opens it in the preview pane. What was skipped
 * or cut off is said, so it never reads as "no match" (FILE-11). */
function SearchResults({ result, onPreview }: ResultProps) {
  const t = useT();
  let out: SearchOut;
  try {
    out = JSON.parse(result) as SearchOut;
  } catch {
    return null;
  }
  const hits = Array.isArray(out.results) ? out.results : [];
  const reasons = Object.entries(out.skipped?.reasons ?? {}).map(([k, n]) => `${k} ${n}`).join(", ");
  return (
    <div className="search-results">
      <div className="muted small">{t("searchResults", { n: String(hits.length) })}</div>
      <ul>
        {hits.map((h, i) => (
          <li key={`${h.path}:${h.line ?? ""}:${i}`}>
            {h.kind === "dir" ? (
              <code>
                <Reveal text={h.path} />/
              </code>
            ) : (
              <button className="link mono" onClick={() => onPreview(h.path, h.line)}>
                <Reveal text={h.path} />
                {h.line ? `:${h.line}` : ""}
              </button>
            )}
            {h.snippet ? (
              <span className="muted mono small">
                {" "}
                <Reveal text={h.snippet} mode="text" />
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {out.truncated ? <div className="warn small">{t("searchTruncated", { by: (out.truncatedBy ?? []).join(", ") })}</div> : null}
      {out.skipped?.count ? <div className="muted small">{t("searchSkipped", { n: String(out.skipped.count), why: reasons })}</div> : null}
    </div>
  );
}

/** What a call of a files tool does, in a few words ("write notes.txt"). A title is plain text
 * (it is also the card's accessible name): escapes without marks. */
function fileAction(tool: string, args: Record<string, unknown>, t: T) {
  const vars = { path: revealText(str(args.path)), source: revealText(str(args.source ?? args.from)), target: revealText(str(args.target ?? args.to)) };
  return t(`do_${tool}` as Key, vars);
}

/** The `path` argument, when it is one. */
function pathOf(args: unknown): string | undefined {
  const path = typeof args === "object" && args ? (args as { path?: unknown }).path : undefined;
  return typeof path === "string" ? path : undefined;
}

const CHANGE: ToolViews = { action: fileAction, changesFiles: true, undoable: true };

export const FILES: ToolFamily = {
  files_read: { Details: SensitiveReadDetails, action: fileAction, pendingTitle: "readSensitiveTitle", previewPath: pathOf, readsOnly: true },
  // A write that creates its file binds its absence: nothing to fetch (and no 404 to log).
  files_write: { ...CHANGE, Details: WriteDetails, previewPath: pathOf, opensWhenDone: true, boundFile: (args) => (args.creates === true ? undefined : pathOf(args)), boundDigest: (args) => args.replaces },
  files_replace: { ...CHANGE, Details: ReplaceDetails, previewPath: pathOf, opensWhenDone: true, boundFile: pathOf, boundDigest: (args) => args.sha256 },
  files_mkdir: { ...CHANGE, Details: MkdirDetails },
  files_move: { ...CHANGE, Details: MoveDetails },
  files_trash: { ...CHANGE, Details: TrashDetails },
  files_search: { Result: SearchResults },
};
