// The tool families the UI knows, by tool name. Adding a family is one folder with its views
// (see views.ts) and one line here.
import type { ToolFamily, ToolViews } from "./views";
import { FILES } from "../files/views";
import { WEB } from "../tabs/views";
import { INSTALL } from "../install/views";
import { SKILLS } from "../skills/views";

const FAMILIES: readonly ToolFamily[] = [FILES, WEB, INSTALL, SKILLS];

const BUILT_IN: ReadonlyMap<string, ToolViews> = new Map(FAMILIES.flatMap((f) => Object.entries(f)));

/** A tool no family registers (a local MCP server's): name and exact arguments only. */
const PLAIN: ToolViews = {};

/** What the UI shows of a tool's calls beyond the common parts. */
export function toolViews(tool: string): ToolViews {
  return BUILT_IN.get(tool) ?? PLAIN;
}

/** Whether a family of Wisp's own registers the tool. */
export const isBuiltInTool = (tool: string) => BUILT_IN.has(tool);
