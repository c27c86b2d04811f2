// QA samples of the preview tabs (UI-11, UI-12, UI-14, UI-15), in memory only: the real right
// panel component over an in-memory tab list (`memory.ts`, the Host's rules), an open-webpage
// approval that only adds an in-memory tab, a page-text read of fixed test material, and tab
// actions. No Host, no browser, no model, no file: nothing here proves the real flow works.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { ApprovalCard, type Outcome } from "../approvals/ApprovalCard";
import { sampleCanonical } from "../approvals/sample";
import { useT } from "../../i18n";
import type { OpenTab, Preview, PreviewTab } from "../../types";
import { PreviewPanel, type PanelApi } from "./Panel";
import { reduceTabs, workspaceTab } from "./memory";
import type { SessionTabs } from "./useTabs";

/** The fixed page text of the read sample: test material, never a page's. */
export const QA_PAGE_TEXT = "QA sample page text (fixed test material, not read from any page): Example Domain. This domain is for use in illustrative examples.";
const QA_URL = "https://example.com/";

interface MemoryTabs extends SessionTabs {
  /** File texts the panel shows, all of them marked in-memory. */
  texts: Record<string, string>;
  setText: (path: string, text: string) => void;
  openWorkspace: (path: string) => void;
}

const Ctx = createContext<MemoryTabs | null>(null);
const useMemoryTabs = () => useContext(Ctx)!;

/** The in-memory tabs of the QA page and its panel; every sample below reads the same list. */
export function QaTabsProvider({ children }: { children: ReactNode }) {
  const [tabs, setTabs] = useState<PreviewTab[]>([]);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [fileVersion, setFileVersion] = useState(0);
  const shownNow = useRef(tabs);
  shownNow.current = tabs;
  const next = useRef(0);
  const id = () => `tab_qa${String(++next.current).padStart(28, "0")}`;
  const open = useCallback(async (tab: OpenTab) => {
    const action = { type: "open", tab, id: id() } as const;
    setTabs((ts) => reduceTabs(ts, action));
    return reduceTabs([], action)[0] ?? null;
  }, []);
  const ctl = useMemo<MemoryTabs>(
    () => ({
      tabs,
      dialogs: [],
      fileVersion,
      texts,
      open,
      shown: async () => shownNow.current.find((x) => x.active) ?? null,
      openFile: (path) => {
        const known = tabs.find((x) => x.kind === "file" && x.path === path);
        if (known) setTabs((ts) => reduceTabs(ts, { type: "activate", id: known.tabId }));
        else void open({ kind: "file", path });
      },
      activate: (tabId) => setTabs((ts) => reduceTabs(ts, { type: "activate", id: tabId })),
      move: (tabId, index) => setTabs((ts) => reduceTabs(ts, { type: "move", id: tabId, index })),
      navigate: async (tabId, to) => {
        setTabs((ts) => reduceTabs(ts, { type: "navigate", id: tabId, to }));
        return true;
      },
      close: (tabId) => setTabs((ts) => reduceTabs(ts, { type: "close", id: tabId })),
      answer: async () => {},
      onLive: () => {},
      setText: (path, text) => {
        setTexts((all) => ({ ...all, [path]: text }));
        setFileVersion((v) => v + 1);
      },
      openWorkspace: (path) => setTabs((ts) => [...ts.map((x) => ({ ...x, active: false })), workspaceTab(id(), path)]),
    }),
    [tabs, texts, fileVersion, open],
  );
  return <Ctx.Provider value={ctl}>{children}</Ctx.Provider>;
}

/** The real panel component over the in-memory tabs. */
export function QaPanel() {
  const t = useT();
  const ctl = useMemoryTabs();
  const textsRef = useRef(ctl.texts);
  textsRef.current = ctl.texts;
  const api = useMemo<PanelApi>(
    () => ({
      preview: async (_s: string, path: string): Promise<Preview> => {
        const content = textsRef.current[path] ?? `[${t("qa_memoryText")}] ${path}`;
        // No digest: in-memory text is bound to nothing.
        return { path, content, size: content.length, partial: false, sha256: null };
      },
      folder: async (_s: string, path?: string) => ({ path: path ?? ".", entries: [], truncated: false }),
      tabScreen: async () => null,
      frontTab: async () => {
        throw new Error(t("qa_noBrowser"));
      },
    }),
    [t],
  );
  return (
    <div className="qa-panel" data-sample="tabs-panel">
      <PreviewPanel api={api} sessionId="qa" tabs={ctl} webTabs="iframe" onHide={() => {}} renderWeb={(tab) => <p className="muted">{t("qa_webNotLoaded", { url: tab.url ?? "" })}</p>} />
    </div>
  );
}

/** UI-11: an open_webpage approval for example.com; approving requests the display (an
 * in-memory tab), rejecting opens nothing. */
export function OpenWebpageSample() {
  const t = useT();
  const ctl = useMemoryTabs();
  const [shown, setShown] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  return (
    <section data-sample="open-webpage">
      <button aria-pressed={shown} onClick={() => { setShown((s) => !s); setOutcome(null); }}>
        {t("qa_toggleOpenWebpage")}
      </button>
      <p className="qa-label">{t("qa_openWebpageNote")}</p>
      {shown && (
        <ApprovalCard
          request={{ approvalId: "qa-open-webpage", tool: "open_webpage", arguments: { url: QA_URL }, canonical: sampleCanonical({ url: QA_URL }), digest: "qa-sample-open-webpage-".padEnd(64, "0"), state: "pending" }}
          onDecide={async (d) => {
            const o: Outcome = d === "approve" ? "approved" : "rejected";
            if (o === "approved") await ctl.open({ kind: "web", url: QA_URL });
            setOutcome(o);
            return o;
          }}
        />
      )}
      {outcome && <p role="status">{outcome === "approved" ? t("qa_openRequested") : t("qa_openNothing")}</p>}
    </section>
  );
}

