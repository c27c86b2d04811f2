// The sidebar's sessions: which one is shown, which wait for an approval or have a run going,
// which are pinned, a new one, pinning, renaming or deleting the shown one, and a search that
// lists the sessions found in place of them all.
import { Pencil, Pin, PinOff, Plus, Trash2 } from "lucide-react";
import { useT } from "../../i18n";
import type { Project, SearchHit, Session } from "../../types";
import { folderName } from "../projects/RevokeProject";
import { SearchHits } from "./SearchHits";
import { sessionTitle } from "./title";
import type { SessionSearch } from "./useSessionSearch";

interface Props {
  sessions: Session[];
  /** A session being deleted: left out of what a search found, too. */
  hidden?: string | null;
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
  onPin: (id: string, pinned: boolean) => void;
  search: SessionSearch;
  /** A search hit chosen: its session shown at the run that matched. */
  onOpenHit: (hit: SearchHit) => void;
}

export function SessionList({ sessions, hidden = null, projects, newIn, currentId, waiting, onSelect, onNew, onRename, onDelete, onPin, search, onOpenHit }: Props) {
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
      <input
        type="search"
        className="session-search"
        aria-label={t("searchSessions")}
        placeholder={t("searchPlaceholder")}
        value={search.query}
        maxLength={200}
        onChange={(e) => search.setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape" && search.query) {
            e.preventDefault();
            search.setQuery("");
          }
        }}
      />
      {search.query.trim() ? (
        <SearchHits query={search.query} results={search.results && hidden ? { ...search.results, hits: search.results.hits.filter((h) => h.sessionId !== hidden) } : search.results} error={search.error} currentId={currentId} onOpen={onOpenHit} />
      ) : (
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
                {s.pinned && (
                  <span className="pin-mark" role="img" aria-label={t("pinned")} title={t("pinned")}>
                    <Pin size={12} />
                  </span>
                )}
                {places.size > 1 && <span className="item-place">{placeOf(s)}</span>}
                {waiting.has(s.id) ? (
                  <span className="badge badge-awaiting_approval">{t("needsApproval")}</span>
                ) : (
                  s.activeRunId && <span className="dot" aria-label={t("status_running")} />
                )}
              </button>
              {s.id === currentId && (
                <span className="row-actions">
                  <button className="icon" aria-label={s.pinned ? t("unpin") : t("pin")} title={s.pinned ? t("unpin") : t("pin")} onClick={() => onPin(s.id, !s.pinned)}>
                    {s.pinned ? <PinOff size={15} /> : <Pin size={15} />}
                  </button>
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
      )}
    </section>
  );
}
