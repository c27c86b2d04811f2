// The authorized projects and the one new sessions go in: read from the Host at start, again
// after a folder is authorized or revoked. The project new sessions go in follows the session
// the person looks at; picking a project or authorizing a folder chooses another until another
// session is shown.
import { useCallback, useEffect, useState } from "react";
import type { Api } from "../../api";
import type { Project } from "../../types";

/** The session shown now and the project it works in. */
export interface Shown {
  sessionId: string | null;
  projectId: string | null;
}

export function useProjects(api: Api, report: (e: unknown) => void, onRevoked: () => Promise<unknown>, shown: Shown) {
  const [projects, setProjects] = useState<Project[]>([]);
  const [selected, setSelected] = useState<string | null>(null);

  useEffect(() => {
    api
      .projects()
      .then((p) => {
        setProjects(p);
        setSelected((s) => s ?? p[0]?.id ?? null);
      })
      .catch(report);
  }, [api, report]);

  /** Authorizes a folder by its path (the Host checks it); a refusal is thrown to the form. */
  const authorize = useCallback(
    async (path: string) => {
      const p = await api.addProject(path);
      setProjects(await api.projects());
      setSelected(p.id);
    },
    [api],
  );

  const revoke = useCallback(
    async (id: string) => {
      try {
        await api.revokeProject(id);
        const list = await api.projects();
        setProjects(list);
        setSelected(list[0]?.id ?? null);
        await onRevoked();
      } catch (e) {
        report(e);
      }
    },
    [api, report, onRevoked],
  );

  useEffect(() => {
    if (shown.projectId) setSelected(shown.projectId);
  }, [shown.sessionId, shown.projectId]);

  return { projects, selected, setSelected, authorize, revoke };
}
