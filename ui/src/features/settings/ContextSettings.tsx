// Settings → Model, on long sessions: the context window Wisp takes for the model in Settings
// (set here, known, what the endpoint lists, or a safe default) and a session's spending
// warning, with the choice to stop a session's runs there. The page shows what the Host
// reports (also after a save: its answer, not the form); a value the Host refuses is said,
// nothing stored.
import { useEffect, useId, useState } from "react";
import { useT, type Key } from "../../i18n";
import { errorText } from "../mcp/errors";
import type { Schemas } from "../../types";

type Values = Schemas["ContextSettings"];

/** The calls this page makes (the Host's `Api` has them). */
export interface ContextSettingsApi {
  contextSettings(): Promise<Values>;
  updateContextSettings(body: Schemas["UpdateContextSettings"]): Promise<Values>;
}

/** The bounds the Host takes (`wisp-protocol` limits). */
const MIN_WINDOW = 4096;
const MAX_WINDOW = 16_777_216;

interface Form {
  window: string;
  warning: string;
  stop: boolean;
}

function formOf(v: Values): Form {
  const set = v.windows[v.model];
  return { window: set === undefined ? "" : String(set), warning: v.spendingWarning === null ? "" : String(v.spendingWarning), stop: v.stopAtLimit };
}

/** `version` changes when the model settings may have: the page reads the Host again. */
export function ContextSettingsPage({ api, version }: { api: ContextSettingsApi; version?: number }) {
  const t = useT();
  const [shown, setShown] = useState<Values | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);
  const windowHelp = useId();
  const spendingHelp = useId();
  const show = (v: Values) => {
    setShown(v);
    setForm(formOf(v));
  };
  useEffect(() => {
    api
      .contextSettings()
      .then(show)
      .catch((e: unknown) => setError(errorText(t, e)));
  }, [api, t, version]);

  const save = async () => {
    if (!form || !shown) return;
    setSaving(true);
    setSaved(false);
    // Only the shown model's window is edited here; those set for other models stay.
    const { [shown.model]: _old, ...windows } = shown.windows;
    if (form.window.trim() !== "") windows[shown.model] = Number(form.window);
    try {
      show(
        await api.updateContextSettings({
          windows,
          spendingWarning: form.warning.trim() === "" ? null : Number(form.warning),
          stopAtLimit: form.stop,
        }),
      );
      setError(null);
      setSaved(true);
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setSaving(false);
    }
  };

  const edit = (next: Partial<Form>) => {
    setSaved(false);
    setForm((f) => (f ? { ...f, ...next } : f));
  };

  return (
    <section className="mcp-settings context-settings" aria-label={t("contextSettings")}>
      <h3>{t("contextSettings")}</h3>
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
      {form && shown && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label className="setting">
            <span>{t("contextWindowOf", { m: shown.model })}</span>
            <input
              type="number"
              inputMode="numeric"
              min={MIN_WINDOW}
              max={MAX_WINDOW}
              step={1}
              placeholder={t("contextWindowAuto")}
              aria-describedby={windowHelp}
              value={form.window}
              onChange={(e) => edit({ window: e.target.value })}
            />
          </label>
          <p className="muted small" id={windowHelp} data-testid="window-in-effect">
            {windowText(t, shown)}
          </p>
          <label className="setting">
            <span>{t("spendingWarning", { c: shown.currency })}</span>
            <input
              type="number"
              inputMode="decimal"
              min={0}
              step="any"
              placeholder={t("spendingWarningNone")}
              aria-describedby={spendingHelp}
              value={form.warning}
              onChange={(e) => edit({ warning: e.target.value })}
            />
          </label>
          <label className="mcp-check">
            <input type="checkbox" checked={form.stop} disabled={form.warning.trim() === ""} onChange={(e) => edit({ stop: e.target.checked })} />
            {t("stopAtLimit")}
          </label>
          <p className="muted small" id={spendingHelp}>
            {t("spendingHelp")}
          </p>
          <div className="dialog-buttons">
            {saved && (
              <span className="muted small" role="status">
                {t("contextSettingsSaved")}
              </span>
            )}
            <button type="submit" className="primary" disabled={saving}>
              {t("save")}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** What window Wisp takes for the model and why, in the person's language. */
export function windowText(t: ReturnType<typeof useT>, v: Values): string {
  const w = v.window.toLocaleString("en-US");
  const said = t(`windowFrom_${v.windowSource}` as Key, { w });
  return v.refusedAbove !== null ? `${said} ${t("windowRefused", { w })}` : said;
}
