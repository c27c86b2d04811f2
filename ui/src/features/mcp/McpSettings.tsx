// Settings → Local MCP (MCP-02..09, MCP-16..21, UI-08, UI-09): the configured servers
// with their command as an argument list, directory, variable names (never values), status and
// tools; add, edit, import, trust and activate, disable, refresh, delete. Trusting a server is a
// deliberate act: an inline confirmation that says the program runs with the person's rights,
// reached only by moving to it (no focus taken, no default button, no shortcut). The page holds
// no truth of its own: after every action it shows what the Host reports.
import { useCallback, useEffect, useRef, useState } from "react";
import { useT, type Key } from "../../i18n";
import { errorText } from "./errors";
import { ImportPanel } from "./ImportPanel";
import { ServerForm } from "./ServerForm";
import type { ImportList, ImportRequest, McpServer, ServerBody } from "./types";

/** The calls this page makes (the Host's `Api` has them). */
export interface McpApi {
  mcpServers(): Promise<McpServer[]>;
  addMcpServer(body: ServerBody): Promise<McpServer>;
  updateMcpServer(id: string, body: ServerBody): Promise<McpServer>;
  deleteMcpServer(id: string): Promise<void>;
  activateMcpServer(id: string): Promise<unknown>;
  disableMcpServer(id: string): Promise<unknown>;
  refreshMcpServer(id: string): Promise<unknown>;
  mcpImportProposals(): Promise<ImportList>;
  importMcp(req: ImportRequest): Promise<unknown>;
  /** The model settings, for what the Host already knows of the secret store (optional: the
   * QA page has no Host). */
  settings?(): Promise<{ keyringProblem: { kind: string } | null }>;
}

/** How often the list is asked again while a server runs: its tools can change by themselves
 * (`notifications/tools/list_changed`, MCP-07) and a start can end. */
export const POLL_MS = 3000;

type Action = "activate" | "disable" | "refresh" | "delete";

/** `label` names the page's region where more than one is shown (the QA page's samples). */
export function McpSettingsPage({ api, label }: { api: McpApi; label?: string }) {
  const t = useT();
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  // "new", a server id being edited, or nothing.
  const [editing, setEditing] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [busy, setBusy] = useState<Record<string, Action>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [note, setNote] = useState<string | null>(null);
  // Learned from the Host's model settings or from a refused save, whichever comes first.
  const [storeUnavailable, setStoreUnavailable] = useState(false);
  // Where the focus goes back to when a form closes (the button that opened it).
  const returnFocus = useRef<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setServers(await api.mcpServers());
      setLoadError(null);
    } catch (e) {
      setLoadError(errorText(t, e));
    }
  }, [api, t]);

  useEffect(() => {
    void reload();
  }, [reload]);

  useEffect(() => {
    let stale = false;
    api
      .settings?.()
      .then((s) => !stale && s.keyringProblem?.kind === "secret_store_unavailable" && setStoreUnavailable(true))
      // Not knowing is the default: the store is offered, and a refused save says so.
      .catch(() => {});
    return () => {
      stale = true;
    };
  }, [api]);

  const running = servers?.some((s) => s.enabled || s.status === "starting") ?? false;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void reload(), POLL_MS);
    return () => clearInterval(timer);
  }, [running, reload]);

  useEffect(() => {
    if (editing !== null || importing || !returnFocus.current) return;
    document.getElementById(returnFocus.current)?.focus();
    returnFocus.current = null;
  }, [editing, importing]);

  const closeForm = (focus: string) => {
    returnFocus.current = focus;
    setEditing(null);
  };

  const act = async (s: McpServer, action: Action) => {
    let gone = false;
    setBusy((b) => ({ ...b, [s.id]: action }));
    setErrors(({ [s.id]: _, ...rest }) => rest);
    setNote(null);
    try {
      if (action === "activate") await api.activateMcpServer(s.id);
      else if (action === "disable") await api.disableMcpServer(s.id);
      else if (action === "refresh") await api.refreshMcpServer(s.id);
      else {
        await api.deleteMcpServer(s.id);
        setNote(t("mcpDeleted", { name: s.name }));
        gone = true;
      }
    } catch (e) {
      setErrors((x) => ({ ...x, [s.id]: errorText(t, e) }));
    } finally {
      setBusy(({ [s.id]: _, ...rest }) => rest);
    }
    await reload();
    // The entry that held the focus is gone: it goes to the page's first button.
    if (gone) document.getElementById("mcp-add")?.focus();
  };

  const save = async (server: McpServer | undefined, body: ServerBody) => {
    if (server) await api.updateMcpServer(server.id, body);
    else await api.addMcpServer(body);
    setNote(t("mcpSaved", { name: body.name }));
    closeForm(server ? `mcp-edit-${server.id}` : "mcp-add");
    await reload();
  };

  return (
    <section className="mcp-settings" aria-label={label ?? t("mcpSettings")}>
      <h3>{t("mcpSettings")}</h3>
      <p className="muted small">{t("mcpIntro")}</p>
      <div className="buttons">
        <button
          type="button"
          id="mcp-add"
          aria-expanded={editing === "new"}
          onClick={() => {
            setImporting(false);
            setEditing("new");
          }}
        >
          {t("mcpAdd")}
        </button>
        <button type="button" id="mcp-import" aria-expanded={importing} onClick={() => (returnFocus.current = "mcp-import", setEditing(null), setImporting(!importing))}>
          {t("mcpImport")}
        </button>
      </div>
      {editing === "new" && <ServerForm onSave={(b) => save(undefined, b)} onCancel={() => closeForm("mcp-add")} storeUnavailable={storeUnavailable} onStoreUnavailable={() => setStoreUnavailable(true)} />}
      {importing && (
        <ImportPanel
          api={api}
          onDone={(n) => {
            setImporting(false);
            setNote(t("mcpImported", { n }));
            void reload();
          }}
          onCancel={() => setImporting(false)}
        />
      )}
      {note && (
        <p role="status" className="muted small">
          {note}
        </p>
      )}
      {loadError && <p role="alert">{loadError}</p>}
      {servers && servers.length === 0 && <p className="muted">{t("mcpNone")}</p>}
      {servers && servers.length > 0 && (
        <ul className="mcp-servers" aria-label={t("mcpServers")}>
          {servers.map((s) =>
            editing === s.id ? (
              <li key={s.id} className="mcp-server">
                <ServerForm
                  server={s}
                  onSave={(b) => save(s, b)}
                  onCancel={() => closeForm(`mcp-edit-${s.id}`)}
                  storeUnavailable={storeUnavailable}
                  onStoreUnavailable={() => setStoreUnavailable(true)}
                />
              </li>
            ) : (
              <ServerItem
                key={s.id}
                server={s}
                busy={busy[s.id]}
                error={errors[s.id]}
                onEdit={() => {
                  setImporting(false);
                  setEditing(s.id);
                }}
                onAction={(a) => void act(s, a)}
              />
            ),
          )}
        </ul>
      )}
    </section>
  );
}

