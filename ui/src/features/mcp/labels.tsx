// MCP tools by the names a person knows (UI-08, MCP-25): the server's name and the tool's
// original name instead of the model-facing `mcp_…` name. The labels come from the Host's
// server list; a name whose server is not active any more keeps its model name, marked as a
// local MCP tool — never as a built-in one.
import { createContext, useContext, useEffect, useRef, useState } from "react";
import type { Api } from "../../api";
import type { Run } from "../../types";
import { useT } from "../../i18n";
import type { McpServer } from "./types";
import { isBuiltInTool } from "../tools/registry";

export interface ToolLabel {
  server: string;
  original: string;
  /** The server's description of the tool (its own, untrusted words). */
  description: string;
}

/** The Host's model-facing names of MCP tools all start so (wisp-mcp's `names.rs`); so do the
 * install tools', which are Wisp's own and registered by their family. */
export const isMcpToolName = (name: string) => name.startsWith("mcp_") && !isBuiltInTool(name);

export function labelsOf(servers: McpServer[]): Map<string, ToolLabel> {
  return new Map(servers.flatMap((s) => s.tools.map((tool) => [tool.modelName, { server: s.name, original: tool.originalName, description: tool.description }] as const)));
}

/** The labels of the MCP tools in `runs`: the Host's server list is asked again when a run
 * shows an `mcp_…` name not labelled yet (each name once, unless it waits for an approval: its
 * server is active then, and the list may have been older). */
export function useMcpLabels(api: Api, runs: Run[]): ReadonlyMap<string, ToolLabel> {
  const [mcpLabels, setMcpLabels] = useState<ReadonlyMap<string, ToolLabel>>(new Map());
  const askedLabels = useRef(new Set<string>());
  useEffect(() => {
    const calls = runs.flatMap((r) => r.steps.flatMap((s) => s.toolCalls));
    const missing = calls.filter((c) => isMcpToolName(c.tool) && !mcpLabels.has(c.tool) && (!askedLabels.current.has(c.tool) || c.approval?.state === "pending"));
    if (missing.length === 0) return;
    for (const c of missing) askedLabels.current.add(c.tool);
    api
      .mcpServers()
      .then((list) => setMcpLabels((known) => new Map([...known, ...labelsOf(list)])))
      .catch(() => {});
  }, [runs, mcpLabels, api]);
  return mcpLabels;
}

export const McpToolLabels = createContext<ReadonlyMap<string, ToolLabel>>(new Map());

/** "server · original" for a labelled MCP tool, else the name as the model used it. */
export function useToolName(name: string): { shown: string; label: ToolLabel | undefined } {
  const label = useContext(McpToolLabels).get(name);
  return { shown: label ? `${label.server} · ${label.original}` : name, label };
}

/** Where a tool comes from, for the approval card's header. */
export function useToolOrigin(name: string): string {
  const t = useT();
  const { label } = useToolName(name);
  if (label) return t("mcpServer", { s: label.server });
  if (isMcpToolName(name)) return t("mcpToolUnlabelled");
  // The QA workbench's samples name MCP tools `server__tool`.
  const i = name.indexOf("__");
  return i > 0 ? t("mcpServer", { s: name.slice(0, i) }) : t("builtin");
}
