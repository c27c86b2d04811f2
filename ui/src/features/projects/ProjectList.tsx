// The sidebar's projects: the authorized folders, the one new sessions start in, revoking it,
// and authorizing another folder by its path.
import { useState } from "react";
import { FolderPlus } from "lucide-react";
import { useT } from "../../i18n";
import type { Project } from "../../types";
import { folderName, RevokeProject } from "./RevokeProject";

interface Props {
  projects: Project[];
  selected: string | null;
  onSelect: (id: string) => void;
  onRevoke: (id: string) => Promise<void>;
  /** Authorizes the folder at `path`; a refusal throws, and its message is shown. */
  onAuthorize: (path: string) => Promise<void>;
}

export function ProjectList({ projects, selected, onSelect, onRevoke, onAuthorize }: Props) {
  const t = useT();
  const [path, setPath] = useState("");
  const [error, setError] = useState<string | null>(null);
  const authorize = async () => {
    setError(null);
    try {
      await onAuthorize(path.trim());
      setPath("");
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <section>
      <h2>{t("projects")}</h2>
      <ul className="list">
        {projects.map((p) => (
          <li key={p.id} className="project-row">
            <button className={p.id === selected ? "item selected" : "item"} onClick={() => onSelect(p.id)} title={p.root}>
              {folderName(p.root)}
            </button>
            {p.id === selected && (
              <span className="row-actions">
                <RevokeProject project={p} onRevoke={onRevoke} />
              </span>
            )}
          </li>
        ))}
      </ul>
      <form
        className="authorize"
        onSubmit={(e) => {
          e.preventDefault();
          void authorize();
        }}
      >
        <input aria-label={t("folderPath")} placeholder={t("folderPath")} value={path} onChange={(e) => setPath(e.target.value)} />
        <button type="submit" title={t("authorizeFolder")} disabled={!path.trim()}>
          <FolderPlus size={16} aria-hidden /> {t("authorize")}
        </button>
      </form>
      <p className="muted small">{t("authorizeHint")}</p>
      {error && <p className="error small" role="alert">{error}</p>}
    </section>
  );
}
