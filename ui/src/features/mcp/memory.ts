// Settings → Local MCP for the QA workbench (UI-16): the page's calls answered from memory. It
// runs no program and keeps no value (variables keep their names only); the command `fail`
// shows a start failure, any other command a made-up tool list. Nothing here is the Host.
import { ApiError } from "../../api";
import type { McpApi } from "./McpSettings";
import { DEFAULT_CALL_LIMIT_SECS } from "./ServerForm";
import type { ImportRequest, McpServer, ServerBody } from "./types";

export class MemoryMcp implements McpApi {
  private servers: McpServer[] = [];
  private next = 1;

  private find(id: string): McpServer {
    const s = this.servers.find((x) => x.id === id);
    if (!s) throw new ApiError(404, "not_found", `no MCP server ${id} (in memory)`);
    return s;
  }
  private take(s: McpServer, b: ServerBody) {
    if (b.cwd && !b.cwd.startsWith("/")) throw new ApiError(400, "invalid_request", "cwd: an absolute path (starting with /) without NUL (in memory)");
    // Every field the Host's answer has: Settings shows them all (the call limit among them).
    Object.assign(s, { name: b.name, command: b.command, args: [...b.args], cwd: b.cwd ?? null, enabled: false, status: "disabled", error: null, tools: [], unsupportedTools: [], protocolVersion: null, callLimitSecs: b.callLimitSecs ?? DEFAULT_CALL_LIMIT_SECS });
    // Names only: the values are dropped here, as they would leave the page for the Host.
    if (b.env) s.env = b.env.map(({ name, storage }) => ({ name, storage }));
  }

  mcpServers = async () => structuredClone(this.servers);
  addMcpServer = async (b: ServerBody) => {
    const s = { id: `qa-${this.next++}`, env: [] } as unknown as McpServer;
    this.take(s, b);
    this.servers.push(s);
    return structuredClone(s);
  };
  updateMcpServer = async (id: string, b: ServerBody) => {
    const s = this.find(id);
    this.take(s, b);
    return structuredClone(s);
  };
  deleteMcpServer = async (id: string) => {
    this.servers = this.servers.filter((s) => s.id !== id);
  };
  activateMcpServer = async (id: string) => {
    const s = this.find(id);
    if (s.command === "fail") Object.assign(s, { enabled: false, status: "failed", error: "simulated start failure: the command `fail` (in memory, nothing ran)", tools: [] });
    else
      Object.assign(s, {
        enabled: true,
        status: "active",
        error: null,
        tools: [
          { modelName: `mcp_${s.id}_echo`, originalName: "echo", description: "Sample tool (in memory)" },
          { modelName: `mcp_${s.id}_forecast`, originalName: "forecast", description: "Sample tool (in memory)" },
        ],
      });
    return structuredClone(s);
  };
  disableMcpServer = async (id: string) => {
    Object.assign(this.find(id), { enabled: false, status: "disabled", tools: [] });
  };
  refreshMcpServer = async (id: string) => {
    this.find(id);
  };
  mcpImportProposals = async () => ({ proposals: [], errors: [] });
  importMcp = async (_: ImportRequest) => [];
}
