// The add / edit form of Settings → Local MCP: name, command, the arguments as separate fields
// (MCP-03: nothing is ever split or joined as shell text), an optional absolute working
// directory, and the environment variables with where each value is kept (MCP-16..20).
// Editing never shows an old value; the variables are replaced as a whole set or kept as they
// are, and a changed command, argument list or working directory never carries old values over.
import { useEffect, useRef, useState } from "react";
import { useT } from "../../i18n";
import { errorText } from "./errors";
import type { EnvStorage, McpServer, ServerBody } from "./types";

interface ArgRow {
  key: number;
  value: string;
}
interface EnvRow {
  key: number;
  name: string;
  value: string;
  storage: EnvStorage;
}

let lastKey = 0;
const newKey = () => ++lastKey;

const sameLaunch = (s: McpServer, command: string, args: string[], cwd: string | null) =>
  s.command === command && (s.cwd ?? null) === cwd && s.args.length === args.length && s.args.every((a, i) => a === args[i]);

/** The Host's call limit for a server whose config sets none, and the most one may set
 * (crates/wisp-protocol/src/limits.rs). */
export const DEFAULT_CALL_LIMIT_SECS = 300;
export const MAX_CALL_LIMIT_SECS = 3600;

interface FormProps {
  server?: McpServer;
  onSave: (body: ServerBody) => Promise<void>;
  onCancel: () => void;
  /** The system's secret store is known to be out of reach: new variables default to this
   * session, and the store cannot be chosen (as Settings → Model does for the key). */
  storeUnavailable?: boolean;
  /** A save was refused because the store cannot be reached. */
  onStoreUnavailable?: () => void;
}

