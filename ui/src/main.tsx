// Entry of the workbench: the token, the language and the theme, then the app.
import { StrictMode, useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { Api, takeToken } from "./api";
import { App } from "./App";
import { browserLang, I18n, translator, useT } from "./i18n";
import type { LangSetting, Theme } from "./components/Dialogs";
import "./styles.css";

function NoToken() {
  const t = useT();
  return (
    <main className="no-token">
      <h1>{t("noTokenTitle")}</h1>
      <p>{t("noTokenBody")}</p>
    </main>
  );
}

const LANGS = ["auto", "en", "zh"] as const satisfies readonly LangSetting[];
const THEMES = ["system", "light", "dark"] as const satisfies readonly Theme[];

function Root() {
  const [token, setToken] = useState(() => takeToken());
  const [lang, setLang] = useState<LangSetting>(() => (localStorage.getItem("wisp-lang") as LangSetting) ?? "auto");
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("wisp-theme") as Theme) ?? "system");
  const t = useMemo(() => translator(lang === "auto" ? browserLang() : lang), [lang]);
  // A refused token (the Host restarted with a new one) leads back to the explanation.
  const api = useMemo(
    () =>
      token
        ? new Api(token, () => {
            sessionStorage.removeItem("wisp-token");
            setToken(null);
          })
        : null,
    [token],
  );
  useEffect(() => {
    localStorage.setItem("wisp-lang", lang);
    document.documentElement.lang = (lang === "auto" ? browserLang() : lang) === "zh" ? "zh-CN" : "en";
  }, [lang]);
  useEffect(() => {
    localStorage.setItem("wisp-theme", theme);
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  // Language and theme chosen in another window of the workbench apply here too.
  useEffect(() => {
    const follow = (e: StorageEvent) => {
      if (e.key === "wisp-lang" && (LANGS as readonly string[]).includes(e.newValue ?? "")) setLang(e.newValue as LangSetting);
      if (e.key === "wisp-theme" && (THEMES as readonly string[]).includes(e.newValue ?? "")) setTheme(e.newValue as Theme);
    };
    window.addEventListener("storage", follow);
    return () => window.removeEventListener("storage", follow);
  }, []);
  return (
    <I18n.Provider value={t}>
      {api ? <App api={api} lang={lang} theme={theme} onLang={setLang} onTheme={setTheme} /> : <NoToken />}
    </I18n.Provider>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