function StatusLine({ server, busy }: { server: McpServer; busy?: Action }) {
  const t = useT();
  const status = busy === "activate" ? "starting" : server.status;
  let text: string;
  if (status === "active") text = t("mcpStatus_active", { n: server.tools.length });
  else if (status === "failed") text = t("mcpStatus_failed", { error: server.error ?? "" });
  else if (status === "starting" || status === "disabled") text = t(`mcpStatus_${status}`);
  else text = String(status);
  return (
    <p className={`mcp-status mcp-status-${status}`} data-testid="mcp-status" aria-live="polite">
      {text}
    </p>
  );
}

function ServerItem({ server: s, busy, error, onEdit, onAction }: { server: McpServer; busy?: Action; error?: string; onEdit: () => void; onAction: (a: Action) => void }) {
  const t = useT();
  const [confirm, setConfirm] = useState<null | "trust" | "delete">(null);
  const head = `mcp-name-${s.id}`;
  const running = s.enabled || s.status === "starting";
  const item = useRef<HTMLLIElement>(null);
  const ask = (what: "trust" | "delete") => setConfirm(confirm === what ? null : what);
  // A confirmation's buttons vanish with it; the focus goes back to the button that opened it
  // (cancel) or to the server's entry (confirmed: its buttons are busy, then change).
  const cancel = () => {
    const opener = confirm;
    setConfirm(null);
    item.current?.querySelector<HTMLButtonElement>(`[aria-controls="mcp-${opener}-${s.id}"]`)?.focus();
  };
  const confirmed = (a: Action) => {
    setConfirm(null);
    item.current?.focus();
    onAction(a);
  };
  return (
    <li ref={item} tabIndex={-1} className="mcp-server" aria-labelledby={head}>
      <div className="mcp-server-head">
        <h4 id={head}>{s.name}</h4>
        <StatusLine server={s} busy={busy} />
      </div>
      <div className="mcp-detail">
        <span className="muted small">{t("mcpArgv")}</span>
        <ol className="argv" aria-label={t("mcpArgv")}>
          <li>
            <code>{s.command}</code>
          </li>
          {s.args.map((a, i) => (
            <li key={i}>
              <code>{a === "" ? <span className="muted">{t("mcpEmptyArg")}</span> : a}</code>
            </li>
          ))}
        </ol>
      </div>
      <p className="mcp-detail small">
        <span className="muted">{t("mcpCwd")}{t("colon")}</span> {s.cwd ? <code>{s.cwd}</code> : <span className="muted">{t("mcpNoCwd")}</span>}
      </p>
      <p className="mcp-detail small" data-testid="mcp-env">
        <span className="muted">{t("mcpEnv")}{t("colon")}</span>{" "}
        {s.env.length === 0 ? (
          <span className="muted">{t("mcpNoEnv")}</span>
        ) : (
          s.env.map((v, i) => (
            <span key={v.name}>
              {i > 0 && ", "}
              <code>{v.name}</code> ({t(`mcpStorage_${v.storage}` as Key)})
            </span>
          ))
        )}
      </p>
      {s.tools.length > 0 && (
        <ul className="mcp-tools" aria-label={t("mcpToolsOf", { name: s.name })}>
          {s.tools.map((tool) => (
            <li key={tool.modelName}>
              <span className="mcp-tool-name">
                {s.name} · <strong>{tool.originalName}</strong>
              </span>{" "}
              <code className="muted small" title={t("mcpModelName")}>
                {tool.modelName}
              </code>
              {tool.description && <p className="muted small mcp-tool-desc">{tool.description}</p>}
            </li>
          ))}
        </ul>
      )}
      {(s.unsupportedTools ?? []).length > 0 && (
        <div className="mcp-detail" data-testid="mcp-unsupported">
          <span className="muted small">{t("mcpUnsupportedTools")}</span>
          <ul className="mcp-tools" aria-label={t("mcpUnsupportedToolsOf", { name: s.name })}>
            {s.unsupportedTools.map((tool) => (
              <li key={tool.originalName}>
                <span className="mcp-tool-name">
                  {s.name} · <strong>{tool.originalName}</strong>
                </span>
                <p className="warn small">{t("mcpUnsupportedWhy", { why: tool.reason })}</p>
                {tool.description && <p className="muted small mcp-tool-desc">{tool.description}</p>}
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="mcp-detail small" data-testid="mcp-call-limit">
        <span className="muted">{t("mcpCallLimit")}{t("colon")}</span> {t("mcpCallLimitValue", { n: s.callLimitSecs })}
        {s.protocolVersion && (
          <>
            {" · "}
            <span className="muted">{t("mcpProtocol")}{t("colon")}</span> <code>{s.protocolVersion}</code>
          </>
        )}
      </p>
      <div className="buttons mcp-actions">
        <button type="button" id={`mcp-edit-${s.id}`} onClick={onEdit} disabled={!!busy}>
          {t("mcpEdit")}
        </button>
        {running ? (
          <button type="button" onClick={() => onAction("disable")} disabled={!!busy}>
            {t("mcpDisable")}
          </button>
        ) : (
          <button type="button" aria-expanded={confirm === "trust"} aria-controls={`mcp-trust-${s.id}`} onClick={() => ask("trust")} disabled={!!busy}>
            {t("mcpTrustAsk")}
          </button>
        )}
        {s.status === "active" && (
          <button type="button" onClick={() => onAction("refresh")} disabled={!!busy}>
            {busy === "refresh" ? t("mcpRefreshing") : t("mcpRefresh")}
          </button>
        )}
        <button type="button" aria-expanded={confirm === "delete"} aria-controls={`mcp-delete-${s.id}`} onClick={() => ask("delete")} disabled={!!busy}>
          {t("mcpDeleteAsk")}
        </button>
      </div>
      {/* Inline, after the button that opened it: the focus stays where the person put it, so a
          repeated Enter or Space cannot confirm; they move here with Tab or the pointer. */}
      {confirm === "trust" && !running && (
        <div id={`mcp-trust-${s.id}`} role="group" aria-labelledby={`mcp-trust-title-${s.id}`} className="mcp-confirm mcp-confirm-trust">
          <p id={`mcp-trust-title-${s.id}`}>
            <strong>{t("mcpTrustTitle", { name: s.name })}</strong>
          </p>
          <p>{t("mcpTrustBody", { command: s.command })}</p>
          <p className="small">{t("mcpTrustCalls")}</p>
          <div className="buttons">
            <button type="button" onClick={cancel}>
              {t("cancel")}
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => confirmed("activate")}
            >
              {t("mcpTrust")}
            </button>
          </div>
        </div>
      )}
      {confirm === "delete" && (
        <div id={`mcp-delete-${s.id}`} role="group" aria-labelledby={`mcp-delete-title-${s.id}`} className="mcp-confirm">
          <p id={`mcp-delete-title-${s.id}`}>
            <strong>{t("mcpDeleteTitle", { name: s.name })}</strong>
          </p>
          <p>{t("mcpDeleteBody")}</p>
          <div className="buttons">
            <button type="button" onClick={cancel}>
              {t("cancel")}
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => confirmed("delete")}
            >
              {t("delete")}
            </button>
          </div>
        </div>
      )}
      {/* A refusal the status line already says is not said twice. */}
      {error && !(s.status === "failed" && s.error === error) && (
        <p role="alert" className="mcp-error">
          {error}
        </p>
      )}
    </li>
  );
}
