// Settings → Local MCP on the wire (GET/POST/PUT /api/mcp/servers…);
// keep in step with crates/wisp-protocol/src/mcp.rs. No type here ever holds a stored secret value:
// the Host sends variable names and storage modes only.

export type EnvStorage = "keyring" | "session";
/** `starting` while discovery runs; `failed` carries the Host's `error`. */
export type ServerStatus = "disabled" | "starting" | "active" | "failed";

export interface McpTool {
  /** The stable name the model sees (server id + digest of the original name, MCP-25). */
  modelName: string;
  /** The tool's own name on its server: what the person reads. */
  originalName: string;
  /** The server's words: untrusted, shown as plain text only. */
  description: string;
}

export interface McpServer {
  id: string;
  name: string;
  command: string;
  args: string[];
  cwd: string | null;
  env: { name: string; storage: EnvStorage }[];
  enabled: boolean;
  status: ServerStatus;
  error: string | null;
  tools: McpTool[];
  /** Tools the server lists that Wisp cannot call: never offered to the model. */
  unsupportedTools: UnsupportedTool[];
  /** The MCP protocol revision it speaks, while active. */
  protocolVersion: string | null;
  /** How long one call may run while the server keeps reporting progress, in seconds. */
  callLimitSecs: number;
}

export interface UnsupportedTool {
  originalName: string;
  /** The server's words: untrusted, plain text only. */
  description: string;
  /** Why it is not offered (the Host's words). */
  reason: string;
}

/** What the page sends to add or edit a server. `env` absent on an edit keeps the stored
 * variables (only when command, arguments and directory are unchanged); present, it replaces
 * the whole set, and an empty list clears it (MCP-20). */
export interface ServerBody {
  name: string;
  command: string;
  args: string[];
  cwd?: string | null;
  env?: { name: string; value: string; storage: EnvStorage }[];
  /** 1 to 3600 seconds; absent: the default (300). */
  callLimitSecs?: number;
}

export type ImportSource = "claude_desktop" | "cursor" | "vscode";

/** A server found in another app's config. `env` lists names only: the values stay in the Host. */
export interface ImportProposal {
  id: string;
  source: ImportSource;
  file: string;
  name: string;
  command: string;
  args: string[];
  cwd: string | null;
  env: string[];
  /** Why it cannot be imported (e.g. a remote server), or null. */
  unsupported: string | null;
}

/** `GET /api/mcp/import`: what was found, and the files that exist but could not be read. */
export interface ImportList {
  proposals: ImportProposal[];
  errors: string[];
}

export interface ImportRequest {
  ids: string[];
  /** Where the variables' values from those files go; the Host requires it when an imported
   * server has variables, and the page sends it only when the person chose. */
  envStorage?: EnvStorage;
}
