// Host problems worded in the person's language: the Host sends a stable `kind` with its
// parameters; the English `message` is only the fallback for a kind this UI does not know.
import { translator, useT, type Key, type T } from "../../i18n";
import type { Problem, RunModel } from "./types";

/** Words for a `source` parameter (a variable's name stays as it is). */
function sourceWord(t: T, code: string | undefined): string {
  if (!code) return "";
  const key = `src_${code}` as Key;
  const word = t(key);
  return word === key ? code : word;
}

export function problemText(t: T, p: Problem): string {
  const key = `problem_${p.kind}` as Key;
  const text = t(key, { ...p.params, source: sourceWord(t, p.params.source) });
  return text === key ? p.message : text;
}

const english = translator("en");

/** A run error to word: the wire's `RunError`, or one stored by an older Host (without
 * parameters) or of a kind this UI does not know, which keep the Host's sentence. */
export interface WordedError {
  kind: string;
  message: string;
  params?: Record<string, string>;
}

/** The key that words a run error: a rate limit says whether it asked for too long or kept on
 * after Wisp waited. */
function runErrorKey(e: WordedError): Key {
  if (e.kind === "rate_limited" && e.params?.asked) return "runError_rate_limited_asked";
  if (e.kind === "rate_limited" && e.params?.waited) return "runError_rate_limited_waited";
  return `runError_${e.kind}` as Key;
}

/** A run failure in the person's language, from its kind and parameters. In English the
 * Host's own sentence says more (it may quote the provider); a kind this UI does not know,
 * or one whose parameters are missing (a run stored by an older Host), keeps that sentence. */
export function runErrorText(t: T, e: WordedError): string {
  const key = runErrorKey(e);
  const params = e.params ?? {};
  const text = t(key, { ...params, source: sourceWord(t, params.source) });
  if (text === key || t(key) === english(key) || /\{\w+\}/.test(text)) return e.message;
  return text;
}

export function ProblemText({ problem, fallback }: { problem?: Problem | null; fallback?: string }) {
  const t = useT();
  return <>{problem ? problemText(t, problem) : fallback}</>;
}

/** "DeepSeek · deepseek-v4-flash", simulation labelled as such. */
export function ModelBadge({ model }: { model?: RunModel | null }) {
  const t = useT();
  if (!model) return null;
  return (
    <span className={`model-badge provider-${model.provider}`} title={t("modelInUse", { p: t(`provider_${model.provider}` as Key), m: model.name })}>
      {t(`provider_${model.provider}` as Key)} · {model.name}
    </span>
  );
}
