// What a tool family shows of its calls, besides what every call shows (the exact arguments,
// the result, the outcome). Each family fills these in its own folder (features/files,
// features/tabs, features/install) and registry.ts lists the families: the approval card, the
// call rows, the current-file fetches and the workbench look a tool up there, never by a
// switch over tool names. Every field may be left out: a tool without any (a local MCP
// server's) is shown by its name and exact arguments alone.
import type { ComponentType } from "react";
import type { Key, T } from "../../i18n";
import type { CurrentFile } from "../approvals/binding";

export interface DetailsProps {
  tool: string;
  args: Record<string, unknown>;
  /** The file the call would change, as the preview showed it (see approvals/currentFile.ts). */
  currentFile?: CurrentFile;
}

export interface ResultProps {
  result: string;
  /** Opens a file in the preview; `line` (from 1) is marked there. */
  onPreview: (path: string, line?: number) => void;
}

export interface ToolViews {
  /** The friendly fields of its approval card, above the exact text (which then is a shorter
   * box that scrolls). */
  Details?: ComponentType<DetailsProps>;
  /** The few words an answered card is titled by ("write notes.txt"); without it, the tool's
   * shown name. */
  action?: (tool: string, args: Record<string, unknown>, t: T) => string;
  /** The title of its pending card, instead of the general "Approve …?". */
  pendingTitle?: Key;
  /** It changes files in the project: the pending card says a hostile process racing inside the
   * folder can still change which file is affected (APPR-07). */
  changesFiles?: boolean;
  /** The Host records what its approved calls change, so the person can undo them (a call's
   * "Undo", a run's "Undo this run"). An approved call of a tool with neither this nor
   * `readsOnly` says on its card that no undo takes it back. */
  undoable?: boolean;
  /** Its approval sends something to the model and changes nothing (a credential file's read). */
  readsOnly?: boolean;
  /** The file a succeeded call offers to open in the preview. */
  previewPath?: (args: unknown) => string | undefined;
  /** A succeeded call opens its `previewPath` in a preview tab by itself (UI-01). */
  opensWhenDone?: boolean;
  /** The file its pending card diffs against, fetched while the card waits; none when the call
   * binds no existing file. */
  boundFile?: (args: Record<string, unknown>) => string | undefined;
  /** The digest of `boundFile` the change is bound to: a card whose file is known to differ
   * offers Reject, not Approve, as its main action. */
  boundDigest?: (args: Record<string, unknown>) => unknown;
  /** How its card names one of the two ways to run a call, when the approval offers an
   * alternative (a skill script confined or with full access); without it, "Option 1/2". */
  optionLabel?: (args: Record<string, unknown>, t: T) => string;
  /** What the call's row shows of a succeeded result. */
  Result?: ComponentType<ResultProps>;
}

/** A family: its tools by name. */
export type ToolFamily = Readonly<Record<string, ToolViews>>;
