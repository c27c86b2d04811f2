// The QA workbench: labelled component samples whose state lives in memory only. It never calls
// the Host, a model or the file system (UI-10): nothing here proves that the real flow works.
import { StrictMode, useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { ApprovalCard, type Outcome } from "./features/approvals/ApprovalCard";
import { sampleCanonical } from "./features/approvals/sample";
import type { CurrentFile } from "./features/approvals/currentFile";
import { McpSettingsPage } from "./features/mcp/McpSettings";
import { InstallQaSample, RegisterQaSample } from "./features/mcp/InstallQa";
import { MemoryMcp } from "./features/mcp/memory";
import { OpenWebpageSample, QaPanel, QaTabsProvider, ReadPageSample, TabActionsSample } from "./features/tabs/QaTabs";
import { browserLang, I18n, translator, useT, type Lang } from "./i18n";
import "./styles.css";

interface Sample {
  id: string;
  tool: string;
  /** A heading other than the tool's name. */
  title?: string;
  arguments: Record<string, unknown>;
  /** The in-memory "preview" of the file a write or replace is bound to. */
  current?: CurrentFile;
}

/** In-memory stand-ins for the Host's content digests: clearly not real SHA-256 values. */
const fakeSha = (name: string) => `qa-sample-sha-${name}-`.padEnd(64, "0");
const APP_TS = "export const name = \"app\";\nconst retries = 3;\nexport default retries;\n";

const SAMPLES: Sample[] = [
  {
    id: "write", tool: "files_write",
    arguments: { path: "notes/todo.md", content: "# Todo\n- ship the UI\n- write tests\n", creates: false, replaces: fakeSha("todo") },
    current: { state: "loaded", content: "# Todo\n- ship the UI\n", sha256: fakeSha("todo") },
  },
  {
    id: "replace", tool: "files_replace",
    arguments: { path: "src/app.ts", oldText: "const retries = 3;", newText: "const retries = 5;", sha256: fakeSha("app"), line: 2 },
    current: { state: "loaded", content: APP_TS, sha256: fakeSha("app") },
  },
  // The file changed after the request was prepared: the card says so and shows no diff
  // against a file the change is not bound to.
  {
    id: "replace-stale", tool: "files_replace", title: "files_replace — the file changed after the request / 请求之后文件已被修改",
    arguments: { path: "src/app.ts", oldText: "const retries = 3;", newText: "const retries = 5;", sha256: fakeSha("app"), line: 2 },
    current: { state: "loaded", content: APP_TS.replace("3", "4"), sha256: fakeSha("app-edited") },
  },
  // A read of a file that looks like credentials: path, size and why, never the content.
  { id: "read-secret", tool: "files_read", arguments: { path: ".env", size: 214, offset: 0, end: 214, sensitive: "env_file", reason: "an environment file, which often holds API keys and passwords" } },
  { id: "mkdir", tool: "files_mkdir", arguments: { path: "docs/guides" } },
  { id: "move", tool: "files_move", arguments: { source: "drafts", target: "docs/drafts", files: 3, folders: 2, fingerprint: "qa-sample-fingerprint-".padEnd(64, "0") } },
  { id: "trash", tool: "files_trash", arguments: { path: "old/logs", files: 3, dirs: 1 } },
  { id: "mcp", tool: "weather__forecast", arguments: { city: "Hangzhou", days: 3 } },
];

/** The in-memory digest of a sample: clearly not the Host's. */
const fakeDigest = (s: Sample) => `qa-sample-${s.id}-`.padEnd(64, "0");

function ToolSample({ sample }: { sample: Sample }) {
  const [phase, setPhase] = useState<"idle" | "running" | "asking" | "done">("idle");
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  useEffect(() => {
    if (phase !== "running") return;
    // The approval appears after about 1.8 s, as a real tool's preparation would take a moment.
    const timer = setTimeout(() => setPhase("asking"), 1800);
    return () => clearTimeout(timer);
  }, [phase]);
  return (
    <section data-sample={sample.id}>
      <h2>{sample.title ?? sample.tool}</h2>
      <div className="qa-row">
        <button onClick={() => { setOutcome(null); setPhase("running"); }} disabled={phase === "running" || phase === "asking"}>
          Run sample (in memory)
        </button>
        {phase === "running" && <span className="muted">preparing…</span>}
        {outcome && <span role="status">memory state: {outcome}</span>}
      </div>
      {(phase === "asking" || phase === "done") && (
        <ApprovalCard
          request={{ approvalId: sample.id, tool: sample.tool, arguments: sample.arguments, canonical: sampleCanonical(sample.arguments), digest: fakeDigest(sample), state: "pending" }}
          currentFile={sample.current}
          onDecide={async (d) => {
            const o: Outcome = d === "approve" ? "approved" : "rejected";
            setOutcome(o);
            setPhase("done");
            return o;
          }}
        />
      )}
    </section>
  );
}

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
