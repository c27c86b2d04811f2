// Tells the person a card is waiting without taking their focus (issue 12 §1): a polite live
// region that names each new pending approval once. It exists before any card so screen
// readers read what is put in it.
import { useEffect, useRef, useState } from "react";
import type { Run } from "../../types";
import { useT } from "../../i18n";

export function ApprovalAnnouncer({ runs }: { runs: Run[] }) {
  const t = useT();
  const said = useRef(new Set<string>());
  const [text, setText] = useState("");
  useEffect(() => {
    for (const c of runs.flatMap((r) => r.steps.flatMap((s) => s.toolCalls))) {
      const a = c.approval;
      if (!a || a.state !== "pending" || said.current.has(a.id)) continue;
      said.current.add(a.id);
      const args = (a.arguments ?? {}) as { path?: unknown; source?: unknown; target?: unknown };
      // A move names both ends; every other change names its path.
      const target =
        typeof args.path === "string"
          ? args.path
          : typeof args.source === "string" && typeof args.target === "string"
            ? `${args.source} → ${args.target}`
            : "";
      setText(t("approvalAnnounce", { tool: c.tool, target }));
    }
  }, [runs, t]);
  return (
    <div className="sr-only" aria-live="polite" data-testid="announcer">
      {text}
    </div>
  );
}
