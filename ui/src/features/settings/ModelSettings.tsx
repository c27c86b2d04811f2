// Settings → Model: provider, base URL, model (picked from what the endpoint offers, or typed),
// thinking and effort, the API key (shown only as "set", with replace and remove), Test
// connection, where each value comes from, and the prices behind cost estimates.
import { useEffect, useState } from "react";
import { useT, type Key } from "../../i18n";
import { failureText } from "./problem";
import type { ConnectionTest, Effort, ModelSettings as Settings, Provider, SettingSource, ThinkingMode, UpdateSettings } from "./types";

/** The calls this page makes (the Host's `Api` has them). */
export interface SettingsApi {
  settings(): Promise<Settings>;
  updateSettings(s: UpdateSettings): Promise<Settings>;
  setApiKey(value: string, storage: "keyring" | "process"): Promise<Settings>;
  deleteApiKey(): Promise<Settings>;
  testConnection(): Promise<ConnectionTest>;
}

function Source({ source }: { source: SettingSource }) {
  const t = useT();
  if (source === "env") return <span className="badge source-env">{t("fromEnv")}</span>;
  if (source === "flag") return <span className="badge source-flag">{t("fromFlag")}</span>;
  return null;
}

/** The form's values for saved settings. */
function draftOf(s: Settings): UpdateSettings {
  return {
    provider: s.provider,
    baseUrl: s.provider === "simulation" ? null : s.baseUrl || null,
    model: s.model,
    thinking: s.thinking,
    reasoningEffort: s.reasoningEffort,
    prices: s.sources.prices === "stored" ? s.prices : null,
  };
}

