// Wire types of the Host's local API (crates/wisp-protocol); keep the two in step.
import type { Problem, RunModel } from "./features/settings/types";

export type Mode = "simulation" | "live";
export type RunStatus = "running" | "awaiting_approval" | "completed" | "cancelled" | "failed" | "budget_exhausted" | "interrupted";
export type CallStatus = "pending" | "awaiting_approval" | "running" | "succeeded" | "failed" | "rejected" | "cancelled";
export type ApprovalState = "pending" | "approved" | "rejected" | "void";

export interface Health { status: "ok"; mode: Mode; model_problem?: string; problem?: Problem; model?: RunModel; web_tabs?: WebTabs }
/** How web tabs are shown: pages of the Host's browser, or iframes (`--web-only`, no browser). */
export type WebTabs = "browser" | "iframe";
export interface Project { id: string; root: string; createdAt: number }
export interface Session {
  id: string; projectId: string | null; root: string | null; title: string;
  createdAt: number; activeRunId: string | null; lastEventSeq: number; usage?: Usage;
}
/** `canonical`: the exact text whose SHA-256 is `digest`, and what is sent. Show it, never a
 * re-serialisation of `arguments` (JSON.parse loses integers past 2^53 and the sign of -0.0). */
export interface Approval { id: string; state: ApprovalState; digest: string; arguments: unknown; canonical: string }
/** `argumentsText`: the arguments exactly as the model sent them. */
export interface ToolCall {
  callId: string; tool: string; arguments: unknown; argumentsText: string; status: CallStatus;
  result: string | null; approval: Approval | null;
  /** What the result had for the person alone (an MCP server's content for the user only); never sent to the model. */
  shown?: string | null;
}
export interface Step { index: number; text: string; partial?: boolean; toolCalls: ToolCall[] }
/** `kind` is a `RunErrorKind` (features/settings/runErrorKinds.ts) or, from a newer Host, one this UI does not know. */
export interface RunError { kind: string; message: string; params?: Record<string, string> }
export interface Usage { promptTokens: number; completionTokens: number; reasoningTokens: number; cacheHitTokens: number; cacheMissTokens: number; estimatedCost?: number | null; runsWithoutEstimate?: number }
export interface Run {
  id: string; sessionId: string; text: string; status: RunStatus; mode: Mode; steps: Step[];
  finalText: string | null; error: RunError | null; usage: Usage; model?: RunModel | null; createdAt: number; endedAt: number | null;
}
export interface RunPage { runs: Run[]; nextCursor: string | null }
/** `sha256`: the digest of the whole file as read, null when `partial`. */
export interface Preview { path: string; content: string; size: number; partial: boolean; sha256: string | null }
export interface WispEvent { seq: number; sessionId: string; runId: string | null; at: number; type: string; [k: string]: unknown }
export interface Delta { sessionId: string; runId: string; step: number; text?: string; reasoningBytes?: number }

export const FINAL: RunStatus[] = ["completed", "cancelled", "failed", "budget_exhausted", "interrupted"];

/** A preview tab of a session, as the Host holds it (`GET /api/sessions/{id}/tabs`). */
export type TabKind = "web" | "file" | "new" | "workspace";
/** How private a web address is, from the least private to the most. */
export type AddressKind = "public" | "private" | "loopback";
export interface PreviewTab {
  tabId: string; kind: TabKind; title: string; active: boolean;
  url?: string; path?: string; loadState?: "loading" | "loaded" | "failed"; error?: string;
  /** The page moved itself somewhere more private than what was opened in the tab: the agent may neither read it nor act on it. */
  moved?: { addressKind: AddressKind; openedKind: AddressKind };
  /** Downloads the tab's pages tried; every one was refused. `lastFileName` is the page's own text. */
  blockedDownloads?: { count: number; lastFileName: string };
}
export type OpenTab = { kind: "file"; path: string } | { kind: "new" } | { kind: "web"; url: string } | { kind: "workspace"; path?: string };
/** `GET /api/sessions/{id}/folder`: one folder of the project for a workspace tab. */
export interface FolderView { path: string; entries: { name: string; kind: "file" | "dir" | "symlink" | "other"; size?: number }[]; truncated: boolean }
/** The session event `dialog`: answered only by the person's click (`POST /api/dialogs/{id}`). */
export interface TabDialog { sessionId: string; dialogId: string; kind: "close_confirm" | "beforeunload"; tabId: string; message: string }
