// Renaming and deleting the shown session: each asks in its own dialog, then tells the Host and
// reads the list again (a deleted session's place goes to the newest one left).
import type { Api } from "../../api";
import { ConfirmDialog, RenameDialog } from "../../components/Dialogs";
import { useT } from "../../i18n";
import type { Session } from "../../types";
import { sessionTitle } from "./title";

interface Props {
  api: Api;
  open: "rename" | "delete" | null;
  session: Session | null;
  onClose: () => void;
  loadSessions: () => Promise<Session[]>;
  show: (id: string | null) => void;
  report: (e: unknown) => void;
}

export function SessionDialogs({ api, open, session, onClose, loadSessions, show, report }: Props) {
  const t = useT();
  return (
    <>
      <RenameDialog
        open={open === "rename"}
        initial={session ? sessionTitle(t, session) : ""}
        onClose={onClose}
        onSave={(title) => {
          if (!session) return;
          api.renameSession(session.id, title).then(loadSessions).catch(report).finally(onClose);
        }}
      />
      <ConfirmDialog
        open={open === "delete"}
        title={t("deleteSession")}
        body={t("deleteSessionBody")}
        confirm={t("delete")}
        onClose={onClose}
        onConfirm={() => {
          if (!session) return;
          api
            .deleteSession(session.id)
            .then(async () => {
              const list = await loadSessions();
              show(list[0]?.id ?? null);
            })
            .catch(report)
            .finally(onClose);
        }}
      />
    </>
  );
}
