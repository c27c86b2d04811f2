// Wire types of the Host's local API, by the names the UI uses. Every one is an alias of a type
// generated from the Host's API document (generated/api.ts, from generated/openapi.json; see
// scripts/api-types.mjs), so a change to a Rust wire type shows up here as a compile error.
import type { components } from "./generated/api";

/** The API document's component schemas. */
export type Schemas = components["schemas"];

export type Mode = Schemas["Mode"];
export type RunStatus = Schemas["RunStatus"];
export type CallStatus = Schemas["ToolCallStatus"];
export type ApprovalState = Schemas["ApprovalState"];

export type Health = Schemas["Health"];
/** How web tabs are shown: pages of the Host's browser, or iframes (`--web-only`, no browser). */
export type WebTabs = Schemas["WebTabs"];
export type Project = Schemas["Project"];
export type Session = Schemas["Session"];
export type SessionsChanged = Schemas["SessionsChanged"];
export type SearchResults = Schemas["SearchResults"];
export type SearchHit = Schemas["SearchHit"];
/** `canonical`: the exact text whose SHA-256 is `digest`, and what is sent. Show it, never a
 * re-serialisation of `arguments` (JSON.parse loses integers past 2^53 and the sign of -0.0). */
export type Approval = Schemas["Approval"];
/** `argumentsText`: the arguments exactly as the model sent them; `shown`: what the result had
 * for the person alone (an MCP server's content for the user only), never sent to the model. */
export type ToolCall = Schemas["ToolCall"];
export type Step = Schemas["Step"];
export type RunError = Schemas["Failure"];
export type Usage = Schemas["Usage"];
export type Run = Schemas["Run"];
export type StepContext = Schemas["StepContext"];
export type ContextSummary = Schemas["ContextSummary"];
export type RunPage = Schemas["RunPage"];
/** `sha256`: the digest of the whole file as read, null when `partial`. */
export type Preview = Schemas["Preview"];
/** One stored event of a session's stream: a union on `type`, so a `switch` over it that ends
 * in `const _exhaustive: never = e` fails to compile when the Host adds a kind. */
export type WispEvent = Schemas["Event"];
export type EventType = WispEvent["type"];
/** The event of one `type`. */
export type EventOf<K extends EventType> = Extract<WispEvent, { type: K }>;
export type Delta = Schemas["Delta"];
/** Live events without a seq of their own (SSE event names `tool_output`, `dialog`, `tabs`,
 * `open_ticket`). */
export type ToolOutputEvent = Schemas["ToolOutput"];
export type TabsChanged = Schemas["TabsChanged"];
export type OpenTicket = Schemas["OpenTicket"];

export const FINAL: RunStatus[] = ["completed", "cancelled", "failed", "budget_exhausted", "interrupted"];

/** A preview tab of a session, as the Host holds it (`GET /api/sessions/{id}/tabs`). `moved`:
 * the page moved itself somewhere more private than what was opened in the tab, so the agent
 * may neither read it nor act on it; `blockedDownloads`: downloads its pages tried, every one
 * refused (`lastFileName` is the page's own text). */
export type PreviewTab = Schemas["PreviewTab"];
export type TabKind = Schemas["TabKind"];
/** How private a web address is, from the least private to the most. */
export type AddressKind = Schemas["AddressKind"];
export type OpenTab = Schemas["OpenTab"];
export type NavigateTab = Schemas["NavigateTab"];
/** `GET /api/sessions/{id}/folder`: one folder of the project for a workspace tab. */
export type FolderView = Schemas["FolderView"];
/** The session event `dialog`: answered only by the person's click (`POST /api/dialogs/{id}`). */
export type TabDialog = Schemas["Dialog"];
/** What undoing a run's recorded changes (or one call's, or one undo's) would do now: confirm it
 * by quoting `digest`, the SHA-256 of `canonical`. */
export type UndoPlan = Schemas["UndoPlan"];
export type UndoItem = Schemas["UndoItem"];
export type UndoResult = Schemas["UndoResult"];
