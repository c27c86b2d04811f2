// The message box: what the person writes, sending it as a new run, and stopping the active run.
// The box is emptied when the message leaves, not when the Host answers: what the person types
// meanwhile stays. A failed send puts the message back in front of it.
import { useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from "react";
import { Send, Square } from "lucide-react";
import type { Api } from "../../api";
import { useT } from "../../i18n";
import type { RunActions } from "./RunView";

/** The message box, where the focus goes back to after a card is answered. */
export const MESSAGE_BOX_ID = "message-box";

export interface ComposerState {
  draft: string;
  setDraft: (text: string) => void;
  box: RefObject<HTMLTextAreaElement | null>;
  /** Sends what the box holds. */
  send: () => void;
  /** Puts `text` into the box and focuses it (the person clicked something that asked so). */
  put: (text: string) => void;
  /** Retry and Continue start a new run; Edit & resend puts the text in the box. */
  actions: RunActions;
}

interface Options {
  api: Api;
  sessionId: string | null;
  /** Makes the session a first message goes to when none is shown (in the project the person
   * is looking at); its ID, or null when it could not be made (reported). */
  newSession: () => Promise<string | null>;
  /** Readies a session the first message just made (the model picked for it) before the
   * message goes. */
  onMade?: (sessionId: string) => Promise<void>;
  /** A run of the session is active: nothing is sent. */
  busy: boolean;
  onStarted: (runId: string) => void;
  report: (e: unknown) => void;
}

export function useComposer({ api, sessionId, newSession, onMade, busy, onStarted, report }: Options): ComposerState {
  const [draft, setDraft] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  // The first screen is ready to type: the box has the focus once, at start.
  useEffect(() => {
    box.current?.focus({ preventScroll: true });
  }, []);
  const sending = useRef(false);
  const startRun = async (text: string, fromBox: boolean) => {
    if (!text || busy || sending.current) return;
    sending.current = true;
    if (fromBox) setDraft("");
    const putBack = () => fromBox && setDraft((d) => (d ? `${text}\n${d}` : text));
    try {
      // The first message of a first visit makes its session (newSession reports a failure).
      const sid = sessionId ?? (await newSession());
      if (!sid) {
        putBack();
        return;
      }
      if (!sessionId) await onMade?.(sid);
      const { runId } = await api.startRun(sid, text);
      onStarted(runId);
    } catch (e) {
      putBack();
      report(e);
    } finally {
      sending.current = false;
    }
  };
  const startRunRef = useRef(startRun);
  startRunRef.current = startRun;
  // The person clicked what puts text in the box, so the box taking the focus is what they
  // asked for.
  const put = useMemo(
    () => (text: string) => {
      setDraft(text);
      box.current?.focus();
    },
    [],
  );
  const actions = useMemo(() => ({ send: (text: string) => void startRunRef.current(text, false), edit: put }), [put]);
  return { draft, setDraft, box, send: () => void startRun(draft.trim(), true), put, actions };
}

/** `last` is the session's latest message: ↑ in an empty box brings it back to edit. */
export function Composer({ composer, running, onStop, last, tools }: { composer: ComposerState; running: boolean; onStop: () => void; last?: string; tools?: ReactNode }) {
  const t = useT();
  const { draft, setDraft, box, send } = composer;
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <textarea
        ref={box}
        id={MESSAGE_BOX_ID}
        aria-label={t("messagePlaceholder")}
        placeholder={t("messagePlaceholder")}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            send();
          }
          if (e.key === "ArrowUp" && !draft && last && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
            e.preventDefault();
            setDraft(last);
          }
        }}
        rows={3}
      />
      <div className="composer-side">
        {tools}
        {running ? (
          <button type="button" className="danger" onClick={onStop} aria-label={t("stop")}>
            <Square size={16} /> {t("stop")}
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!draft.trim()} aria-label={t("send")}>
            <Send size={16} /> {t("send")}
          </button>
        )}
      </div>
    </form>
  );
}