type Listed = Pick<PreviewTab, "tabId" | "kind" | "title" | "active" | "url" | "path">;
const listOf = (tabs: PreviewTab[]): Listed[] => tabs.map(({ tabId, kind, title, active, url, path }) => ({ tabId, kind, title, active, ...(url ? { url: url.split(/[?#]/)[0] } : {}), ...(path ? { path } : {}) }));

function ListButton({ onList }: { onList: (l: Listed[]) => void }) {
  const t = useT();
  const ctl = useMemoryTabs();
  return <button onClick={() => onList(listOf(ctl.tabs))}>{t("qa_listTabs")}</button>;
}

/** UI-12, UI-14: list the panel's tabs live, pick a web tab, read fixed test text (no approval). */
export function ReadPageSample() {
  const t = useT();
  const [list, setList] = useState<Listed[] | null>(null);
  const [pick, setPick] = useState("");
  const [result, setResult] = useState<string | null>(null);
  const webs = (list ?? []).filter((x) => x.kind === "web");
  return (
    <section data-sample="read-page">
      <h2>{t("qa_readPageTitle")}</h2>
      <p className="qa-label">{t("qa_readPageNote")}</p>
      <div className="qa-row">
        <ListButton
          onList={(l) => {
            setList(l);
            setResult(null);
            setPick(l.find((x) => x.kind === "web" && !x.active)?.tabId ?? l.find((x) => x.kind === "web")?.tabId ?? "");
          }}
        />
      </div>
      {list && <pre aria-label={t("qa_tabList")}>{JSON.stringify(list, null, 2)}</pre>}
      {list && webs.length === 0 && <p className="muted">{t("qa_noWebTab")}</p>}
      {webs.length > 0 && (
        <div className="qa-row">
          <select aria-label={t("qa_pickPage")} value={pick} onChange={(e) => setPick(e.target.value)}>
            {webs.map((w) => (
              <option key={w.tabId} value={w.tabId}>
                {w.title}
              </option>
            ))}
          </select>
          <button onClick={() => setResult(JSON.stringify({ tabId: pick, source: "untrusted_webpage", sample: "in-memory", text: QA_PAGE_TEXT }, null, 2))}>{t("qa_readPage")}</button>
        </div>
      )}
      {result && <pre role="status" aria-label={t("qa_readResult")}>{result}</pre>}
    </section>
  );
}

/** preview_tab_action's actions, exactly (WEB-28): a file or folder tab's refresh is `reload`. */
const ACTIONS = ["reload", "back", "forward", "close"] as const;
type ActionName = (typeof ACTIONS)[number];

/** UI-15: tab actions on the in-memory tabs, no approval: a file or folder reload fills marked
 * in-memory text, close goes through the tab reducer, web navigation is unsupported (nothing faked). */
export function TabActionsSample() {
  const t = useT();
  const ctl = useMemoryTabs();
  const [list, setList] = useState<Listed[] | null>(null);
  const [target, setTarget] = useState("");
  const [action, setAction] = useState<ActionName>("reload");
  const [result, setResult] = useState<string | null>(null);
  const reloads = useRef(0);
  const run = () => {
    const listed = list?.find((x) => x.tabId === target);
    const now = ctl.tabs.find((x) => x.tabId === target);
    const answer = (o: Record<string, unknown>) => setResult(JSON.stringify({ tabId: target, ...o }, null, 2));
    if (!listed || !now || now.kind !== listed.kind) return answer({ error: t("qa_listAgain") });
    if (action === "close") {
      if (now.kind === "web") return answer({ status: "unsupported", message: t("qa_noNativeClose") });
      ctl.close(target);
      return answer({ status: "closed" });
    }
    if (now.kind === "new") return answer({ error: t("qa_newOnlyClose") });
    if (now.kind === "web") return answer({ status: "unsupported", message: t("qa_noWebNavigation", { action }) });
    if (action !== "reload") return answer({ error: t("qa_fileOnlyReload") });
    reloads.current += 1;
    if (now.path) ctl.setText(now.path, `[${t("qa_memoryText")} #${reloads.current}] ${now.path}`);
    return answer({ status: "reload_requested", note: t("qa_memoryText") });
  };
  return (
    <section data-sample="tab-actions">
      <h2>{t("qa_tabActionsTitle")}</h2>
      <p className="qa-label">{t("qa_tabActionsNote")}</p>
      <div className="qa-row">
        <button onClick={() => ctl.openFile("docs/notes.md")}>{t("qa_openFileTab")}</button>
        <button onClick={() => ctl.openWorkspace("docs")}>{t("qa_openDirTab")}</button>
        <button onClick={() => void ctl.open({ kind: "new" })}>{t("qa_openNewTab")}</button>
        <ListButton
          onList={(l) => {
            setList(l);
            setResult(null);
            setTarget(l[0]?.tabId ?? "");
          }}
        />
      </div>
      {list && (
        <div className="qa-row">
          <select aria-label={t("qa_target")} value={target} onChange={(e) => setTarget(e.target.value)}>
            {list.map((x) => (
              <option key={x.tabId} value={x.tabId}>
                {x.kind}: {x.title}
              </option>
            ))}
          </select>
          <select aria-label={t("qa_action")} value={action} onChange={(e) => setAction(e.target.value as ActionName)}>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
          <button onClick={run} disabled={!target}>
            {t("qa_runAction")}
          </button>
        </div>
      )}
      {result && <pre role="status" aria-label={t("qa_actionResult")}>{result}</pre>}
    </section>
  );
}
