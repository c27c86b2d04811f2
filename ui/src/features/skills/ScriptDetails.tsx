// The approval card of skills_run_script (FILE-05): first how much of the machine the script
// may reach — confined (Linux: writes only in the project and a temporary folder, no network) or
// the seed's high-privilege mode with the person's full rights, and why — then exactly what runs — the skill, the script's path and sha256, the
// interpreter, each argument, the working folder, the environment's names and the time limit —
// and the script's whole text, highlighted, hidden characters made visible. Every value is from
// the approval's canonical arguments, which its digest covers.
import { useT } from "../../i18n";
import { CodeView } from "../../components/CodeView";
import { Reveal, revealText } from "../../components/Reveal";

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
const list = (v: unknown) => (Array.isArray(v) ? v.map(str) : []);

/** The few words an answered card is titled by ("run scripts/build.py of pdf"). */
export function scriptAction(_tool: string, args: Record<string, unknown>, t: ReturnType<typeof useT>) {
  return t("do_skills_run_script", { script: revealText(str(args.script)), skill: revealText(str(args.skill)) });
}

function Row({ label, value }: { label: string; value: string }) {
  return (
    <div className="field">
      <span className="muted">{label}</span>{" "}
      <code>
        <Reveal text={value} />
      </code>
    </div>
  );
}

export function ScriptDetails({ args }: { tool: string; args: Record<string, unknown> }) {
  const t = useT();
  const argv = list(args.args);
  const env = list(args.env);
  const script = str(args.script);
  const access = (args.access ?? {}) as { mode?: unknown; why?: unknown };
  return (
    <div className="details inst script">
      {access.mode === "confined" ? (
        <p className="inst-impact" role="note">
          {t("scriptConfined")}
        </p>
      ) : (
        <p className="inst-cleanup" role="note">
          {t("scriptFullAccess")} <Reveal text={str(access.why)} />
        </p>
      )}
      <Row label={t("scriptSkill")} value={str(args.skill)} />
      <Row label={t("scriptPath")} value={script} />
      <Row label={t("scriptInterpreter")} value={str(args.interpreter)} />
      <div className="field">
        <span className="muted">{t("scriptArgs")}</span>{" "}
        {argv.length === 0 ? (
          <span className="muted">{t("instNoArgs")}</span>
        ) : (
          <ol className="inst-args">
            {argv.map((a, i) => (
              <li key={i}>
                <code>
                  <Reveal text={a} />
                </code>
              </li>
            ))}
          </ol>
        )}
      </div>
      <Row label={t("scriptCwd")} value={str(args.cwd)} />
      <Row label={t("scriptEnv")} value={env.join(", ")} />
      <div className="field">
        <span className="muted">{t("scriptTimeLimit")}</span> <span>{t("scriptSeconds", { n: Number(args.timeLimitSeconds) || 0 })}</span>
      </div>
      <Row label="SHA-256" value={str(args.sha256)} />
      <CodeView text={str(args.content)} path={script} label={t("scriptText", { script: revealText(script) })} />
    </div>
  );
}
