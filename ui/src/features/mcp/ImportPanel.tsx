// Import into Settings → Local MCP: the servers the Host found in Claude Desktop, Cursor and the
// project's VS Code config, each with its source file, command as an argument list and variable
// names. The person picks which to import; they arrive disabled. When one has variables, the
// person chooses where the values from those files go (OS secret store or only this session):
// nothing is chosen for them, and the Host stores nothing until they do.
import { useEffect, useState } from "react";
import { useT } from "../../i18n";
import { errorText } from "./errors";
import type { McpApi } from "./McpSettings";
import type { EnvStorage, ImportList } from "./types";

export function ImportPanel({ api, onDone, onCancel }: { api: Pick<McpApi, "mcpImportProposals" | "importMcp">; onDone: (n: number) => void; onCancel: () => void }) {
  const t = useT();
  const [found, setFound] = useState<ImportList | null>(null);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [storage, setStorage] = useState<EnvStorage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    api.mcpImportProposals().then(setFound, (e) => setLoadError(errorText(t, e)));
  }, [api, t]);

  const proposals = found?.proposals ?? null;
  const withEnv = proposals?.some((p) => picked.has(p.id) && p.env.length > 0) ?? false;
  const ready = picked.size > 0 && (!withEnv || storage !== null);
  const submit = async () => {
    setSaving(true);
    setError(null);
    try {
      await api.importMcp(withEnv && storage ? { ids: [...picked], envStorage: storage } : { ids: [...picked] });
      onDone(picked.size);
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="mcp-form mcp-import"
      aria-label={t("mcpImportTitle")}
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) void submit();
      }}
    >
      <h4>{t("mcpImportTitle")}</h4>
      {loadError && <p role="alert">{loadError}</p>}
      {!proposals && !loadError && <p className="muted">{t("mcpImportLooking")}</p>}
      {found?.errors.map((e) => (
        <p key={e} className="warn small">
          {t("mcpImportUnreadable", { why: e })}
        </p>
      ))}
      {proposals && proposals.length === 0 && <p className="muted">{t("mcpImportNone")}</p>}
      {proposals && proposals.length > 0 && (
        <ul className="mcp-proposals">
          {proposals.map((p) => (
            <li key={p.id} className="mcp-proposal">
              <label className="mcp-check">
                <input
                  type="checkbox"
                  disabled={!!p.unsupported}
                  checked={picked.has(p.id)}
                  onChange={(e) => {
                    const next = new Set(picked);
                    if (e.target.checked) next.add(p.id);
                    else next.delete(p.id);
                    setPicked(next);
                  }}
                />
                <strong>{p.name}</strong>
                <span className="muted small">
                  {t(`mcpSource_${p.source}`)} · <code>{p.file}</code>
                </span>
              </label>
              {p.unsupported ? (
                <p className="warn small">{t("mcpImportUnsupported", { why: p.unsupported })}</p>
              ) : (
                <>
                  <ol className="argv" aria-label={t("mcpArgv")}>
                    <li>
                      <code>{p.command}</code>
                    </li>
                    {p.args.map((a, i) => (
                      <li key={i}>
                        <code>{a}</code>
                      </li>
                    ))}
                  </ol>
                  {p.cwd && (
                    <p className="small">
                      <span className="muted">{t("mcpCwd")}{t("colon")}</span> <code>{p.cwd}</code>
                    </p>
                  )}
                  {p.env.length > 0 && (
                    <p className="small">
                      <span className="muted">{t("mcpEnv")}{t("colon")}</span> {p.env.join(", ")}
                    </p>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {withEnv && (
        <fieldset className="mcp-list">
          <legend>{t("mcpImportValues")}</legend>
          {(["keyring", "session"] as const).map((s) => (
            <label key={s} className="mcp-check">
              <input type="radio" name="mcp-import-storage" checked={storage === s} onChange={() => setStorage(s)} />
              {t(`mcpImportValues_${s}`)}
            </label>
          ))}
          <p className="muted small">{t("mcpImportValuesNote")}</p>
        </fieldset>
      )}
      <p className="muted small">{t("mcpImportDisabled")}</p>
      {error && (
        <p role="alert" className="mcp-error">
          {error}
        </p>
      )}
      <div className="dialog-buttons">
        <button type="button" onClick={onCancel}>
          {t("cancel")}
        </button>
        <button type="submit" className="primary" disabled={!ready || saving}>
          {t("mcpImportPicked", { n: picked.size })}
        </button>
      </div>
    </form>
  );
}
