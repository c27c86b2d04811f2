// The right panel (UI-07): the session's tabs as the Host holds them — order, the
// active one, title and kind — and the active tab's view. The person's actions (a new tab, a web
// page they type, activate, move, close) go to the Host; the panel shows what the Host answers.
// A tab moves by dragging it onto another tab's place, or with Ctrl+Shift+←/→ while it has the
// focus (bound on the tab buttons only, so never while typing; the workbench's own keys are
// Escape and Alt+↑/↓). Titles, paths, names and file content show hidden and direction-changing
// characters marked (components/Reveal.tsx): a page title or a file name can hold them.
import { useEffect, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { ArrowUp, FileText, Folder, Globe, Plus, SquareDashed, X } from "lucide-react";
import type { Api } from "../../api";
import type { FolderView as FolderListing, Preview, PreviewTab, TabKind, WebTabs } from "../../types";
import { useT } from "../../i18n";
import type { SessionTabs } from "./useTabs";
import { WebView } from "./WebView";
import { Reveal, revealText } from "../../components/Reveal";
import { addressOf } from "./address";
import { samePath } from "./useTabs";
import { CodeView } from "../../components/CodeView";
import { Markdown } from "../conversation/Markdown";

const KIND_ICON: Record<TabKind, typeof Globe> = { web: Globe, file: FileText, new: SquareDashed, workspace: Folder };

/** What a tab is called: a blank tab in the person's language (the Host names it in English). */
export function tabName(t: ReturnType<typeof useT>, tab: PreviewTab): string {
  // The project's own folder is named as such, not "./".
  if (tab.kind === "workspace" && isRoot(tab.path)) return t("tabProjectRoot");
  return tab.kind === "new" || !tab.title ? t(`tabKind_${tab.kind}`) : tab.title;
}

const isRoot = (path: string | null | undefined) => (path ?? ".") === ".";

/** The strip's button of the tab `id`. */
const tabButton = (strip: HTMLElement | null, id: string) =>
  [...(strip?.querySelectorAll<HTMLButtonElement>("[data-tab]") ?? [])].find((b) => b.dataset.tab === id);

export function TabIcon({ kind }: { kind: TabKind }) {
  const Icon = KIND_ICON[kind] ?? SquareDashed;
  return <Icon size={14} aria-hidden />;
}

/** What the panel asks of the Host besides the tab list (the QA page passes an in-memory one). */
export type PanelApi = Pick<Api, "preview" | "folder" | "tabScreen" | "frontTab">;

interface Props {
  api: PanelApi;
  sessionId: string | null;
  tabs: SessionTabs;
  webTabs: WebTabs;
  onHide: () => void;
  /** The QA page shows its in-memory web tabs without loading anything. */
  renderWeb?: (tab: PreviewTab) => ReactNode;
}

export function PreviewPanel({ api, sessionId, tabs: ctl, webTabs, onHide, renderWeb }: Props) {
  const t = useT();
  const { tabs } = ctl;
  const active = tabs.find((x) => x.active) ?? null;
  const [url, setUrl] = useState("");
  // What the box last said about an address: the scheme it added, or why it refused one.
  const [addressNote, setAddressNote] = useState<{ text: string; refused: boolean } | null>(null);
  // The tab being dragged (only this strip's tabs are accepted as drops) and the one under it.
  const dragged = useRef<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  // A moved tab keeps the focus (reordering its element in the page drops it).
  const strip = useRef<HTMLDivElement>(null);
  const refocus = useRef<string | null>(null);
  useLayoutEffect(() => {
    const id = refocus.current;
    if (!id) return;
    refocus.current = null;
    tabButton(strip.current, id)?.focus();
  }, [tabs]);
  // The selected tab is always in view in the strip, however it was selected (a click, the
  // keys, the agent opening a page, a close passing the selection on).
  const activeId = active?.tabId ?? null;
  useEffect(() => {
    if (!activeId) return;
    tabButton(strip.current, activeId)?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  }, [activeId, tabs.length]);
  // Where the dragged tab lands, marked on the side it goes to (it takes the target's place).
  const dropSide = (index: number) => (tabs.findIndex((x) => x.tabId === dragged.current) < index ? "drop-after" : "drop-before");
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const focused = (e.target as HTMLElement).dataset?.tab;
    if (e.ctrlKey && e.shiftKey && !e.altKey && !e.metaKey && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      // Only a focused tab moves (not its close button); at either end it stays.
      if (!focused) return;
      e.preventDefault();
      const from = tabs.findIndex((x) => x.tabId === focused);
      const to = from + (e.key === "ArrowRight" ? 1 : -1);
      if (from < 0 || to < 0 || to >= tabs.length) return;
      refocus.current = focused;
      ctl.move(focused, to);
      return;
    }
    // The tab pattern: arrows move between tabs, Home/End to the ends, Delete closes the focused
    // one (without Ctrl, Alt or Meta, which belong to the browser and the workbench).
    if (e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.key === "Delete" && focused) {
      e.preventDefault();
      const at = tabs.findIndex((x) => x.tabId === focused);
      const next = tabs[at + 1] ?? tabs[at - 1];
      if (next) refocus.current = next.tabId;
      ctl.close(focused);
      return;
    }
    const i = tabs.findIndex((x) => x.active);
    const to = e.key === "ArrowRight" ? i + 1 : e.key === "ArrowLeft" ? i - 1 : e.key === "Home" ? 0 : e.key === "End" ? tabs.length - 1 : null;
    if (to === null || !tabs.length) return;
    e.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length]!;
    ctl.activate(next.tabId);
    tabButton(e.currentTarget, next.tabId)?.focus();
  };
  // An address typed while a web or blank tab is shown goes there, as in a browser; from a file
  // or folder tab it opens a web tab of its own.
  const inPlace = active && (active.kind === "web" || active.kind === "new") ? active : null;
  const openUrl = async (e: FormEvent) => {
    e.preventDefault();
    const address = addressOf(url);
    if ("error" in address) {
      setAddressNote({ text: t(address.error === "empty" ? "tabsAddressEmpty" : "tabsAddressInvalid"), refused: true });
      return;
    }
    setAddressNote(null);
    // A tab opened a moment ago (New tab, then typing at once) is the one meant, even while
    // the Host has not answered yet.
    const target = await ctl.shown();
    const here = target && (target.kind === "web" || target.kind === "new") ? target : null;
    const done = here ? await ctl.navigate(here.tabId, { to: "address", url: address.url }) : await ctl.open({ kind: "web", url: address.url });
    if (done) {
      setUrl("");
      if (address.added) setAddressNote({ text: t("tabsAddressAdded", { scheme: address.added, url: address.url }), refused: false });
    }
  };
  return (
    <aside className="preview" id="preview-panel" aria-label={t("preview")}>
      <button className="icon preview-close" aria-label={t("closePreview")} title={t("closePreview")} onClick={onHide}>
        <X size={16} />
      </button>
      <div className="tab-strip">
        <div className="tabs" role="tablist" aria-label={t("preview")} ref={strip} onKeyDown={onKeyDown}>
          {tabs.map((x, index) => (
            <div
              key={x.tabId}
              role="presentation"
              className={["tab", x.active && "active", over === x.tabId && dragged.current !== x.tabId && dropSide(index)].filter(Boolean).join(" ")}
              data-kind={x.kind}
              onDragStart={(e) => {
                dragged.current = x.tabId;
                // What the tab shows, as a browser's tab drags (the drop target knows the tab by the
                // ref above, so only this strip's own tabs move).
                e.dataTransfer.setData("text/plain", x.url ?? x.path ?? tabName(t, x));
              }}
              onDragEnter={(e) => {
                if (dragged.current) e.preventDefault();
              }}
              onDragOver={(e) => {
                if (!dragged.current) return;
                e.preventDefault();
                if (over !== x.tabId) setOver(x.tabId);
              }}
              onDrop={(e) => {
                const id = dragged.current;
                if (!id) return;
                e.preventDefault();
                // Dropped on a tab: the dragged one takes that tab's place.
                if (id !== x.tabId) ctl.move(id, index);
                dragged.current = null;
                setOver(null);
              }}
              onDragEnd={() => {
                dragged.current = null;
                setOver(null);
              }}
            >
              <button
                role="tab"
                data-tab={x.tabId}
                aria-keyshortcuts="Delete Control+Shift+ArrowLeft Control+Shift+ArrowRight"
                // The tab itself is what is dragged (Chromium starts no drag from a button inside a
                // draggable box); its box takes the events.
                draggable
                aria-selected={x.active}
                aria-controls="preview-tabpanel"
                tabIndex={x.active ? 0 : -1}
                onClick={() => ctl.activate(x.tabId)}
                title={`${t(`tabKind_${x.kind}`)}${t("colon")} ${revealText(x.url ?? x.path ?? tabName(t, x))}`}
              >
                <TabIcon kind={x.kind} />{" "}
                <span className="tab-title">
                  <Reveal text={tabName(t, x)} />
                </span>
              </button>
              {/* For the pointer: a tab list holds tabs only, so the keyboard and screen readers
                  close the focused tab with Delete (announced by its aria-keyshortcuts). */}
              <button className="icon tab-close" aria-hidden="true" tabIndex={-1} title={`${t("closeTab")} ${revealText(tabName(t, x))}`} onClick={() => ctl.close(x.tabId)}>
                <X size={13} />
              </button>
            </div>
          ))}
        </div>
        {/* Nothing to open tabs in before there is a session: no controls that do nothing. */}
        {sessionId && (
          <>
            <button className="icon" aria-label={t("tabsNew")} title={t("tabsNew")} onClick={() => void ctl.open({ kind: "new" })}>
              <Plus size={16} />
            </button>
            <button className="icon" aria-label={t("tabsProject")} title={t("tabsProject")} onClick={() => void ctl.open({ kind: "workspace" })}>
              <Folder size={16} />
            </button>
          </>
        )}
      </div>
      {sessionId && <form className="url-form" onSubmit={(e) => void openUrl(e)}>
        {/* Text, not type="url": the browser's own check refuses `localhost:3000` and speaks its
            own language; the box reads the address itself (address.ts). */}
        <input
          type="text"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          aria-label={t("tabsOpenUrl")}
          aria-describedby={addressNote ? "address-note" : undefined}
          aria-invalid={addressNote?.refused || undefined}
          placeholder={t("tabsUrlPlaceholder")}
          value={url}
          onChange={(e) => {
            setUrl(e.target.value);
            if (addressNote?.refused) setAddressNote(null);
          }}
        />
        {/* Never disabled: with no address it says what it needs, instead of a control that
            does nothing and cannot say why. */}
        <button type="submit" title={inPlace ? t("tabsGoHere") : t("tabsOpenNew")}>
          <Globe size={14} aria-hidden /> {inPlace ? t("tabsGo") : t("tabsOpen")}
        </button>
      </form>}
      {addressNote ? (
        <p id="address-note" className={addressNote.refused ? "address-note refused" : "address-note muted"} role={addressNote.refused ? "alert" : "status"}>
          {addressNote.text}
        </p>
      ) : null}
      {active ? (
        <div className="tab-body" role="tabpanel" id="preview-tabpanel" aria-label={revealText(active.path ?? active.url ?? active.title)}>
          {active.kind === "web" ? (
            renderWeb ? renderWeb(active) : <WebView api={api} tab={active} mode={webTabs} onNavigate={(to) => void ctl.navigate(active.tabId, to)} />
          ) : active.kind === "file" && sessionId ? (
            <FileView api={api} sessionId={sessionId} tab={active} version={ctl.fileVersion} line={ctl.fileLine && samePath(ctl.fileLine.path, active.path ?? "") ? ctl.fileLine.line : null} />
          ) : active.kind === "workspace" && sessionId ? (
            <FolderView api={api} sessionId={sessionId} tab={active} version={ctl.fileVersion} ctl={ctl} />
          ) : (
            <p className="muted">{t("tabNewBody")}</p>
          )}
        </div>
      ) : (
        <p className="muted empty">{t("noTabs")}</p>
      )}
    </aside>
  );
}

