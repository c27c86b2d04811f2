// Renaming the shown session: asked in its own dialog, then the Host is told and the list read
// again. (Deleting asks nothing: it is undoable for a few seconds, `useUndoableDelete`.)
import type { Api } from "../../api";
import { RenameDialog } from "../../components/Dialogs";
import { useT } from "../../i18n";
import type { Session } from "../../types";
import { sessionTitle } from "./title";

interface Props {
  api: Api;
  open: boolean;
  session: Session | null;
  onClose: () => void;
  loadSessions: () => Promise<Session[]>;
  report: (e: unknown) => void;
}

export function RenameSession({ api, open, session, onClose, loadSessions, report }: Props) {
  const t = useT();
  return (
    <RenameDialog
      open={open}
      initial={session ? sessionTitle(t, session) : ""}
      onClose={onClose}
      onSave={(title) => {
        if (!session) return;
        api.renameSession(session.id, title).then(loadSessions).catch(report).finally(onClose);
      }}
    />
  );
}
