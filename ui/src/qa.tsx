// The QA workbench: labelled component samples whose state lives in memory only. It never calls
// the Host, a model or the file system (UI-10): nothing here proves that the real flow works.
import { StrictMode, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { SAMPLES, ToolSample } from "./features/approvals/QaToolSamples";
import { McpSettingsPage } from "./features/mcp/McpSettings";
import { InstallQaSample, RegisterQaSample } from "./features/mcp/InstallQa";
import { MemoryMcp } from "./features/mcp/memory";
import { OpenWebpageSample, QaPanel, QaTabsProvider, ReadPageSample, TabActionsSample } from "./features/tabs/QaTabs";
import { browserLang, I18n, translator, useT, type Lang } from "./i18n";
import "./styles.css";

const FILES: Record<string, string> = {
  "src/main.rs": "fn main() {\n    // zq_anchor_needle_4471\n    println!(\"hello\");\n}\n",
  "docs/notes.md": "Notes\n\nThe needle zq_anchor_needle_4471 is here too.\n",
};

function SearchSample() {
  const [open, setOpen] = useState<string | null>(null);
  const hits = useMemo(() => Object.entries(FILES).flatMap(([path, text]) => text.split("\n").map((l, i) => ({ path, line: i + 1, l })).filter((h) => h.l.includes("zq_anchor"))), []);
  return (
    <section data-sample="search">
      <h2>files_search (content) — in-memory results</h2>
      <ul>
        {hits.map((h) => (
          <li key={`${h.path}:${h.line}`}>
            <button className="link" onClick={() => setOpen(h.path)}>
              {h.path}:{h.line}
            </button>{" "}
            <code>{h.l.trim()}</code>
          </li>
        ))}
      </ul>
      {open && (
        <div role="tabpanel" aria-label={`in-memory preview ${open}`}>
          <div className="muted small">in-memory preview: {open}</div>
          <pre className="file">{FILES[open]}</pre>
        </div>
      )}
    </section>
  );
}

/** Settings → Local MCP on an in-memory fake (UI-16): `fail` as the command shows a failed start. */
function McpSample() {
  const api = useMemo(() => new MemoryMcp(), []);
  return (
    <section data-sample="mcp-settings">
      <h2>Settings → Local MCP — in-memory management / 设置 → 本地 MCP（仅内存）</h2>
      <p className="qa-label">
        Runs no command and stores no secret; the command <code>fail</code> simulates a start failure. Not an acceptance test of the app. /
        不执行命令、不保存秘密；命令填写 fail 可观察模拟启动失败。
      </p>
      <McpSettingsPage api={api} />
    </section>
  );
}

function QaPanelSection() {
  const t = useT();
  return (
    <section data-sample="panel">
      <h2>{t("qa_panelTitle")}</h2>
      <p className="qa-label">{t("qa_panelNote")}</p>
      <QaPanel />
    </section>
  );
}

function Qa() {
  const [lang, setLang] = useState<Lang>(browserLang());
  const t = useMemo(() => translator(lang), [lang]);
  return (
    <I18n.Provider value={t}>
      <main className="qa">
        <h1>Wisp QA workbench</h1>
        <p className="qa-label" role="note">
          Component samples with in-memory state only. Approving or rejecting here changes memory, nothing else: no Host, no model,
          no files, no trash. This is not a test of the real app. / 组件样例，仅内存状态；不调用主机、模型或文件系统。
        </p>
        <label className="setting">
          Language
          <select aria-label="Language" value={lang} onChange={(e) => setLang(e.target.value as Lang)}>
            <option value="en">English</option>
            <option value="zh">中文</option>
          </select>
        </label>
        <QaTabsProvider>
          <OpenWebpageSample />
          <h2>Tool interaction samples / 工具交互样例</h2>
          {SAMPLES.map((s) => (
            <ToolSample key={s.id} sample={s} />
          ))}
          <SearchSample />
          <QaPanelSection />
          <ReadPageSample />
          <TabActionsSample />
        </QaTabsProvider>
        <McpSample />
        <InstallQaSample />
        <RegisterQaSample />
      </main>
    </I18n.Provider>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Qa />
  </StrictMode>,
);
