// Import into Settings → Local MCP: the servers the Host found in Claude Desktop, Cursor and the
// project's VS Code config, each with its source file, command as an argument list and variable
// names. The person picks which to import; they arrive disabled, and the values of their
// variables go to the OS secret store only when the person ticks that box.
import { useEffect, useState } from "react";
import { useT, type Key } from "../../i18n";
import { errorText } from "./errors";
import type { McpApi } from "./McpSettings";
import type { ImportProposal } from "./types";

export function ImportPanel({ api, onDone, onCancel }: { api: Pick<McpApi, "mcpImportProposals" | "importMcp">; onDone: (n: number) => void; onCancel: () => void }) {
  const t = useT();
  const [proposals, setProposals] = useState<ImportProposal[] | null>(null);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [storeSecrets, setStoreSecrets] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    api.mcpImportProposals().then(setProposals, (e) => setLoadError(errorText(t, e)));
  }, [api, t]);

  const withEnv = proposals?.some((p) => picked.has(p.id) && p.env.length > 0) ?? false;
  const submit = async () => {
    setSaving(true);
    setError(null);
    try {
      await api.importMcp({ ids: [...picked], storeSecrets: withEnv && storeSecrets });
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
        if (picked.size > 0) void submit();
      }}
    >
      <h4>{t("mcpImportTitle")}</h4>
      {loadError && <p role="alert">{loadError}</p>}
      {!proposals && !loadError && <p className="muted">{t("mcpImportLooking")}</p>}
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
                  {t(`mcpSource_${p.source}` as Key)} · <code>{p.file}</code>
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
                      <span className="muted">{t("mcpCwd")}:</span> <code>{p.cwd}</code>
                    </p>
                  )}
                  {p.env.length > 0 && (
                    <p className="small">
                      <span className="muted">{t("mcpEnv")}:</span> {p.env.join(", ")}
                    </p>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {withEnv && (
        <label className="mcp-check">
          <input type="checkbox" checked={storeSecrets} onChange={(e) => setStoreSecrets(e.target.checked)} />
          {t("mcpImportStoreSecrets")}
        </label>
      )}
      {withEnv && <p className="muted small">{storeSecrets ? t("mcpImportSecretsYes") : t("mcpImportSecretsNo")}</p>}
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
        <button type="submit" className="primary" disabled={picked.size === 0 || saving}>
          {t("mcpImportPicked", { n: picked.size })}
        </button>
      </div>
    </form>
  );
}
