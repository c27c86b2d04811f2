// The authorized projects and the one new sessions go in: read from the Host at start, again
// after a folder is authorized or revoked.
import { useCallback, useEffect, useState } from "react";
import type { Api } from "../../api";
import type { Project } from "../../types";

export function useProjects(api: Api, report: (e: unknown) => void, onRevoked: () => Promise<unknown>) {
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

  return { projects, selected, setSelected, authorize, revoke };
}
