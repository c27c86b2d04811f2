// The offer to undo a delete: which session goes, and Undo. It takes the focus (the Delete
// button it came from is gone), so one key undoes; when it goes, the focus goes to the message
// box. Its time stops while the pointer is on it.
import { useEffect, useRef } from "react";
import { useT } from "../../i18n";
import { MESSAGE_BOX_ID } from "../conversation/Composer";
import type { Session } from "../../types";
import { sessionTitle } from "./title";

interface Props {
  pending: Session | null;
  onUndo: () => void;
  onHold: () => void;
  onResume: () => void;
}

export function UndoDelete({ pending, onUndo, onHold, onResume }: Props) {
  const t = useT();
  const button = useRef<HTMLButtonElement>(null);
  const toast = useRef<HTMLDivElement>(null);
  const offered = useRef(false);
  useEffect(() => {
    if (pending) {
      offered.current = true;
      button.current?.focus();
    } else if (offered.current) {
      offered.current = false;
      const at = document.activeElement;
      if (!at || at === document.body || toast.current?.contains(at)) document.getElementById(MESSAGE_BOX_ID)?.focus();
    }
  }, [pending]);
  return (
    <div ref={toast} className="undo-toast" role="status" hidden={!pending} onMouseEnter={onHold} onMouseLeave={onResume}>
      {pending && (
        <>
          <span>{t("sessionDeleting", { title: sessionTitle(t, pending) })}</span>
          <button ref={button} onClick={onUndo}>
            {t("undo")}
          </button>
        </>
      )}
    </div>
  );
}
