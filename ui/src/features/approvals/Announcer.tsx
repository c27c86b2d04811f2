// Tells the person a card is waiting without taking their focus (issue 12 §1): a polite live
// region that names each new pending approval once. It exists before any card so screen
// readers read what is put in it.
import { useContext, useEffect, useRef, useState } from "react";
import type { Run } from "../../types";
import { useT } from "../../i18n";
import { isMcpToolName, McpToolLabels } from "../mcp/labels";

export function ApprovalAnnouncer({ runs }: { runs: Run[] }) {
  const t = useT();
  const said = useRef(new Set<string>());
  const [text, setText] = useState("");
  const labels = useContext(McpToolLabels);
  // An MCP tool not labelled yet waits one turn: its label is being fetched (App.tsx).
  const waited = useRef(new Set<string>());
  useEffect(() => {
    for (const c of runs.flatMap((r) => r.steps.flatMap((s) => s.toolCalls))) {
      const a = c.approval;
      if (!a || a.state !== "pending" || said.current.has(a.id)) continue;
      const label = labels.get(c.tool);
      if (!label && isMcpToolName(c.tool) && !waited.current.has(a.id)) {
        waited.current.add(a.id);
        continue;
      }
      said.current.add(a.id);
      const path = (a.arguments as { path?: unknown } | null)?.path;
      setText(t("approvalAnnounce", { tool: label ? `${label.server} · ${label.original}` : c.tool, target: typeof path === "string" ? path : "" }));
    }
  }, [runs, t, labels]);
  return (
    <div className="sr-only" aria-live="polite" data-testid="announcer">
      {text}
    </div>
  );
}
