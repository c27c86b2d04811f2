// The workbench: projects and sessions on the left, the conversation in the centre, preview
// tabs on the right. All state comes from the Host's API and event stream; nothing is invented
// locally, so a reload (or a Host restart) shows exactly what the event log holds.
import { useCallback, useEffect, useRef, useState } from "react";
import { Settings, X } from "lucide-react";
import type { Api } from "./api";
import type { Schemas } from "./types";
import { useT } from "./i18n";
import { SettingsDialog, type LangSetting, type Theme } from "./components/Dialogs";
import { ApprovalAnnouncer } from "./features/approvals/Announcer";
import { useCurrentFiles } from "./features/approvals/currentFile";
import { useDecide } from "./features/approvals/useDecide";
import { Composer, MESSAGE_BOX_ID, useComposer } from "./features/conversation/Composer";
import { ModelPicker, useModelPick } from "./features/conversation/ModelPicker";
import { ConversationHeader } from "./features/conversation/ConversationHeader";
import { useWorkbenchKeys } from "./features/conversation/keys";
import { RunList } from "./features/conversation/RunList";
import { RunView, lastContextOf } from "./features/conversation/RunView";
import { StepAnnouncer, ToolOutputs, useToolOutput } from "./features/conversation/ToolOutput";
import { useSessionRuns } from "./features/conversation/useSessionRuns";
import { McpSettingsPage } from "./features/mcp/McpSettings";
import { SkillsSettingsPage } from "./features/skills/SkillsSettings";
import { ProjectSkillsNotice } from "./features/skills/ProjectSkillsNotice";
import { McpToolLabels, useMcpLabels } from "./features/mcp/labels";
import { ProjectList } from "./features/projects/ProjectList";
import { folderName } from "./features/projects/RevokeProject";
import { useProjects } from "./features/projects/useProjects";
import { RenameSession } from "./features/sessions/RenameSession";
import { SessionList } from "./features/sessions/SessionList";
import { useNewSession } from "./features/sessions/useNewSession";
import { useSessions } from "./features/sessions/useSessions";
import { useSessionSearch } from "./features/sessions/useSessionSearch";
import { UndoDelete } from "./features/sessions/UndoDelete";
import { useUndoableDelete } from "./features/sessions/useUndoableDelete";
import { useWaiting } from "./features/sessions/useWaiting";
import { ModelSettingsPage } from "./features/settings/ModelSettings";
import { failureText, ModelBadge } from "./features/settings/problem";
import { useHealth } from "./features/settings/useHealth";
import { PreviewPanel } from "./features/tabs/Panel";
import { TabDialog } from "./features/tabs/TabDialog";
import { useOpenTickets } from "./features/tabs/tickets";
import { useSessionTabs } from "./features/tabs/useTabs";
import { UndoDialog, type UndoTarget } from "./features/undo/UndoDialog";
import { UndoSettingsPage } from "./features/undo/UndoSettings";
import { ContextSettingsPage } from "./features/settings/ContextSettings";

const SIM_EXAMPLES = ["example_sim_write", "example_sim_multi", "example_sim_markdown", "example_sim_introspect"] as const;
const LIVE_EXAMPLES = ["example_live_readme", "example_live_list", "example_live_todo"] as const;

interface Props {
  api: Api;
  lang: LangSetting;
  theme: Theme;
  onLang: (l: LangSetting) => void;
  onTheme: (t: Theme) => void;
}

