// Settings → Undo: how long a change stays undoable and what is kept of the files changes
// replace, per file and per session. The page shows what the Host reports (also after a save:
// its answer, not the form); a value the Host refuses is said, nothing stored.
import { useEffect, useId, useState } from "react";
import { useT } from "../../i18n";
import { errorText } from "../mcp/errors";
import type { Schemas } from "../../types";

type Values = Schemas["UndoSettings"];

/** The calls this page makes (the Host's `Api` has them). */
export interface UndoSettingsApi {
  undoSettings(): Promise<Values>;
  updateUndoSettings(body: Schemas["UpdateUndoSettings"]): Promise<Values>;
}

/** The bounds the Host takes (`wisp-protocol` limits), for the fields' own hints. */
const FIELDS = [
  { key: "keepDays", label: "undoKeepDays", min: 1, max: 365 },
  { key: "maxFileMib", label: "undoMaxFileMib", min: 0, max: 64 },
  { key: "maxSessionMib", label: "undoMaxSessionMib", min: 0, max: 4096 },
] as const;

export function UndoSettingsPage({ api }: { api: UndoSettingsApi }) {
  const t = useT();
  const [shown, setShown] = useState<Values | null>(null);
  const [form, setForm] = useState<Record<keyof Values, string> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);
  const help = useId();
  const show = (v: Values) => {
    setShown(v);
    setForm({ keepDays: String(v.keepDays), maxFileMib: String(v.maxFileMib), maxSessionMib: String(v.maxSessionMib) });
  };
  useEffect(() => {
    api
      .undoSettings()
      .then(show)
      .catch((e: unknown) => setError(errorText(t, e)));
  }, [api, t]);

  const save = async () => {
    if (!form) return;
    setSaving(true);
    setSaved(false);
    try {
      show(await api.updateUndoSettings({ keepDays: Number(form.keepDays), maxFileMib: Number(form.maxFileMib), maxSessionMib: Number(form.maxSessionMib) }));
      setError(null);
      setSaved(true);
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="mcp-settings undo-settings" aria-label={t("undoSettings")}>
      <h3>{t("undoSettings")}</h3>
      <p className="muted small" id={help}>
        {t("undoSettingsHelp")}
      </p>
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
          {FIELDS.map((f) => (
            <label key={f.key} className="setting">
              <span>{t(f.label)}</span>
              <input
                type="number"
                inputMode="numeric"
                min={f.min}
                max={f.max}
                step={1}
                required
                aria-describedby={help}
                value={form[f.key]}
                onChange={(e) => {
                  setSaved(false);
                  setForm({ ...form, [f.key]: e.target.value });
                }}
              />
            </label>
          ))}
          <div className="dialog-buttons">
            {saved && (
              <span className="muted small" role="status">
                {t("undoSettingsSaved")}
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
