// Revoking a project's authorization (DEC-03): a row action in the project list and its
// confirmation, which says what happens — the sessions keep their history and lose the file
// tools, a file change waiting for approval becomes void, nothing in the folder is touched.
import { useState } from "react";
import { FolderMinus } from "lucide-react";
import { ConfirmDialog } from "../../components/Dialogs";
import { useT } from "../../i18n";
import type { Project, Session } from "../../types";

/** The last name of a folder's path, as the project list shows it. */
export function folderName(root: string): string {
  return root.split("/").filter(Boolean).pop() ?? root;
}

/** What a session's header says about its folder: one, none, or one that was revoked (the
 * session keeps its link to the project, but not its root). */
export function folderLine(t: ReturnType<typeof useT>, session: Pick<Session, "projectId" | "root">): string {
  if (session.root) return `${t("inProject")}${t("colon")} ${session.root}`;
  return session.projectId ? t("projectRevoked") : t("noProject");
}

export function RevokeProject({ project, onRevoke }: { project: Project; onRevoke: (id: string) => Promise<void> }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button className="icon" aria-label={t("revokeProject")} title={t("revokeProject")} onClick={() => setOpen(true)}>
        <FolderMinus size={15} />
      </button>
      <ConfirmDialog
        open={open}
        title={t("revokeProjectTitle", { folder: folderName(project.root) })}
        body={t("revokeProjectBody")}
        confirm={t("revoke")}
        onClose={() => setOpen(false)}
        onConfirm={() => {
          void onRevoke(project.id).finally(() => setOpen(false));
        }}
      />
    </>
  );
}