export function ServerForm({ server, onSave, onCancel, storeUnavailable = false, onStoreUnavailable }: FormProps) {
  const t = useT();
  const [name, setName] = useState(server?.name ?? "");
  const [command, setCommand] = useState(server?.command ?? "");
  const [args, setArgs] = useState<ArgRow[]>(() => (server?.args ?? []).map((value) => ({ key: newKey(), value })));
  const [cwd, setCwd] = useState(server?.cwd ?? "");
  // Empty: the Host's default. Shown as the server has it, so an edit keeps it.
  const [limit, setLimit] = useState(server && server.callLimitSecs !== DEFAULT_CALL_LIMIT_SECS ? String(server.callLimitSecs) : "");
  // Never the old values: an edit starts with no variable rows at all.
  const [env, setEnv] = useState<EnvRow[]>([]);
  const [replace, setReplace] = useState(false);
  const [error, setError] = useState<{ text: string; noStore: boolean } | null>(null);
  const [saving, setSaving] = useState(false);
  const focusKey = useRef<number | null>(null);
  const form = useRef<HTMLFormElement>(null);

  // A field the person just added takes the focus: they asked for it.
  useEffect(() => {
    if (focusKey.current === null) return;
    form.current?.querySelector<HTMLInputElement>(`[data-row="${focusKey.current}"]`)?.focus();
    focusKey.current = null;
  });

  const argv = args.map((a) => a.value);
  const dir = cwd.trim() || null;
  const oldEnv = server?.env ?? [];
  const launchChanged = !!server && !sameLaunch(server, command.trim(), argv, dir);
  // Whether this save sends a variable set (replacing the stored one) or keeps it.
  const sendsEnv = !server || oldEnv.length === 0 || replace || launchChanged;

  const addArg = () => {
    const key = newKey();
    focusKey.current = key;
    setArgs([...args, { key, value: "" }]);
  };
  const moveArg = (i: number, by: number) => {
    const next = [...args];
    const [row] = next.splice(i, 1);
    next.splice(i + by, 0, row!);
    setArgs(next);
  };
  const addEnv = () => {
    const key = newKey();
    focusKey.current = key;
    setEnv([...env, { key, name: "", value: "", storage: storeUnavailable ? "session" : "keyring" }]);
  };
  const setEnvRow = (key: number, patch: Partial<EnvRow>) => setEnv(env.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  const submit = async () => {
    const body: ServerBody = { name: name.trim(), command: command.trim(), args: argv, cwd: dir };
    if (limit.trim() !== "") body.callLimitSecs = Number(limit.trim());
    if (sendsEnv) body.env = env.map((r) => ({ name: r.name.trim(), value: r.value, storage: r.storage }));
    setSaving(true);
    try {
      await onSave(body);
    } catch (e) {
      const noStore = (e as { code?: string }).code === "secret_store_unavailable";
      if (noStore) onStoreUnavailable?.();
      setError({ text: errorText(t, e), noStore });
    } finally {
      setSaving(false);
    }
  };

  const title = server ? t("mcpEditTitle", { name: server.name }) : t("mcpAddTitle");
  return (
    <form
      ref={form}
      className="mcp-form"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h4>{title}</h4>
      <p className="muted small">{t("mcpSecretsHint")}</p>
      <label className="mcp-field">
        {t("mcpName")}
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required />
      </label>
      <label className="mcp-field">
        {t("mcpCommand")}
        <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="/usr/bin/node" spellCheck={false} autoCapitalize="off" required aria-describedby="mcp-command-help" />
      </label>
      <p id="mcp-command-help" className="muted small">
        {t("mcpCommandHelp")}
      </p>

      <fieldset className="mcp-list">
        <legend>{t("mcpArgs")}</legend>
        <p className="muted small">{t("mcpArgsHelp")}</p>
        {args.length > 0 && (
          <ol>
            {args.map((a, i) => (
              <li key={a.key} className="mcp-row">
                <input
                  data-row={a.key}
                  aria-label={t("mcpArgN", { n: i + 1 })}
                  value={a.value}
                  spellCheck={false}
                  autoCapitalize="off"
                  onChange={(e) => setArgs(args.map((r) => (r.key === a.key ? { ...r, value: e.target.value } : r)))}
                />
                <button type="button" aria-label={t("mcpArgUp", { n: i + 1 })} title={t("mcpArgUp", { n: i + 1 })} disabled={i === 0} onClick={() => moveArg(i, -1)}>
                  ↑
                </button>
                <button type="button" aria-label={t("mcpArgDown", { n: i + 1 })} title={t("mcpArgDown", { n: i + 1 })} disabled={i === args.length - 1} onClick={() => moveArg(i, 1)}>
                  ↓
                </button>
                <button type="button" aria-label={t("mcpArgRemove", { n: i + 1 })} title={t("mcpArgRemove", { n: i + 1 })} onClick={() => setArgs(args.filter((r) => r.key !== a.key))}>
                  ×
                </button>
              </li>
            ))}
          </ol>
        )}
        <button type="button" onClick={addArg}>
          {t("mcpAddArg")}
        </button>
      </fieldset>

      <label className="mcp-field">
        {t("mcpCwd")}
        <input value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="/home/me/tools" spellCheck={false} autoCapitalize="off" aria-describedby="mcp-cwd-help" />
      </label>
      <p id="mcp-cwd-help" className="muted small">
        {t("mcpCwdHelp")}
      </p>

      <label className="mcp-field">
        {t("mcpCallLimit")}
        <input
          type="number"
          min={1}
          max={MAX_CALL_LIMIT_SECS}
          step={1}
          inputMode="numeric"
          value={limit}
          onChange={(e) => setLimit(e.target.value)}
          placeholder={String(DEFAULT_CALL_LIMIT_SECS)}
          aria-describedby="mcp-call-limit-help"
        />
      </label>
      <p id="mcp-call-limit-help" className="muted small">
        {t("mcpCallLimitHelp", { n: DEFAULT_CALL_LIMIT_SECS, max: MAX_CALL_LIMIT_SECS })}
      </p>

      <fieldset className="mcp-list" aria-describedby="mcp-env-note">
        <legend>{t("mcpEnv")}</legend>
        {server && <p className="muted small">{t("mcpEnvNeverShown")}</p>}
        {server && oldEnv.length > 0 && launchChanged && (
          <p className="warn small" data-testid="mcp-env-dropped">
            {t("mcpEnvDropped", { names: oldEnv.map((v) => v.name).join(", ") })}
          </p>
        )}
        {server && oldEnv.length > 0 && !launchChanged && (
          <label className="mcp-check">
            <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} />
            {t("mcpEnvReplace")}
          </label>
        )}
        {sendsEnv ? (
          <>
            <p id="mcp-env-note" className="muted small">
              {server ? t("mcpEnvReplaceNote") : t("mcpEnvNote")}
            </p>
            {env.length > 0 && (
              <ol>
                {env.map((r, i) => (
                  <li key={r.key} className="mcp-row mcp-env-row">
                    <input
                      data-row={r.key}
                      aria-label={t("mcpEnvName", { n: i + 1 })}
                      value={r.name}
                      placeholder="API_TOKEN"
                      spellCheck={false}
                      autoCapitalize="off"
                      required
                      onChange={(e) => setEnvRow(r.key, { name: e.target.value })}
                    />
                    <input aria-label={t("mcpEnvValue", { n: i + 1 })} placeholder={t("mcpEnvValuePlaceholder")} type="password" autoComplete="off" value={r.value} onChange={(e) => setEnvRow(r.key, { value: e.target.value })} />
                    <select aria-label={t("mcpEnvStorage", { n: i + 1 })} value={r.storage} onChange={(e) => setEnvRow(r.key, { storage: e.target.value as EnvStorage })}>
                      <option value="keyring" disabled={storeUnavailable && r.storage !== "keyring"}>
                        {t("mcpStorage_keyring")}
                      </option>
                      <option value="session">{t("mcpStorage_session")}</option>
                    </select>
                    <button type="button" aria-label={t("mcpEnvRemove", { n: i + 1 })} title={t("mcpEnvRemove", { n: i + 1 })} onClick={() => setEnv(env.filter((x) => x.key !== r.key))}>
                      ×
                    </button>
                  </li>
                ))}
              </ol>
            )}
            <button type="button" onClick={addEnv}>
              {t("mcpAddEnv")}
            </button>
            {storeUnavailable && <p className="muted small">{t("mcpStoreUnavailableNote")}</p>}
            {env.some((r) => r.storage === "session") && <p className="muted small">{t("mcpSessionNote")}</p>}
          </>
        ) : (
          <p id="mcp-env-note" className="muted small" data-testid="mcp-env-kept">
            {t("mcpEnvKept", { names: oldEnv.map((v) => `${v.name} (${t(`mcpStorage_${v.storage}`)})`).join(", ") })}
          </p>
        )}
      </fieldset>

      <p className="muted small">{t("mcpSaveDisables")}</p>
      {error && (
        <div role="alert" className="mcp-error">
          <p>{error.text}</p>
          {error.noStore && env.some((r) => r.storage === "keyring") && (
            <button
              type="button"
              onClick={() => {
                setEnv(env.map((r) => ({ ...r, storage: "session" })));
                setError(null);
              }}
            >
              {t("mcpUseSession")}
            </button>
          )}
        </div>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={onCancel}>
          {t("cancel")}
        </button>
        <button type="submit" className="primary" disabled={saving}>
          {server ? t("mcpSaveEdit") : t("mcpSaveNew")}
        </button>
      </div>
    </form>
  );
}
