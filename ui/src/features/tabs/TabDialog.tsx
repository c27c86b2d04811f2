// The questions the Host asks the person about a tab (WEB-36): "close this page?"
// (default: keep) and a page's own `beforeunload` (Leave/Stay). Neither is a tool approval.
// **Invariant:** only a deliberate click answers: the safe button (Keep, Stay) has the focus,
// Escape and clicks outside do nothing, and a held key never reaches the other button.
import * as Dialog from "@radix-ui/react-dialog";
import { useRef, useState } from "react";
import type { PreviewTab, TabDialog as Question } from "../../types";
import { useT } from "../../i18n";

export function TabDialog({ dialog, tab, onAnswer }: { dialog: Question | undefined; tab: PreviewTab | undefined; onAnswer: (dialogId: string, accept: boolean) => Promise<void> }) {
  const t = useT();
  const keep = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  if (!dialog) return null;
  const closing = dialog.kind === "close_confirm";
  const name = tab ? tab.title || tab.url || "" : "";
  const answer = (accept: boolean) => {
    if (busy) return;
    setBusy(true);
    void onAnswer(dialog.dialogId, accept).finally(() => setBusy(false));
  };
  return (
    <Dialog.Root open>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay tab-overlay" />
        <Dialog.Content
          className="dialog tab-dialog"
          role="alertdialog"
          aria-describedby="tab-dialog-body"
          data-dialog-id={dialog.dialogId}
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            keep.current?.focus();
          }}
          // Escape is not an answer here (and must not reach the workbench, where it stops a run).
          onEscapeKeyDown={(e) => e.preventDefault()}
          onPointerDownOutside={(e) => e.preventDefault()}
          onInteractOutside={(e) => e.preventDefault()}
        >
          <Dialog.Title>{closing ? t("dialogCloseTitle") : t("dialogLeaveTitle")}</Dialog.Title>
          <div id="tab-dialog-body">
            {closing ? (
              <p>{t("dialogCloseBody", { title: name })}</p>
            ) : (
              <>
                <p>{t("dialogLeaveBody", { title: name })}</p>
                {/* The page's own words: untrusted, shown as plain text. */}
                {dialog.message && <blockquote className="page-says">{dialog.message}</blockquote>}
              </>
            )}
            {tab?.url && <p className="muted small mono">{tab.url}</p>}
          </div>
          <div className="dialog-buttons">
            <button ref={keep} className="primary" disabled={busy} onClick={() => answer(false)}>
              {closing ? t("dialogKeep") : t("dialogStay")}
            </button>
            <button
              className="danger"
              disabled={busy}
              // A key held down from before the dialog opened repeats; it never accepts.
              onKeyDown={(e) => {
                if (e.repeat) e.preventDefault();
              }}
              onClick={() => answer(true)}
            >
              {closing ? t("dialogClose") : t("dialogLeave")}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
