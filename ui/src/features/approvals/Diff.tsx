// A line diff of two texts, added and removed lines marked by colour and sign; hidden and
// direction-changing characters in a line are shown marked (components/Reveal.tsx).
import { diffLines } from "diff";
import { Reveal } from "../../components/Reveal";

export function Diff({ before, after }: { before: string; after: string }) {
  const parts = diffLines(before, after);
  return (
    <pre className="diff" aria-label="diff">
      {parts.flatMap((p, i) => {
        // A CRLF line end is layout, like the LF it ends with; a CR anywhere else is marked.
        const lines = p.value.replace(/\n$/, "").split("\n");
        const kind = p.added ? "add" : p.removed ? "del" : "same";
        const sign = p.added ? "+" : p.removed ? "-" : " ";
        return lines.map((l, j) => (
          <div key={`${i}-${j}`} className={`diff-${kind}`}>
            {sign} <Reveal text={l.endsWith("\r") ? l.slice(0, -1) : l} mode="text" />
          </div>
        ));
      })}
    </pre>
  );
}
