// The model a session's next run asks for, picked beside the message box: "as in Settings" (the
// default, which names the model Settings gives) or a model of the price table Settings holds
// (DeepSeek's own by default). A pick is the session's (`PATCH /api/sessions/{id}` with
// `model`) and applies from its next run; a run under way keeps its model. Before the first
// message there is no session yet: the pick waits and is given to the session that message
// makes, before the message is sent.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Api } from "../../api";
import type { Session } from "../../types";
import { useT } from "../../i18n";

export interface ModelPick {
  /** The shown session's pick, or the pick waiting for the first message; "" follows Settings. */
  value: string;
  /** The names offered besides "as in Settings". */
  names: string[];
  pick: (name: string) => void;
  /** Gives a waiting pick to the session just made for the first message. */
  applyTo: (sessionId: string) => Promise<void>;
}

export function useModelPick(api: Pick<Api, "settings" | "setSessionModel">, session: Session | null, loadSessions: () => Promise<unknown>, report: (e: unknown) => void): ModelPick {
  const [names, setNames] = useState<string[]>([]);
  const [waiting, setWaiting] = useState("");
  const waitingRef = useRef(waiting);
  waitingRef.current = waiting;
  useEffect(() => {
    let stale = false;
    // Without the table (an old Host, a refusal) only "as in Settings" and the session's own
    // pick are offered: nothing to report.
    api
      .settings()
      .then((s) => !stale && setNames(Object.keys(s.prices.models)))
      .catch(() => {});
    return () => {
      stale = true;
    };
  }, [api]);
  const sessionId = session?.id ?? null;
  const pick = useCallback(
    (name: string) => {
      if (!sessionId) {
        setWaiting(name);
        return;
      }
      api
        .setSessionModel(sessionId, name)
        .then(() => loadSessions())
        .catch(report);
    },
    [api, sessionId, loadSessions, report],
  );
  const applyTo = useCallback(
    async (id: string) => {
      const name = waitingRef.current;
      if (!name) return;
      await api.setSessionModel(id, name);
      setWaiting("");
      await loadSessions();
    },
    [api, loadSessions],
  );
  const value = session ? (session.model ?? "") : waiting;
  return { value, names: value && !names.includes(value) ? [...names, value] : names, pick, applyTo };
}

/** `settingsModel` is the model Settings gives (the Host's model in effect). */
export function ModelPicker({ model, settingsModel, disabled }: { model: ModelPick; settingsModel?: string; disabled?: boolean }) {
  const t = useT();
  return (
    <select
      className="model-pick"
      aria-label={t("modelPick")}
      title={t("modelPickHint")}
      value={model.value}
      disabled={disabled}
      onChange={(e) => model.pick(e.target.value)}
    >
      <option value="">{settingsModel ? t("modelAsSettingsNamed", { model: settingsModel }) : t("modelAsSettings")}</option>
      {model.names
        .filter((n) => n !== settingsModel || model.value === n)
        .map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
    </select>
  );
}
