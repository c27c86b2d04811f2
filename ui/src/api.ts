// The Host's local API, and nothing else: every request carries the token in a header (never
// in a URL), and the event stream is read with fetch so the header goes there too.
import type { Delta, FolderView, Health, NavigateTab, OpenTab, Preview, PreviewTab, Project, Run, RunPage, Schemas, SearchResults, Session, SessionsChanged, UndoPlan, UndoResult, WispEvent } from "./types";
import type { ConnectionTest, KeyStorage, ModelSettings, UpdateSettings } from "./features/settings/types";
import type { ImportList, ImportRequest, McpServer, ServerBody } from "./features/mcp/types";

/** Whose changes an undo is about: the run's (neither), one call's, or one undo's. */
export type UndoOf = { callId?: string; undoId?: string };

export class ApiError extends Error {
  constructor(public status: number, public code: string, message: string) {
    super(message);
  }
}

/** Reads the token from the URL fragment once, keeps it for this tab, and removes it from the
 * address bar so it stays out of history, bookmarks and referrers. */
export function takeToken(loc: Location = window.location, store: Storage = window.sessionStorage): string | null {
  const fromHash = new URLSearchParams(loc.hash.replace(/^#/, "")).get("token");
  if (fromHash) {
    store.setItem("wisp-token", fromHash);
    window.history.replaceState(null, "", loc.pathname + loc.search);
    return fromHash;
  }
  return store.getItem("wisp-token");
}

export class Api {
  /** `onUnauthorized` runs when the Host refuses the token (it restarted with a new one). */
  constructor(private token: string, private onUnauthorized: () => void = () => {}) {}

  private async call<T>(method: string, path: string, body?: unknown, keepalive = false): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), keepalive });
    if (r.status === 204) return undefined as T;
    // 202 answers may or may not carry a body (start run does, cancel does not).
    const data = await r.json().catch(() => null);
    if (r.status === 401) this.onUnauthorized();
    if (!r.ok) throw new ApiError(r.status, data?.error ?? "error", data?.message ?? `HTTP ${r.status}`);
    return data as T;
  }

  health = () => this.call<Health>("GET", "/api/health");
  projects = () => this.call<Project[]>("GET", "/api/projects");
  addProject = (path: string) => this.call<Project>("POST", "/api/projects", { path } satisfies Schemas["CreateProject"]);
  /** Revokes a project's authorization (DEC-03): its sessions keep their history, lose the file tools. */
  revokeProject = (id: string) => this.call<void>("DELETE", `/api/projects/${encodeURIComponent(id)}`);
  sessions = () => this.call<Session[]>("GET", "/api/sessions");
  createSession = (projectId?: string) => this.call<Session>("POST", "/api/sessions", (projectId ? { projectId } : {}) satisfies Schemas["CreateSession"]);
  renameSession = (id: string, title: string) => this.call<Session>("PATCH", `/api/sessions/${id}`, { title } satisfies Schemas["UpdateSession"]);
  pinSession = (id: string, pinned: boolean) => this.call<Session>("PATCH", `/api/sessions/${id}`, { pinned } satisfies Schemas["UpdateSession"]);
  /** Sessions whose title, messages or answers hold `q`, newest match first. */
  searchSessions = (q: string) => this.call<SearchResults>("GET", `/api/search?q=${encodeURIComponent(q)}`);
  /** The model the session's next runs ask for; "" for the model in Settings. */
  setSessionModel = (id: string, model: string) => this.call<Session>("PATCH", `/api/sessions/${id}`, { model } satisfies Schemas["UpdateSession"]);
  attachProject = (id: string, projectId: string) => this.call<Session>("PATCH", `/api/sessions/${id}`, { projectId } satisfies Schemas["UpdateSession"]);
  deleteSession = (id: string) => this.call<void>("DELETE", `/api/sessions/${id}`);
  /** The same, sent so that it still reaches the Host while the page goes away. */
  deleteSessionOnLeave = (id: string) => void this.call<void>("DELETE", `/api/sessions/${id}`, undefined, true).catch(() => {});
  runs = (sessionId: string, cursor?: string | null, limit = 30) =>
    this.call<RunPage>("GET", `/api/sessions/${sessionId}/runs?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
  run = (id: string) => this.call<Run>("GET", `/api/runs/${id}`);
  startRun = (sessionId: string, text: string) => this.call<Schemas["RunStarted"]>("POST", `/api/sessions/${sessionId}/runs`, { text } satisfies Schemas["StartRun"]);
  cancel = (runId: string) => this.call<void>("POST", `/api/runs/${runId}/cancel`);
  contextSettings = () => this.call<Schemas["ContextSettings"]>("GET", "/api/settings/context");
  updateContextSettings = (body: Schemas["UpdateContextSettings"]) => this.call<Schemas["ContextSettings"]>("PUT", "/api/settings/context", body);
  undoSettings = () => this.call<Schemas["UndoSettings"]>("GET", "/api/settings/undo");
  updateUndoSettings = (body: Schemas["UpdateUndoSettings"]) => this.call<Schemas["UndoSettings"]>("PUT", "/api/settings/undo", body);
  undoPlan = (runId: string, of: UndoOf = {}) => {
    const q = of.callId ? `?callId=${encodeURIComponent(of.callId)}` : of.undoId ? `?undoId=${encodeURIComponent(of.undoId)}` : "";
    return this.call<UndoPlan>("GET", `/api/runs/${runId}/undo${q}`);
  };
  undo = (runId: string, digest: string, of: UndoOf = {}) =>
    this.call<UndoResult>("POST", `/api/runs/${runId}/undo`, { digest, ...of } satisfies Schemas["UndoRequest"]);
  decide = (approvalId: string, decision: "approve" | "reject", digest: string, sessionId: string) =>
    this.call<void>("POST", `/api/approvals/${approvalId}`, { decision, digest, sessionId } satisfies Schemas["Decide"]);
  settings = () => this.call<ModelSettings>("GET", "/api/settings");
  updateSettings = (s: UpdateSettings) => this.call<ModelSettings>("PUT", "/api/settings", s);
  setApiKey = (value: string, storage: Exclude<KeyStorage, "env">) => this.call<ModelSettings>("PUT", "/api/settings/api-key", { value, storage } satisfies Schemas["SetApiKey"]);
  deleteApiKey = () => this.call<ModelSettings>("DELETE", "/api/settings/api-key");
  testConnection = () => this.call<ConnectionTest>("POST", "/api/settings/test");
  mcpServers = () => this.call<McpServer[]>("GET", "/api/mcp/servers");
  /** Settings → Skills: the skills found, the ones not used and why, the scripts switch. */
  skills = () => this.call<Schemas["SkillsView"]>("GET", "/api/skills");
  updateSkills = (body: Schemas["UpdateSkills"]) => this.call<Schemas["SkillsView"]>("PUT", "/api/skills", body);
  /** Trusts a project's skill as shown (its digest), or takes the trust back. */
  trustSkill = (body: Schemas["TrustSkill"]) => this.call<Schemas["SkillsView"]>("PUT", "/api/skills/trust", body);
  /** Turns one of the person's skills off (listed, in no run's catalogue) or on again. */
  enableSkill = (body: Schemas["EnableSkill"]) => this.call<Schemas["SkillsView"]>("PUT", "/api/skills/enabled", body);
  /** Copies skills of Claude's personal folder into Wisp's own, each as shown. */
  importSkills = (body: Schemas["ImportSkills"]) => this.call<Schemas["SkillsView"]>("POST", "/api/skills/import", body);
  addMcpServer = (body: ServerBody) => this.call<McpServer>("POST", "/api/mcp/servers", body);
  updateMcpServer = (id: string, body: ServerBody) => this.call<McpServer>("PUT", `/api/mcp/servers/${encodeURIComponent(id)}`, body);
  deleteMcpServer = (id: string) => this.call<void>("DELETE", `/api/mcp/servers/${encodeURIComponent(id)}`);
  activateMcpServer = (id: string) => this.call<McpServer>("POST", `/api/mcp/servers/${encodeURIComponent(id)}/activate`);
  disableMcpServer = (id: string) => this.call<McpServer>("POST", `/api/mcp/servers/${encodeURIComponent(id)}/disable`);
  refreshMcpServer = (id: string) => this.call<McpServer>("POST", `/api/mcp/servers/${encodeURIComponent(id)}/refresh`);
  mcpImportProposals = () => this.call<ImportList>("GET", "/api/mcp/import");
  importMcp = (req: ImportRequest) => this.call<McpServer[]>("POST", "/api/mcp/import", req);
  claimTicket = (ticketId: string, sessionId: string) =>
    this.call<Schemas["TicketClaimed"]>("POST", `/api/tickets/${encodeURIComponent(ticketId)}/claim`, { sessionId } satisfies Schemas["ClaimTicket"]);
  ackTicket = (ticketId: string) => this.call<Schemas["TicketAcked"]>("POST", `/api/tickets/${encodeURIComponent(ticketId)}/ack`);
  preview = (sessionId: string, path: string) =>
    this.call<Preview>("GET", `/api/sessions/${sessionId}/preview?path=${encodeURIComponent(path)}`);
  /** One folder of the session's project (the root when `path` is absent or `.`). */
  folder = (sessionId: string, path?: string) =>
    this.call<FolderView>("GET", `/api/sessions/${sessionId}/folder${path && path !== "." ? `?path=${encodeURIComponent(path)}` : ""}`);
  tabs = (sessionId: string) => this.call<PreviewTab[]>("GET", `/api/sessions/${sessionId}/tabs`);
  openTab = (sessionId: string, tab: OpenTab) => this.call<PreviewTab>("POST", `/api/sessions/${sessionId}/tabs`, tab);
  activateTab = (tabId: string) => this.call<PreviewTab[]>("POST", `/api/tabs/${encodeURIComponent(tabId)}/activate`);
  /** Moves a tab to `index` in its session's order (past the end: the end); the tabs after. */
  moveTab = (tabId: string, index: number) => this.call<PreviewTab[]>("POST", `/api/tabs/${encodeURIComponent(tabId)}/move`, { index } satisfies Schemas["MoveTab"]);
  /** Takes a tab elsewhere in place (another folder or address, back, forward, reload); the tabs after. */
  navigateTab = (tabId: string, to: NavigateTab) => this.call<PreviewTab[]>("POST", `/api/tabs/${encodeURIComponent(tabId)}/navigate`, to);
  closeTab = (tabId: string) => this.call<Schemas["TabClosed"]>("DELETE", `/api/tabs/${encodeURIComponent(tabId)}`);
  answerDialog = (dialogId: string, accept: boolean) => this.call<void>("POST", `/api/dialogs/${encodeURIComponent(dialogId)}`, { accept } satisfies Schemas["AnswerDialog"]);
  /** Brings the real browser window of a native web tab to the front. */
  frontTab = (tabId: string) => this.call<void>("POST", `/api/tabs/${encodeURIComponent(tabId)}/front`);
  /** A GET whose answer is not JSON, as a blob; `orNull` answers null for that status. */
  private async blob(path: string, orNull?: number, signal?: AbortSignal): Promise<Blob | null> {
    const r = await fetch(path, { headers: { Authorization: `Bearer ${this.token}` }, signal });
    if (r.status === orNull) return null;
    if (r.status === 401) this.onUnauthorized();
    if (!r.ok) {
      const data = (await r.json().catch(() => null)) as { error?: string; message?: string } | null;
      throw new ApiError(r.status, data?.error ?? "error", data?.message ?? `HTTP ${r.status}`);
    }
    return r.blob();
  }

  /** The session as Markdown (what `exportSession` says it holds). */
  exportSession = async (id: string): Promise<Blob> => (await this.blob(`/api/sessions/${encodeURIComponent(id)}/export`))!;

  /** The latest live-view frame of a native web tab (JPEG), or null when there is none yet (404). */
  /** The live view's latest frame; `view` (the panel's size in CSS pixels) fits a headless page to it first. */
  tabScreen = (tabId: string, view?: { width: number; height: number }, signal?: AbortSignal) =>
    this.blob(`/api/tabs/${encodeURIComponent(tabId)}/screen${view ? `?width=${view.width}&height=${view.height}` : ""}`, 404, signal);

  /** Follows a session's events from `after`; returns a function that stops. Reconnects after a
   * drop, resuming from the last sequence number seen. Live events with another name (`tabs`,
   * `dialog`, `open_ticket`: no seq of their own) go to `onLive`, parsed. */
  follow(
    sessionId: string,
    after: number,
    onEvent: (e: WispEvent) => void,
    onDelta: (d: Delta) => void,
    /** Live events that are not stored (`tabs`, `dialog`, …): carry no `seq`. */
    onLive: (name: string, data: unknown) => void = () => {},
  ): () => void {
    let last = after;
    return this.stream(
      () => `/api/sessions/${sessionId}/events?after=${last}`,
      (name, data) => {
        if (name === "delta") onDelta(JSON.parse(data) as Delta);
        else if (name !== "message") onLive(name, JSON.parse(data));
        else {
          const e = JSON.parse(data) as WispEvent;
          last = Math.max(last, e.seq);
          onEvent(e);
        }
      },
    );
  }

  /** Follows the session list: `onChange` gets its state at connect (and again after every
   * reconnect) and after every change. Returns a function that stops. */
  followSessions(onChange: (c: SessionsChanged) => void): () => void {
    return this.stream(
      () => "/api/events",
      (name, data) => {
        if (name === "sessions") onChange(JSON.parse(data) as SessionsChanged);
      },
    );
  }

  /** Reads one of the Host's event streams until stopped, connecting again a second after a
   * drop; `path` is asked on each connect, so a stream can resume where it left off. */
  private stream(path: () => string, onEvent: (name: string, data: string) => void): () => void {
    const stop = new AbortController();
    const loop = async () => {
      while (!stop.signal.aborted) {
        try {
          const r = await fetch(path(), {
            headers: { Authorization: `Bearer ${this.token}` },
            signal: stop.signal,
          });
          if (r.status === 401) {
            this.onUnauthorized();
            return;
          }
          if (!r.ok || !r.body) throw new Error(`events: HTTP ${r.status}`);
          const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
          const parser = new SseParser(onEvent);
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            parser.feed(value);
          }
        } catch {
          if (stop.signal.aborted) return;
        }
        await new Promise((res) => setTimeout(res, 1000));
      }
    };
    void loop();
    return () => stop.abort();
  }
}

/** Server-sent events framing: lines, `event:`/`data:` fields, blank line dispatches. */
export class SseParser {
  private buf = "";
  private name = "";
  private data: string[] = [];
  constructor(private emit: (name: string, data: string) => void) {}

  feed(chunk: string) {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.search(/\r\n|\r|\n/)) >= 0) {
      // A CR at the very end may be the first half of a CRLF: wait for the next piece.
      if (this.buf[nl] === "\r" && nl === this.buf.length - 1) break;
      const line = this.buf.slice(0, nl);
      const len = this.buf.startsWith("\r\n", nl) ? 2 : 1;
      this.buf = this.buf.slice(nl + len);
      if (line === "") {
        if (this.data.length) this.emit(this.name || "message", this.data.join("\n"));
        this.name = "";
        this.data = [];
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") this.data.push(value);
        else if (field === "event") this.name = value;
      }
    }
  }
}
