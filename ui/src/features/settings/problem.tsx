// Failures worded in the person's language: the Host sends a kind of a closed list with its
// parameters and nothing else (its English sentence stays in its log and command line).
import { useT, type Key, type T } from "../../i18n";
import type { Failure, RunModel } from "./types";
import type { FailureKind } from "./failureKinds";

/** Words for a `source` parameter (a variable's name stays as it is). */
function sourceWord(t: T, code: string | undefined): string {
  if (!code) return "";
  const key = `src_${code}` as Key;
  const word = t(key);
  return word === key ? code : word;
}

/** The key that words a failure: each kind has its own (a kind without one fails to compile
 * here), a rate limit says whether it asked for too long or kept on after Wisp waited, and a
 * model not offered lists what is when the endpoint said. */
function failureKey(f: Failure): Key {
  const p = f.params ?? {};
  if (f.kind === "rate_limited" && p.asked) return "failure_rate_limited_asked";
  if (f.kind === "rate_limited" && p.waited) return "failure_rate_limited_waited";
  if (f.kind === "model_not_offered" && p.offered) return "failure_model_not_offered_offered";
  const key: `failure_${FailureKind}` & Key = `failure_${f.kind}`;
  return key;
}

/** A failure (a run's error, a retry's reason, a settings problem) in the person's language,
 * from its kind and parameters only, with the service's own words when it gave any. A failure
 * stored by an older Host may lack a parameter its wording names: the wording says so where
 * the value would be rather than show a placeholder. */
export function failureText(t: T, f: Failure): string {
  const key = failureKey(f);
  const params = f.params ?? {};
  let text = t(key, { ...params, source: sourceWord(t, params.source) }).replace(/\{\w+\}/g, t("notRecorded"));
  if (params.detail && !t(key).includes("{detail}")) text += t("failureSaid", { detail: params.detail });
  // The endpoint came from the environment, so the model likely did too.
  if (f.kind === "model_not_offered" && params.source === "DEEPSEEK_BASE_URL") text += t("failureModelFromEnv");
  return text;
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