export function App({ api, lang, theme, onLang, onTheme }: Props) {
  const t = useT();
  const [previewOpen, setPreviewOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<null | "settings" | "rename">(null);
  // Settings opened on a section (the session notice opens Skills), and a count of closings: what
  // Settings changed is read again after.
  const [settingsSection, setSettingsSection] = useState<string | undefined>(undefined);
  const [settingsClosed, setSettingsClosed] = useState(0);
  const [modelChanged, setModelChanged] = useState(0);
  // The spending warning the header compares the session's cost with: read again whenever the
  // settings close.
  const [contextSettings, setContextSettings] = useState<Schemas["ContextSettings"] | null>(null);
  useEffect(() => {
    api
      .contextSettings()
      .then(setContextSettings)
      .catch(() => setContextSettings(null));
  }, [api, settingsClosed]);
  const report = useCallback((e: unknown) => setError(e instanceof Error ? e.message : String(e)), []);
  const { sessions, currentId, setCurrentId, loadSessions, waiting: hostWaiting } = useSessions(api, report);
  const search = useSessionSearch(api, sessions);
  const deletion = useUndoableDelete(api, { sessions, loadSessions, show: setCurrentId, report });
  // A session being deleted is gone from everything the person moves through.
  const listed = deletion.pending ? sessions.filter((s) => s.id !== deletion.pending!.id) : sessions;
  // The run a chosen search hit matched, brought into view once its session's runs are read.
  const [reveal, setReveal] = useState<{ sessionId: string; runId: string } | null>(null);
  const pinSession = (id: string, pinned: boolean) =>
    void api
      .pinSession(id, pinned)
      .then(() => loadSessions())
      .catch(report);
  // The session's preview tabs, held by the Host: kept per session there.
  const tabs = useSessionTabs(api, currentId, report);
  const onTabsLive = useRef(tabs.onLive);
  onTabsLive.current = tabs.onLive;

  const { health, reload: reloadHealth } = useHealth(api, report);
  const shown = { sessionId: currentId, projectId: sessions.find((s) => s.id === currentId)?.projectId ?? null };
  const { projects, selected: selectedProject, setSelected: setSelectedProject, authorize, revoke: revokeProject } = useProjects(api, report, loadSessions, shown);

  // Where the first message's session starts.
  const newProject = projects.find((p) => p.id === selectedProject) ?? null;

  const currentRef = useRef<string | null>(null);
  currentRef.current = currentId;

  const openFile = tabs.openFile;
  // On a narrow window the panel opens only when the person asked for the file.
  const openPreview = useCallback(
    (path: string, line?: number) => {
      if (!currentRef.current) return;
      openFile(path, line);
      setPreviewOpen(true);
    },
    [openFile],
  );
  const showWritten = useCallback(
    (path: string) => {
      if (currentRef.current) openFile(path);
    },
    [openFile],
  );

  // open_webpage tickets of the shown session: claimed, shown in the preview, acknowledged.
  const onTicket = useOpenTickets(api, currentId, () => setPreviewOpen(true));
  // Running calls' live output (npm's lines): memory only, per shown session.
  const toolOutput = useToolOutput(currentId);
  const onToolOutput = useRef(toolOutput.onLive);
  onToolOutput.current = toolOutput.onLive;

  // The session's runs, followed by its event stream; files a tool wrote successfully open in
  // a preview tab (UI-01).
  const { runs, cursor, loadedFor, live, refreshRun, addOlder } = useSessionRuns(api, {
    sessionId: currentId,
    sessions,
    loadSessions,
    report,
    onLive: (name, data) => {
      onTabsLive.current(name, data);
      onTicket(name, data);
      onToolOutput.current(name, data);
    },
    onFileDone: showWritten,
  });
  const current = sessions.find((s) => s.id === currentId) ?? null;
  const activeRun = runs.find((r) => r.status === "running" || r.status === "awaiting_approval") ?? null;
  const lastRun = runs[runs.length - 1];
  const liveTail = lastRun ? live[lastRun.id]?.text.length ?? 0 : 0;

  // The current file of each pending write or replace card, keyed by approval so a later
  // change to the same path is compared with the file as it is then.
  const currentFiles = useCurrentFiles(api, currentId, runs);

  const decide = useDecide(api, currentId, report);
  // The undo whose plan is shown, if any.
  const [undoing, setUndoing] = useState<UndoTarget | null>(null);

  const newSession = useNewSession({ api, projectId: selectedProject, currentId, show: setCurrentId, loadSessions, report });
  const modelPick = useModelPick(api, current, loadSessions, report);
  const composer = useComposer({ api, sessionId: currentId, newSession, onMade: modelPick.applyTo, busy: !!activeRun, onStarted: refreshRun, report });

  // A new session suggests a start; in simulation, the scripted scenarios.
  const examples = (
    <div className="examples">
      <p className="muted">{t("examplesTitle")}</p>
      {(health?.mode === "simulation" ? SIM_EXAMPLES : LIVE_EXAMPLES).map((k) => (
        <button key={k} className="example" onClick={() => composer.put(t(k))}>
          {t(k)}
        </button>
      ))}
    </div>
  );

  const cancelRun = useCallback(() => {
    if (activeRun) api.cancel(activeRun.id).catch(report);
  }, [activeRun, api, report]);

  useWorkbenchKeys({
    dialogOpen: !!dialog || tabs.dialogs.length > 0,
    running: !!activeRun,
    stop: cancelRun,
    sessions: listed,
    currentId,
    show: setCurrentId,
  });
  const waiting = useWaiting(hostWaiting, currentId, activeRun?.status);

  // MCP tools in the runs go by server and original name (UI-08).
  const mcpLabels = useMcpLabels(api, runs);

  return (
    // A card of the shown session waits: on a narrow window the open preview docks beside the
    // conversation instead of floating over it, so the card is never covered.
    <div className={["app", previewOpen && "preview-open", currentId !== null && waiting.has(currentId) && "card-waiting"].filter(Boolean).join(" ")}>
      <a
        className="skip-link"
        href={`#${MESSAGE_BOX_ID}`}
        onClick={(e) => {
          // The address's fragment carries the token: focus, never navigate.
          e.preventDefault();
          composer.box.current?.focus();
        }}
      >
        {t("skipToMessage")}
      </a>
      {health?.mode === "simulation" && (
        <div className="banner" role="status">
          {t("simulation")}
        </div>
      )}
      {health?.problem && (
        <div className="banner warn" role="alert">
          {t("modelProblem", { problem: failureText(t, health.problem) })}
        </div>
      )}
      <div className="columns">
        <aside className="sidebar" aria-label={t("sessions")}>
          <header className="brand">
            <span>{t("appName")}</span>
            <ModelBadge model={health?.model} />
            <button className="icon" aria-label={t("settings")} title={t("settings")} onClick={() => setDialog("settings")}>
              <Settings size={18} />
            </button>
          </header>
          <ProjectList projects={projects} selected={selectedProject} onSelect={setSelectedProject} onRevoke={revokeProject} onAuthorize={authorize} />
          <SessionList
            sessions={listed}
            hidden={deletion.pending?.id ?? null}
            projects={projects}
            newIn={projects.find((p) => p.id === selectedProject) ?? null}
            currentId={currentId}
            waiting={waiting}
            onSelect={setCurrentId}
            onNew={() => void newSession()}
            onRename={() => setDialog("rename")}
            onDelete={() => {
              if (!current) return;
              if (current.activeRunId) report(new Error(t("deleteWhileRunning")));
              else deletion.start(current);
            }}
            onPin={pinSession}
            search={search}
            onOpenHit={(hit) => {
              setCurrentId(hit.sessionId);
              setReveal(hit.runId ? { sessionId: hit.sessionId, runId: hit.runId } : null);
            }}
          />
        </aside>

        <main className="conversation">
          {error && (
            <div className="error-bar" role="alert">
              {t("errorBar", { error })}
              <button className="icon" aria-label={t("cancel")} onClick={() => setError(null)}>
                <X size={14} />
              </button>
            </div>
          )}
          {!current ? (
            // Nothing chosen yet: the first message makes its session where the person is.
            <div className="runs first-screen">
              <h1 className="empty">{newProject ? t("noSession", { project: folderName(newProject.root) }) : t("noSessionNoProject")}</h1>
              {examples}
            </div>
          ) : (
            <>
              <ConversationHeader
                api={api}
                session={current}
                projects={projects}
                selectedProject={selectedProject}
                running={!!activeRun}
                previewOpen={previewOpen}
                tabCount={tabs.tabs.length}
                onTogglePreview={() => setPreviewOpen((o) => !o)}
                onAttached={loadSessions}
                report={report}
                context={lastContextOf(runs)}
                contextSettings={contextSettings}
              />
              <ProjectSkillsNotice
                api={api}
                projectId={current.projectId ?? null}
                version={settingsClosed}
                onReview={() => {
                  setSettingsSection("skills");
                  setDialog("settings");
                }}
              />
              <RunList
                api={api}
                sessionId={current.id}
                runs={runs}
                cursor={cursor}
                liveTail={liveTail}
                addOlder={addOlder}
                report={report}
                reveal={reveal && reveal.sessionId === current.id && loadedFor === current.id ? reveal.runId : null}
                onRevealed={() => setReveal(null)}
                empty={
                  runs.length === 0 &&
                  !cursor &&
                  loadedFor === currentId &&
                  examples
                }
                renderRun={(run) => (
                  <McpToolLabels.Provider value={mcpLabels}>
                    <ToolOutputs.Provider value={toolOutput.logs}>
                      <RunView run={run} live={live[run.id]} onDecide={decide} onPreview={openPreview} currentFile={currentFiles.current} onLook={currentFiles.look} actions={activeRun ? undefined : composer.actions} onUndo={activeRun ? undefined : setUndoing} />
                    </ToolOutputs.Provider>
                  </McpToolLabels.Provider>
                )}
              />
            </>
          )}
          {/* One box in one place, so it keeps its focus when the first message makes the
              session. */}
          <Composer
            composer={composer}
            running={!!activeRun}
            onStop={cancelRun}
            last={current ? runs.at(-1)?.text : undefined}
            tools={<ModelPicker model={modelPick} settingsModel={health?.model?.name} />}
          />
        </main>

        <PreviewPanel api={api} sessionId={currentId} tabs={tabs} webTabs={health?.web_tabs ?? "browser"} onHide={() => setPreviewOpen(false)} />
      </div>

      <TabDialog dialog={tabs.dialogs[0]} tab={tabs.tabs.find((x) => x.tabId === tabs.dialogs[0]?.tabId)} onAnswer={tabs.answer} />
      <McpToolLabels.Provider value={mcpLabels}>
        <ApprovalAnnouncer runs={runs} />
      </McpToolLabels.Provider>
      <StepAnnouncer step={toolOutput.step} />
      <SettingsDialog
        open={dialog === "settings"}
        lang={lang}
        theme={theme}
        onLang={onLang}
        onTheme={onTheme}
        onClose={() => {
          setDialog(null);
          setSettingsSection(undefined);
          setSettingsClosed((n) => n + 1);
        }}
        initial={settingsSection}
        sections={[
          {
            id: "model",
            label: t("modelSettings"),
            content: (
              <>
                <ModelSettingsPage
                  api={api}
                  onChanged={() => {
                    reloadHealth();
                    setModelChanged((n) => n + 1);
                  }}
                />
                <ContextSettingsPage api={api} version={modelChanged} />
              </>
            ),
          },
          { id: "mcp", label: t("mcpSettings"), content: <McpSettingsPage api={api} /> },
          { id: "skills", label: t("skillsSettings"), content: <SkillsSettingsPage api={api} /> },
          { id: "undo", label: t("undoSettings"), content: <UndoSettingsPage api={api} /> },
        ]}
      />
      <RenameSession api={api} open={dialog === "rename"} session={current} onClose={() => setDialog(null)} loadSessions={loadSessions} report={report} />
      <UndoDialog api={api} target={undoing} onClose={() => setUndoing(null)} onDone={refreshRun} />
      <UndoDelete pending={deletion.pending} onUndo={deletion.undo} onHold={deletion.hold} onResume={deletion.resume} />
    </div>
  );
}
