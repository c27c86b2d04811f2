// The shown session's header: its title, what it cost, its folder (and, for a session without
// one, a form to attach an authorized project), and the toggle of the preview panel.
import { Download, FileText } from "lucide-react";
import type { Api } from "../../api";
import { useT } from "../../i18n";
import type { Project, Schemas, Session, StepContext } from "../../types";
import { folderLine } from "../projects/RevokeProject";
import { contextUseText, sessionUsageText, spendingText } from "./RunView";
import { sessionTitle } from "../sessions/title";

interface Props {
  api: Api;
  session: Session;
  projects: Project[];
  selectedProject: string | null;
  running: boolean;
  previewOpen: boolean;
  tabCount: number;
  onTogglePreview: () => void;
  onAttached: () => Promise<unknown>;
  report: (e: unknown) => void;
  /** The session's newest request's context, when one recorded it. */
  context: StepContext | null;
  /** Settings → Model's part on long sessions, once read. */
  contextSettings: Schemas["ContextSettings"] | null;
}

export function ConversationHeader({ api, session, projects, selectedProject, running, previewOpen, tabCount, onTogglePreview, onAttached, report, context, contextSettings }: Props) {
  const t = useT();
  const root = session.root ?? null;
  const use = context ? contextUseText(t, context) : null;
  const cost = [sessionUsageText(t, session.usage), use].filter((p): p is string => p !== null).join(" · ") || null;
  const passed = spendingText(t, session.usage, contextSettings?.spendingWarning, contextSettings?.currency ?? "USD");
  return (
    <header className="conv-head">
      <h1 title={sessionTitle(t, session)}>{sessionTitle(t, session)}</h1>
      {cost && (
        <span className="muted small session-cost" data-testid="session-cost">
          {cost}
        </span>
      )}
      {passed && (
        <span className="small warn spending-passed" role="status" data-testid="spending-passed">
          {passed}
        </span>
      )}
      <span className="muted small root" title={root ?? undefined}>
        {folderLine(t, session)}
      </span>
      {/* A session's folder never changes: one whose folder was revoked attaches none. */}
      {!root && !session.projectId && projects.length > 0 && (
        <form
          className="attach"
          onSubmit={(e) => {
            e.preventDefault();
            const pid = new FormData(e.currentTarget).get("project");
            if (typeof pid === "string") api.attachProject(session.id, pid).then(onAttached).catch(report);
          }}
        >
          <select name="project" aria-label={t("attachFolder")} defaultValue={selectedProject ?? projects[0]?.id}>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.root}
              </option>
            ))}
          </select>
          <button type="submit" disabled={running}>
            {t("attach")}
          </button>
        </form>
      )}
      <button className="link small export" onClick={() => void exportMarkdown(api, session).catch(report)}>
        <Download size={14} aria-hidden /> {t("exportSession")}
      </button>
      <button className="preview-toggle" aria-expanded={previewOpen} aria-controls="preview-panel" onClick={onTogglePreview}>
        <FileText size={15} aria-hidden /> {t("preview")}
        {tabCount ? ` (${tabCount})` : ""}
      </button>
    </header>
  );
}

/** Saves the session as a Markdown file (the Host writes it; the browser downloads it). */
async function exportMarkdown(api: Api, session: Session) {
  const blob = await api.exportSession(session.id);
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = `wisp-${session.id}.md`;
  a.click();
  // After the click has started the download.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