export function ModelSettingsPage({ api, onChanged }: { api: SettingsApi; onChanged?: () => void }) {
  const t = useT();
  const [s, setS] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<UpdateSettings | null>(null);
  const [test, setTest] = useState<ConnectionTest | null>(null);
  const [testing, setTesting] = useState(false);
  const [replacing, setReplacing] = useState(false);
  const [key, setKey] = useState("");
  const [storage, setStorage] = useState<"keyring" | "process">("keyring");
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const take = (next: Settings) => {
    setS(next);
    setDraft(draftOf(next));
    if (next.keyringProblem) setStorage("process");
  };
  const fail = (e: unknown) => {
    const code = (e as { code?: string }).code;
    setError(code === "secret_store_unavailable" ? t("failure_secret_store_unavailable") : e instanceof Error ? e.message : String(e));
  };
  useEffect(() => {
    api.settings().then(take).catch(fail);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api]);

  if (!s || !draft) return error ? <p role="alert">{error}</p> : null;
  const set = (patch: Partial<UpdateSettings>) => setDraft({ ...draft, ...patch });
  const changed = (next: Settings) => {
    take(next);
    setError(null);
    setTest(null);
    onChanged?.();
  };
  const runTest = async () => {
    setTesting(true);
    try {
      setTest(await api.testConnection());
      onChanged?.();
    } catch (e) {
      fail(e);
    } finally {
      setTesting(false);
    }
  };
  const price = s.prices.models[draft.model];
  const offered = test?.models ?? [];
  // `wisp serve --simulate` pins the simulator: nothing here would change what answers, so the
  // form only shows it.
  const pinned = s.sources.provider === "flag";
  // Test connection checks what the Host uses, which is what was saved: with unsaved changes
  // it would test something other than what the form shows.
  const unsaved = JSON.stringify(draft) !== JSON.stringify(draftOf(s));

  return (
    <section className="model-settings" aria-label={t("modelSettings")}>
      <h3>{t("modelSettings")}</h3>
      {pinned && (
        <p className="pinned-note" role="note">
          {t("simulatePinned")}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          api
            .updateSettings({ ...draft, baseUrl: draft.provider === "simulation" ? null : draft.baseUrl })
            .then((next) => {
              changed(next);
              setNote(t("saved"));
            })
            .catch(fail);
        }}
      >
        <fieldset className="plain" disabled={pinned}>
          <label className="setting">
            {t("provider")} <Source source={s.sources.provider} />
            <select aria-label={t("provider")} value={draft.provider} onChange={(e) => set({ provider: e.target.value as Provider })}>
              {(["simulation", "deepseek", "openai_compatible"] as Provider[]).map((p) => (
                <option key={p} value={p}>
                  {t(`provider_${p}` as Key)}
                </option>
              ))}
            </select>
          </label>
          <p className="muted small">{t(`providerHelp_${draft.provider}` as Key)}</p>
          {draft.provider !== "simulation" && (
            <label className="setting">
              {t("baseUrl")} <Source source={s.sources.baseUrl} />
              <input
                aria-label={t("baseUrl")}
                value={draft.baseUrl ?? ""}
                placeholder={draft.provider === "deepseek" ? "https://api.deepseek.com" : "http://127.0.0.1:11434/v1"}
                onChange={(e) => set({ baseUrl: e.target.value.trim() || null })}
                maxLength={2048}
              />
            </label>
          )}
          <label className="setting">
            {t("modelName")} <Source source={s.sources.model} />
            <input aria-label={t("modelName")} list="wisp-offered-models" value={draft.model} onChange={(e) => set({ model: e.target.value.trim() })} maxLength={200} required />
            <datalist id="wisp-offered-models">
              {offered.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
          </label>
          {draft.provider !== "openai_compatible" && (
            <>
              <label className="setting">
                {t("thinkingMode")}
                <select aria-label={t("thinkingMode")} value={draft.thinking} onChange={(e) => set({ thinking: e.target.value as ThinkingMode })}>
                  <option value="enabled">{t("thinking_enabled")}</option>
                  <option value="disabled">{t("thinking_disabled")}</option>
                </select>
              </label>
              {draft.thinking === "enabled" && (
                <label className="setting">
                  {t("effort")}
                  <select
                    aria-label={t("effort")}
                    value={draft.reasoningEffort ?? ""}
                    onChange={(e) => set({ reasoningEffort: (e.target.value || null) as Effort | null })}
                  >
                    <option value="">{t("effort_default")}</option>
                    <option value="high">{t("effort_high")}</option>
                    <option value="max">{t("effort_max")}</option>
                  </select>
                </label>
              )}
            </>
          )}
          {!pinned && (
            <div className="dialog-buttons">
              <button type="submit" className="primary">
                {t("saveSettings")}
              </button>
            </div>
          )}
        </fieldset>
      </form>

      <div className="setting api-key">
        <span>
          {t("apiKeyIs")}
          <strong data-testid="key-state">{s.apiKey.set ? t("keySet", { s: t(`storage_${s.apiKey.storage}` as Key) }) : draft.provider === "openai_compatible" ? t("keyOptional") : t("keyNotSet")}</strong>{" "}
          <Source source={s.sources.apiKey} />
        </span>
        {!replacing ? (
          <span>
            <button type="button" onClick={() => setReplacing(true)} disabled={pinned}>
              {t("replaceKey")}
            </button>
            {s.apiKey.set && s.apiKey.storage !== "env" && (
              <button type="button" onClick={() => api.deleteApiKey().then(changed).catch(fail)}>
                {t("removeKey")}
              </button>
            )}
          </span>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              api
                .setApiKey(key.trim(), storage)
                .then((next) => {
                  // The key leaves the page once the Host has it.
                  setKey("");
                  setReplacing(false);
                  changed(next);
                })
                .catch((e) => {
                  fail(e);
                  // The Host opens the OS store only when a key goes there (MCP-18): once it
                  // is found unreachable, the page learns why and offers this session instead.
                  if ((e as { code?: string }).code === "secret_store_unavailable") {
                    setStorage("process");
                    api.settings().then(setS).catch(() => {});
                  }
                });
            }}
          >
            <input aria-label={t("newKey")} type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} maxLength={512} required />
            <label>
              {t("keepIn")}{" "}
              <select aria-label={t("keepIn")} value={storage} onChange={(e) => setStorage(e.target.value as "keyring" | "process")}>
                <option value="keyring" disabled={!!s.keyringProblem}>
                  {t("storage_keyring")}
                </option>
                <option value="process">{t("storage_process")}</option>
              </select>
            </label>
            <button type="submit" className="primary">
              {t("saveKey")}
            </button>
            <button type="button" onClick={() => (setReplacing(false), setKey(""))}>
              {t("cancel")}
            </button>
          </form>
        )}
        {s.keyringProblem && <p className="muted small">{failureText(t, s.keyringProblem)}</p>}
      </div>

      <div className="setting">
        <button type="button" onClick={runTest} disabled={testing || unsaved} aria-describedby={unsaved ? "test-unsaved" : undefined}>
          {testing ? t("testing") : t("testConnection")}
        </button>
        {unsaved && (
          <p id="test-unsaved" className="muted small">
            {t("testUnsaved")}
          </p>
        )}
        {test && (
          <p role="status" className={test.ok ? "ok" : "warn"} data-testid="test-outcome">
            {test.ok ? t("connectionOk", { m: test.models.join(", ") }) : test.problem ? failureText(t, test.problem) : null}
          </p>
        )}
      </div>

      <div className="prices muted small">
        <p>{t("prices", { c: s.prices.currency })}</p>
        {price ? (
          <p data-testid="price">
            {draft.model}: {price.cacheHit} / {price.cacheMiss} / {price.output}
          </p>
        ) : (
          <p data-testid="price">{draft.provider === "simulation" ? t("noCostSimulation") : t("noPrice")}</p>
        )}
        <p>{t("pricesSource", { s: s.prices.source, d: s.prices.asOf })}</p>
        {s.sources.prices === "default" && <p>{t("pricesDefault")}</p>}
      </div>
      {note && <p className="muted small">{note}</p>}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}
