// Settings → Local MCP on the wire (GET/POST/PUT /api/mcp/servers…): aliases of the types
// generated from the Host's API document (../../types.ts says how they are made). No type here
// ever holds a stored secret value: the Host sends variable names and storage modes only.
import type { Schemas } from "../../types";

export type EnvStorage = Schemas["McpStorage"];
/** `starting` while discovery runs; `failed` carries the Host's `error`. */
export type ServerStatus = Schemas["McpStatus"];

/** `modelName`: the stable name the model sees (server id + digest of the original name,
 * MCP-25); `originalName`: the tool's own name on its server; `description`: the server's
 * words, untrusted, shown as plain text only. */
export type McpTool = Schemas["McpToolSummary"];

/** `unsupportedTools`: tools the server lists that Wisp cannot call, never offered to the model;
 * `callLimitSecs`: how long one call may run while the server keeps reporting progress. */
export type McpServer = Schemas["McpServer"];
export type UnsupportedTool = Schemas["McpUnsupportedTool"];

/** What the page sends to add or edit a server. `env` absent on an edit keeps the stored
 * variables (only when command, arguments and directory are unchanged); present, it replaces
 * the whole set, and an empty list clears it (MCP-20). */
export type ServerBody = Schemas["McpServerDraft"];

/** Which app's config a proposal was found in. */
export type ImportSource = Schemas["McpImportSource"];

/** A server found in another app's config. `env` lists names only: the values stay in the Host;
 * `unsupported` says why it cannot be imported (e.g. a remote server). */
export type ImportProposal = Schemas["McpImportProposal"];

/** `GET /api/mcp/import`: what was found, and the files that exist but could not be read. */
export type ImportList = Schemas["McpImportList"];

/** `envStorage`: where the variables' values from those files go; the Host requires it when an
 * imported server has variables, and the page sends it only when the person chose. */
export type ImportRequest = Schemas["McpImport"];
