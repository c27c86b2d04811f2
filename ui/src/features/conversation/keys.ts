// The workbench's own keys: Esc stops the run, Alt+↓/↑ moves between sessions, "/" outside a
// text field goes to the message box.
import { useEffect } from "react";
import type { Session } from "../../types";
import { isTextField } from "../approvals/keys";
import { MESSAGE_BOX_ID } from "./Composer";

interface Keys {
  /** A dialog is open: its Escape is its own. */
  dialogOpen: boolean;
  running: boolean;
  stop: () => void;
  sessions: Session[];
  currentId: string | null;
  show: (id: string) => void;
}

export function useWorkbenchKeys({ dialogOpen, running, stop, sessions, currentId, show }: Keys) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // An Escape that closes a dialog, a menu or an IME composition must never cancel a run
      // by accident; anywhere else — a focused approval card included — it stops the run.
      if (dialogOpen) return;
      if (e.key === "Escape" && running && !e.defaultPrevented && !e.isComposing) {
        e.preventDefault();
        stop();
      }
      if (e.key === "/" && !e.ctrlKey && !e.altKey && !e.metaKey && !isTextField(e.target) && !e.defaultPrevented) {
        const box = document.getElementById(MESSAGE_BOX_ID);
        if (box) {
          e.preventDefault();
          box.focus();
        }
      }
      if (e.altKey && (e.key === "ArrowDown" || e.key === "ArrowUp") && sessions.length) {
        e.preventDefault();
        const i = sessions.findIndex((s) => s.id === currentId);
        const next = sessions[(i + (e.key === "ArrowDown" ? 1 : -1) + sessions.length) % sessions.length];
        if (next) show(next.id);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [dialogOpen, running, stop, sessions, currentId, show]);
}
