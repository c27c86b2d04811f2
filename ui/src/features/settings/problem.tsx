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

/** Run failures whose kind says everything without parameters, worded like the problem of the
 * same meaning; any other kind keeps the Host's sentence. */
const RUN_ERROR_PROBLEMS: Record<string, string> = {
  insufficient_balance: "no_balance",
  missing_key: "missing_key",
  rate_limited: "rate_limited",
};

const english = translator("en");

export function runErrorText(t: T, e: { kind: string; message: string }): string {
  const kind = RUN_ERROR_PROBLEMS[e.kind];
  if (!kind) return e.message;
  const key = `problem_${kind}` as Key;
  // In English the Host's own sentence says more (it may quote the provider).
  return t(key) === english(key) ? e.message : problemText(t, { kind, message: e.message, params: {} });
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