/** How an entry that is neither a file nor a folder is worded (the Host names `symlink` and
 * `other`). */
const otherKindKey = (kind: string) => (kind === "symlink" ? "folderKind_symlink" : "folderKind_other");

/** The folder that holds `path` (`.` for a folder at the root). */
export function parentOf(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  return parts.slice(0, -1).join("/") || ".";
}

/** A workspace tab: one folder of the project as `GET …/folder` gives it; a file opens in a file
 * tab, a subfolder in the same tab, as a file manager does, and Up goes to the folder above.
 * Read again when the tabs change (a reload). */
function FolderView({ api, sessionId, tab, version, ctl }: { api: PanelApi; sessionId: string; tab: PreviewTab; version: number; ctl: SessionTabs }) {
  const t = useT();
  const path = tab.path ?? ".";
  const [state, setState] = useState<{ for: string; folder?: FolderListing; error?: string } | null>(null);
  useEffect(() => {
    let stale = false;
    api
      .folder(sessionId, path)
      .then((f) => !stale && setState({ for: path, folder: f }))
      .catch((e: Error) => !stale && setState({ for: path, error: e.message }));
    return () => {
      stale = true;
    };
  }, [api, sessionId, path, version]);
  const shown = state?.for === path ? state : null;
  const child = (name: string) => (path === "." ? name : `${path}/${name}`);
  const goTo = (folder: string) => ctl.navigate(tab.tabId, isRoot(folder) ? { to: "folder" } : { to: "folder", path: folder });
  return (
    <>
      <div className="folder-head">
        {!isRoot(path) && (
          <button className="icon" aria-label={t("folderUp")} title={t("folderUp")} onClick={() => void goTo(parentOf(path))}>
            <ArrowUp size={14} aria-hidden />
          </button>
        )}
        <span className="muted small mono">{isRoot(path) ? t("tabProjectRoot") : <Reveal text={t("tabWorkspaceBody", { path })} />}</span>
      </div>
      {shown?.error ? (
        <p className="error">{shown.error}</p>
      ) : !shown?.folder ? (
        <p className="muted">…</p>
      ) : !shown.folder.entries.length ? (
        <p className="muted">{t("folderEmpty")}</p>
      ) : (
        <ul className="folder" aria-label={isRoot(path) ? t("tabProjectRoot") : t("tabWorkspaceBody", { path })}>
          {shown.folder.entries.map((e) => (
            <li key={e.name}>
              {e.kind === "file" ? (
                <button className="link" onClick={() => ctl.openFile(child(e.name))}>
                  <FileText size={14} aria-hidden /> <Reveal text={e.name} />
                </button>
              ) : e.kind === "dir" ? (
                <button className="link" onClick={() => void goTo(child(e.name))}>
                  <Folder size={14} aria-hidden /> <Reveal text={e.name} />/
                </button>
              ) : (
                <span className="muted" title={t(otherKindKey(e.kind))}>
                  <Reveal text={e.name} /> ({t(otherKindKey(e.kind))})
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {shown?.folder?.truncated && <p className="muted small">{t("folderTruncated")}</p>}
    </>
  );
}

/** Whether a file is Markdown, shown rendered unless the person asks for its source. */
const isMarkdown = (path: string) => /\.(md|markdown)$/i.test(path);

/** A file tab: the file as `GET …/preview` gives it, read again when the file is opened again.
 * Code is highlighted and numbered, with `line` marked; Markdown is rendered, its source a
 * toggle away (rendered text shows no marks for hidden characters: the source does). */
function FileView({ api, sessionId, tab, version, line }: { api: PanelApi; sessionId: string; tab: PreviewTab; version: number; line: number | null }) {
  const t = useT();
  const path = tab.path ?? "";
  const [source, setSource] = useState(false);
  // A line asked for is a line of the source.
  useEffect(() => {
    if (line) setSource(true);
  }, [line, version]);
  const [state, setState] = useState<{ for: string; preview?: Preview; error?: string } | null>(null);
  useEffect(() => {
    let stale = false;
    api
      .preview(sessionId, path)
      .then((p) => !stale && setState({ for: path, preview: p }))
      .catch((e: Error) => !stale && setState({ for: path, error: e.message }));
    return () => {
      stale = true;
    };
  }, [api, sessionId, path, version]);
  const shown = state?.for === path ? state : null;
  return (
    <>
      <div className="file-head">
        <span className="muted small mono">
          <Reveal text={path} />
        </span>
        {isMarkdown(path) && (
          <button className="link small" aria-pressed={source} onClick={() => setSource((s) => !s)}>
            {source ? t("fileShowRendered") : t("fileShowSource")}
          </button>
        )}
      </div>
      {shown?.error ? (
        <p className="error">{shown.error}</p>
      ) : !shown?.preview ? (
        <p className="muted">…</p>
      ) : isMarkdown(path) && !source ? (
        <div className="file-rendered">
          <Markdown text={shown.preview.content} />
        </div>
      ) : (
        <CodeView text={shown.preview.content} path={path} line={line} label={t("fileText", { path: revealText(path) })} />
      )}
      {shown?.preview?.partial && <p className="muted small">{t("partial")}</p>}
    </>
  );
}
