// The notice in a session whose project brings skills the person has not trusted (FILE-05):
// runs do not use them, and this says so where the person works, with the way to review them
// (Settings → Skills). Read from the Host when the session's project changes and again when
// Settings closes; nothing is decided here.
import { useEffect, useState } from "react";
import { useT } from "../../i18n";
import type { Schemas } from "../../types";

export interface NoticeApi {
  skills(): Promise<Schemas["SkillsView"]>;
}

export function ProjectSkillsNotice({ api, projectId, version, onReview }: { api: NoticeApi; projectId: string | null; version: number; onReview: () => void }) {
  const t = useT();
  const [waiting, setWaiting] = useState<{ untrusted: number; changed: number } | null>(null);
  useEffect(() => {
    setWaiting(null);
    if (!projectId) return;
    let live = true;
    api
      .skills()
      .then((view) => {
        if (!live) return;
        const skills = view.projects.find((p) => p.projectId === projectId)?.skills ?? [];
        const untrusted = skills.filter((s) => s.trust === "untrusted").length;
        const changed = skills.filter((s) => s.trust === "changed").length;
        setWaiting(untrusted + changed > 0 ? { untrusted, changed } : null);
      })
      // Only a notice: a failed read shows none (Settings says what failed).
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, projectId, version]);
  if (!waiting) return null;
  return (
    <div className="notice small" role="note">
      {waiting.untrusted > 0 && t("skillsNoticeUntrusted", { n: waiting.untrusted })}{" "}
      {waiting.changed > 0 && t("skillsNoticeChanged", { n: waiting.changed })}{" "}
      <button type="button" className="link" onClick={onReview}>
        {t("skillsNoticeReview")}
      </button>
    </div>
  );
}
