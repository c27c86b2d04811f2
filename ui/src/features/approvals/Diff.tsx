// A line diff of two texts, added and removed lines marked by colour and sign.
import { diffLines } from "diff";

export function Diff({ before, after }: { before: string; after: string }) {
  const parts = diffLines(before, after);
  return (
    <pre className="diff" aria-label="diff">
      {parts.flatMap((p, i) => {
        const lines = p.value.replace(/\n$/, "").split("\n");
        const kind = p.added ? "add" : p.removed ? "del" : "same";
        const sign = p.added ? "+" : p.removed ? "-" : " ";
        return lines.map((l, j) => (
          <div key={`${i}-${j}`} className={`diff-${kind}`}>
            {sign} {l}
          </div>
        ));
      })}
    </pre>
  );
}
