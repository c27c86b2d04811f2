// The approval card of skills_run_script (FILE-05): first how much of the machine the script
// may reach — confined (Linux: writes only in the project and a temporary folder, no network) or
// the seed's high-privilege mode with the person's full rights, and why (the person's choice on
// the card, where the Host offers both) — then exactly what
// runs: the skill, the script's path and sha256, the interpreter, each argument, the working
// folder, the environment's names, the time limit, and the script's whole text, highlighted, hidden characters made visible. Every value is from
// the approval's canonical arguments, which its digest covers.
import { useT } from "../../i18n";
import { CodeView } from "../../components/CodeView";
import { Reveal, revealText } from "../../components/Reveal";
import { Field } from "../approvals/parts";
import { Args } from "../install/InstallDetails";

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
const list = (v: unknown) => (Array.isArray(v) ? v.map(str) : []);

/** The few words an answered card is titled by ("run scripts/build.py of pdf"). */
export function scriptAction(_tool: string, args: Record<string, unknown>, t: ReturnType<typeof useT>) {
  return t("do_skills_run_script", { script: revealText(str(args.script)), skill: revealText(str(args.skill)) });
}

/** The card's name for this way of running the script, when it offers both. */
export function scriptOption(args: Record<string, unknown>, t: ReturnType<typeof useT>) {
  const access = (args.access ?? {}) as { mode?: unknown };
  return t(access.mode === "confined" ? "scriptRunConfined" : "scriptRunFull");
}

export function ScriptDetails({ args }: { tool: string; args: Record<string, unknown> }) {
  const t = useT();
  const argv = list(args.args);
  const env = list(args.env);
  const script = str(args.script);
  const access = (args.access ?? {}) as { mode?: unknown; why?: unknown; modelAsked?: unknown };
  return (
    <div className="details inst script">
      {access.modelAsked === "full" && access.mode === "confined" ? (
        <p className="muted small" role="note">
          {t("scriptModelAsked")}
        </p>
      ) : null}
      {access.mode === "confined" ? (
        <p className="inst-impact" role="note">
          {t("scriptConfined")}
        </p>
      ) : (
        <p className="inst-cleanup" role="note">
          {t("scriptFullAccess")} <Reveal text={str(access.why)} />
        </p>
      )}
      <Field label={t("scriptSkill")} value={str(args.skill)} />
      <Field label={t("scriptPath")} value={script} />
      <Field label={t("scriptInterpreter")} value={str(args.interpreter)} />
      <Args label={t("scriptArgs")} args={argv} />
      <Field label={t("scriptCwd")} value={str(args.cwd)} />
      <Field label={t("scriptEnv")} value={env.join(", ")} />
      <div className="field">
        <span className="muted">{t("scriptTimeLimit")}</span> <span>{t("scriptSeconds", { n: Number(args.timeLimitSeconds) || 0 })}</span>
      </div>
      <Field label="SHA-256" value={str(args.sha256)} />
      <CodeView text={str(args.content)} path={script} label={t("scriptText", { script: revealText(script) })} />
    </div>
  );
}
