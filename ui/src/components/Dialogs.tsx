// Small dialogs on Radix primitives: confirm, rename, settings. Focus is trapped and restored,
// Escape closes, and every control has an accessible name.
import * as Dialog from "@radix-ui/react-dialog";
import { useEffect, useState, type KeyboardEvent, type ReactNode } from "react";
import { useT, type Lang } from "../i18n";

export function Shell({ open, onOpenChange, title, children, wide }: { open: boolean; onOpenChange: (o: boolean) => void; title: string; children: ReactNode; wide?: boolean }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className={wide ? "dialog dialog-wide" : "dialog"} aria-describedby={undefined}>
          <Dialog.Title>{title}</Dialog.Title>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

export function ConfirmDialog(props: { open: boolean; title: string; body: string; confirm: string; onConfirm: () => void; onClose: () => void }) {
  const t = useT();
  return (
    <Shell open={props.open} onOpenChange={(o) => !o && props.onClose()} title={props.title}>
      <p>{props.body}</p>
      <div className="dialog-buttons">
        <Dialog.Close asChild>
          <button>{t("cancel")}</button>
        </Dialog.Close>
        <button className="danger" onClick={props.onConfirm}>
          {props.confirm}
        </button>
      </div>
    </Shell>
  );
}

export function RenameDialog(props: { open: boolean; initial: string; onSave: (title: string) => void; onClose: () => void }) {
  const t = useT();
  const [title, setTitle] = useState(props.initial);
  useEffect(() => setTitle(props.initial), [props.initial, props.open]);
  return (
    <Shell open={props.open} onOpenChange={(o) => !o && props.onClose()} title={t("rename")}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (title.trim()) props.onSave(title.trim());
        }}
      >
        <input aria-label={t("rename")} value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} autoFocus />
        <div className="dialog-buttons">
          <Dialog.Close asChild>
            <button type="button">{t("cancel")}</button>
          </Dialog.Close>
          <button type="submit" className="primary">
            {t("save")}
          </button>
        </div>
      </form>
    </Shell>
  );
}

export interface SettingsSection {
  id: string;
  label: string;
  content: ReactNode;
}

export type LangSetting = Lang | "auto";
export type Theme = "system" | "light" | "dark";

export function SettingsDialog(props: {
  open: boolean;
  lang: LangSetting;
  theme: Theme;
  onLang: (l: LangSetting) => void;
  onTheme: (t: Theme) => void;
  onClose: () => void;
  /** The sections, one tab each (Settings → Model, Settings → Local MCP); the first is shown
   * when the dialog opens. Language and theme stay below whichever is shown. */
  sections?: SettingsSection[];
  /** The section shown when the dialog opens, by id (the first when absent or unknown). */
  initial?: string;
}) {
  const t = useT();
  const sections = props.sections ?? [];
  const [shown, setShown] = useState(0);
  const initial = props.initial;
  useEffect(() => {
    if (props.open) setShown(Math.max(0, sections.findIndex((s) => s.id === initial)));
    // Only on opening: the person's own tab choice then stays.
  }, [props.open]);
  const current = sections[Math.min(shown, sections.length - 1)];
  // The WAI-ARIA tabs pattern: one tab in the Tab order, arrows move between them.
  const onKey = (e: KeyboardEvent, i: number) => {
    const by = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 0;
    const to = e.key === "Home" ? 0 : e.key === "End" ? sections.length - 1 : by ? (i + by + sections.length) % sections.length : -1;
    if (to < 0) return;
    e.preventDefault();
    setShown(to);
    document.getElementById(`settings-tab-${sections[to]!.id}`)?.focus();
  };
  return (
    <Shell open={props.open} onOpenChange={(o) => !o && props.onClose()} title={t("settings")} wide={sections.length > 1}>
      {sections.length > 1 && (
        <div role="tablist" aria-label={t("settingsSections")} className="settings-nav">
          {sections.map((s, i) => (
            <button
              key={s.id}
              type="button"
              role="tab"
              id={`settings-tab-${s.id}`}
              aria-selected={s === current}
              aria-controls={`settings-panel-${s.id}`}
              tabIndex={s === current ? 0 : -1}
              onClick={() => setShown(i)}
              onKeyDown={(e) => onKey(e, i)}
            >
              {s.label}
            </button>
          ))}
        </div>
      )}
      {current && (
        <div role={sections.length > 1 ? "tabpanel" : undefined} id={`settings-panel-${current.id}`} aria-labelledby={sections.length > 1 ? `settings-tab-${current.id}` : undefined} className="settings-panel">
          {current.content}
        </div>
      )}
      <label className="setting">
        {t("language")}
        <select aria-label={t("language")} value={props.lang} onChange={(e) => props.onLang(e.target.value as LangSetting)}>
          <option value="auto">{t("auto")}</option>
          <option value="en">English</option>
          <option value="zh">中文（简体）</option>
        </select>
      </label>
      <label className="setting">
        {t("theme")}
        <select aria-label={t("theme")} value={props.theme} onChange={(e) => props.onTheme(e.target.value as Theme)}>
          <option value="system">{t("system")}</option>
          <option value="light">{t("light")}</option>
          <option value="dark">{t("dark")}</option>
        </select>
      </label>
      <p className="muted">{t("shortcuts")}</p>
      <div className="dialog-buttons">
        <Dialog.Close asChild>
          <button className="primary">{t("ok")}</button>
        </Dialog.Close>
      </div>
    </Shell>
  );
}
