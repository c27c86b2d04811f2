// How a pending card's change relates to the file the Host's preview shows now: the card diffs
// against the file only when the preview's digest is the digest the approval is bound to
// (fetched by currentFile.ts; compared by each family's card, e.g. files_replace's `sha256`).
/** What the preview said about the file a card's change is bound to. */
export type CurrentFile =
  | { state: "loading" }
  /** No such file now (404). */
  | { state: "missing" }
  /** `sha256` is null when the preview is partial (the file is longer than a preview shows). */
  | { state: "loaded"; content: string; sha256: string | null }
  /** Any other failure: the card says so instead of guessing. */
  | { state: "failed"; message: string };

/** How a card's change relates to the file the preview shows. */
export type Binding =
  /** Nothing to compare yet (loading, or no file to bind). */
  | { kind: "unknown" }
  /** The preview shows exactly the content the change is bound to. */
  | { kind: "same"; content: string }
  /** The file is not the one the change was prepared on (edited, or gone). */
  | { kind: "changed" }
  /** The file is too long for a preview, so it cannot be compared. */
  | { kind: "tooLong" }
  | { kind: "failed"; message: string };

/** Compares the digest a change is bound to with what the preview showed. */
export function bindingOf(bound: unknown, current: CurrentFile | undefined): Binding {
  if (typeof bound !== "string" || !current || current.state === "loading") return { kind: "unknown" };
  switch (current.state) {
    case "missing":
      return { kind: "changed" };
    case "failed":
      return { kind: "failed", message: current.message };
    case "loaded":
      if (current.sha256 === null) return { kind: "tooLong" };
      return current.sha256 === bound ? { kind: "same", content: current.content } : { kind: "changed" };
  }
}
