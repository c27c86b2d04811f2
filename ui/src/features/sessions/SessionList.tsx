// The sidebar's sessions: which one is shown, which wait for an approval or have a run going,
// a new one, and renaming or deleting the shown one.
import { Pencil, Plus, Trash2 } from "lucide-react";
import { useT } from "../../i18n";
import type { Project, Session } from "../../types";
import { folderName } from "../projects/RevokeProject";
import { sessionTitle } from "./title";

interface Props {
  sessions: Session[];
  /** The authorized projects: each session is labelled with its own once sessions of more
   * than one place are listed. */
  projects: Project[];
  /** Where New session starts a session (none: without a folder). */
  newIn: Project | null;
  currentId: string | null;
  /** Sessions with a run waiting for the person's approval. */
  waiting: ReadonlySet<string>;
  onSelect: (id: string) => void;
  onNew: () => void;
  onRename: () => void;
  onDelete: () => void;
}

export function SessionList({ sessions, projects, newIn, currentId, waiting, onSelect, onNew, onRename, onDelete }: Props) {
  const t = useT();
  const places = new Set(sessions.map((s) => s.projectId ?? null));
  // A session's place: its project's folder, the folder it had (a revoked project), or none.
  const placeOf = (s: Session) => {
    const p = projects.find((x) => x.id === s.projectId);
    return p ? folderName(p.root) : s.projectId ? t("placeRevoked") : t("noFolder");
  };
  const newTitle = newIn ? t("newSessionIn", { folder: folderName(newIn.root) }) : t("newSessionNoFolder");
  return (
    <section className="grow">
      <h2>
        {t("sessions")}
        <button className="icon" aria-label={t("newSession")} aria-description={newTitle} title={newTitle} onClick={onNew}>
          <Plus size={18} />
        </button>
      </h2>
      <ul className="list">
        {sessions.map((s) => (
          <li key={s.id} className="session-row">
            <button
              className={s.id === currentId ? "item selected" : "item"}
              onClick={() => onSelect(s.id)}
              aria-current={s.id === currentId}
              data-session-id={s.id}
              title={sessionTitle(t, s)}
            >
              <span className="item-title">{sessionTitle(t, s)}</span>
              {places.size > 1 && <span className="item-place">{placeOf(s)}</span>}
              {waiting.has(s.id) ? (
                <span className="badge badge-awaiting_approval">{t("needsApproval")}</span>
              ) : (
                s.activeRunId && <span className="dot" aria-label={t("status_running")} />
              )}
            </button>
            {s.id === currentId && (
              <span className="row-actions">
                <button className="icon" aria-label={t("rename")} title={t("rename")} onClick={onRename}>
                  <Pencil size={15} />
                </button>
                <button className="icon" aria-label={t("delete")} title={t("delete")} onClick={onDelete}>
                  <Trash2 size={15} />
                </button>
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
