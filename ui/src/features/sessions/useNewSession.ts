// "New session", made once however many times it is asked for: a message sent while the
// session is still being made, or made but not shown yet, goes to that session instead of
// making another.
import { useEffect, useRef } from "react";
import type { Api } from "../../api";

interface Deps {
  api: Api;
  /** The project new sessions start in (the one the person looks at). */
  projectId: string | null;
  /** The session shown now (committed). */
  currentId: string | null;
  show: (id: string) => void;
  loadSessions: () => Promise<unknown>;
  report: (e: unknown) => void;
}

/** Makes a session, or gives the one being made; resolves to its ID, or null when it failed. */
export function useNewSession({ api, projectId, currentId, show, loadSessions, report }: Deps): () => Promise<string | null> {
  const creating = useRef<Promise<string | null> | null>(null);
  const madeId = useRef<string | null>(null);
  const shownId = useRef(currentId);
  // Forgotten only once the made session is shown, checked after every commit (not during a
  // render: a render React has not committed leaves the page's handlers those of a page with
  // no session, and a message sent then must still find the session being made).
  useEffect(() => {
    shownId.current = currentId;
    if (creating.current && madeId.current !== null && madeId.current === currentId) forget();
  });
  const forget = () => {
    creating.current = null;
    madeId.current = null;
  };
  return () =>
    (creating.current ??= (async () => {
      try {
        const s = await api.createSession(projectId ?? undefined);
        await loadSessions();
        // The list's reload may already show it: then no render follows `show`, and nothing
        // else would forget this creation.
        if (shownId.current === s.id) forget();
        else {
          madeId.current = s.id;
          show(s.id);
        }
        return s.id;
      } catch (e) {
        report(e);
        forget();
        return null;
      }
    })());
}
