// The file a pending call would change (its family's `boundFile`, see ../tools/views.ts), as
// the Host's preview shows it now, so its card can diff against it — but only when the
// preview's digest is the digest the approval is bound to (binding.ts). The text is fetched when
// the card appears and again whenever the person looks (the card gets the pointer or focus, the
// window comes back), because a file edited meanwhile must not be shown as the file the change
// applies to: execution would refuse it as stale.
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, type Api } from "../../api";
import type { Run } from "../../types";
import { toolViews } from "../tools/registry";
import type { CurrentFile } from "./binding";

export type { Binding, CurrentFile } from "./binding";

/** The pending approvals whose card diffs against the current file: approval ID → path. */
function boundFiles(runs: Run[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const run of runs) {
    for (const c of run.steps.flatMap((s) => s.toolCalls)) {
      const a = c.approval;
      if (!a || a.state !== "pending") continue;
      const path = toolViews(c.tool).boundFile?.((a.arguments ?? {}) as Record<string, unknown>);
      if (path !== undefined) out.set(a.id, path);
    }
  }
  return out;
}

/** The current files of a session's pending write and replace cards, and `look`, which fetches
 * one again (the person is looking at its card). */
export function useCurrentFiles(api: Api, sessionId: string | null, runs: Run[]) {
  const [files, setFiles] = useState<Record<string, CurrentFile>>({});
  const inFlight = useRef(new Set<string>());
  const pending = useRef(new Map<string, string>());
  pending.current = boundFiles(runs);

  const load = useCallback(
    (id: string) => {
      const path = pending.current.get(id);
      if (!sessionId || path === undefined || inFlight.current.has(id)) return;
      inFlight.current.add(id);
      // A refresh keeps showing what was known until the answer arrives.
      setFiles((f) => (id in f ? f : { ...f, [id]: { state: "loading" } }));
      const set = (c: CurrentFile) => setFiles((f) => ({ ...f, [id]: c }));
      api
        .preview(sessionId, path)
        .then((p) => set({ state: "loaded", content: p.content, sha256: p.sha256 ?? null }))
        .catch((e: unknown) => {
          if (e instanceof ApiError && e.status === 404) set({ state: "missing" });
          else set({ state: "failed", message: e instanceof Error ? e.message : String(e) });
        })
        .finally(() => inFlight.current.delete(id));
    },
    [api, sessionId],
  );

  // Each new card's file once when it appears.
  const keys = [...pending.current.keys()].join(" ");
  useEffect(() => {
    for (const id of pending.current.keys()) if (!(id in files)) load(id);
  }, [keys, files, load]);

  // Back to the window (perhaps from the editor that changed the file): every card again.
  useEffect(() => {
    const again = () => {
      if (document.visibilityState === "visible") for (const id of pending.current.keys()) load(id);
    };
    window.addEventListener("focus", again);
    document.addEventListener("visibilitychange", again);
    return () => {
      window.removeEventListener("focus", again);
      document.removeEventListener("visibilitychange", again);
    };
  }, [load]);

  const current = useCallback((id: string): CurrentFile | undefined => files[id], [files]);
  return { current, look: load };
}
