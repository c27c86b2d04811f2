// Tells the person a card is waiting without taking their focus: a polite live
// region that names each new pending approval once. It exists before any card so screen
// readers read what is put in it, and it is emptied once that card is answered or void, so
// nothing there speaks of a card that no longer waits.
import { useContext, useEffect, useRef, useState } from "react";
import type { Run } from "../../types";
import { useT } from "../../i18n";
import { isMcpToolName, McpToolLabels } from "../mcp/labels";

/** How long an announcement waits for an MCP tool's label. */
const LABEL_WAIT_MS = 2000;

export function ApprovalAnnouncer({ runs }: { runs: Run[] }) {
  const t = useT();
  const said = useRef(new Set<string>());
  const [text, setText] = useState("");
  // The approval the region speaks of now.
  const about = useRef<string | null>(null);
  const labels = useContext(McpToolLabels);
  // An MCP tool not labelled yet waits a moment for its label (App.tsx fetches it), then is
  // announced by the model's name rather than not at all.
  const waiting = useRef(new Map<string, number>());
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const calls = runs.flatMap((r) => r.steps.flatMap((s) => s.toolCalls));
    if (about.current && !calls.some((c) => c.approval?.id === about.current && c.approval.state === "pending")) {
      about.current = null;
      setText("");
    }
    for (const c of calls) {
      const a = c.approval;
      if (!a || a.state !== "pending" || said.current.has(a.id)) continue;
      const label = labels.get(c.tool);
      if (!label && isMcpToolName(c.tool)) {
        const since = waiting.current.get(a.id);
        if (since === undefined) {
          waiting.current.set(a.id, Date.now());
          setTimeout(() => setTick((n) => n + 1), LABEL_WAIT_MS);
          continue;
        }
        if (Date.now() - since < LABEL_WAIT_MS) continue;
      }
      said.current.add(a.id);
      const args = (a.arguments ?? {}) as { path?: unknown; source?: unknown; target?: unknown };
      // A move names both ends; every other change names its path.
      const target =
        typeof args.path === "string"
          ? args.path
          : typeof args.source === "string" && typeof args.target === "string"
            ? `${args.source} → ${args.target}`
            : "";
      about.current = a.id;
      setText(t("approvalAnnounce", { tool: label ? `${label.server} · ${label.original}` : c.tool, target }));
    }
  }, [runs, t, labels, tick]);
  return (
    <div className="sr-only" aria-live="polite" data-testid="announcer">
      {text}
    </div>
  );
}
