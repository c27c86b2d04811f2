// A line diff of two texts, added and removed lines marked by colour and sign; hidden and
// direction-changing characters in a line are shown marked (components/Reveal.tsx). Unchanged
// lines show only around a change (a few lines before and after); each longer unchanged run is
// one button that opens it, so a one-line change in a long file is not a page of context. The
// card's exact arguments, shown in full elsewhere, are what the approval covers.
import { useState } from "react";
import { diffLines } from "diff";
import { Reveal } from "../../components/Reveal";
import { useT } from "../../i18n";

/** Unchanged lines shown before and after each change. */
export const CONTEXT_LINES = 3;

type Line = { kind: "add" | "del" | "same"; text: string };
type Row = { line: Line } | { gap: number; lines: Line[] };

function linesOf(before: string, after: string): Line[] {
  return diffLines(before, after).flatMap((p) => {
    const kind = p.added ? "add" : p.removed ? "del" : "same";
    return p.value
      .replace(/\n$/, "")
      .split("\n")
      .map((text) => ({ kind, text }) as Line);
  });
}

/** The lines to show, with each unchanged run farther than CONTEXT_LINES from a change folded
 * into one gap (a run of one line is shown: its button would take as much room). */
export function rowsOf(lines: Line[]): Row[] {
  const near = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.kind === "same") return;
    for (let j = Math.max(0, i - CONTEXT_LINES); j <= Math.min(lines.length - 1, i + CONTEXT_LINES); j++) near[j] = true;
  });
  const rows: Row[] = [];
  let run: Line[] = [];
  const flush = () => {
    if (run.length > 1) rows.push({ gap: rows.length, lines: run });
    else run.forEach((line) => rows.push({ line }));
    run = [];
  };
  lines.forEach((line, i) => {
    if (line.kind === "same" && !near[i]) {
      run.push(line);
      return;
    }
    flush();
    rows.push({ line });
  });
  flush();
  return rows;
}

function DiffLine({ line }: { line: Line }) {
  const sign = line.kind === "add" ? "+" : line.kind === "del" ? "-" : " ";
  // A CRLF line end is layout, like the LF it ends with; a CR anywhere else is marked.
  const text = line.text.endsWith("\r") ? line.text.slice(0, -1) : line.text;
  return (
    <div className={`diff-${line.kind}`}>
      {sign} <Reveal text={text} mode="text" />
    </div>
  );
}

export function Diff({ before, after }: { before: string; after: string }) {
  const t = useT();
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const rows = rowsOf(linesOf(before, after));
  return (
    <pre className="diff" aria-label="diff">
      {rows.map((r, i) =>
        "line" in r ? (
          <DiffLine key={i} line={r.line} />
        ) : open.has(r.gap) ? (
          r.lines.map((line, j) => <DiffLine key={`${i}-${j}`} line={line} />)
        ) : (
          <button key={i} type="button" className="diff-gap" onClick={() => setOpen(new Set([...open, r.gap]))}>
            {t("diffUnchanged", { n: r.lines.length })}
          </button>
        ),
      )}
    </pre>
  );
}
