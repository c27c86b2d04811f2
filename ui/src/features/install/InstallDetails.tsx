// What the approval cards of the install tools show (INST-04/05/08, UI-17): for
// mcp_install_npm the exact package@version, bin, args, the source registry, the install
// directory, a clean-up of an unfinished attempt, what the registry's document of the version
// says (description, license, repository, publish time, dependencies, integrity, install
// scripts), the impact and the disclosure; for mcp_register the program, args and directory and
// that it only saves a disabled config; for mcp_activate_service the config as saved. Every
// value shown is from the approval's canonical arguments, which its digest covers.
import { useT } from "../../i18n";
import { Reveal, revealText } from "../../components/Reveal";

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
const list = (v: unknown) => (Array.isArray(v) ? v.map(str) : []);

/** The few words an answered card is titled by ("install pkg@1.0.0"). */
export function installAction(tool: string, args: Record<string, unknown>, t: ReturnType<typeof useT>) {
  return t(`do_${tool}` as Parameters<typeof t>[0], {
    spec: revealText(str(args.spec ?? `${str(args.package)}@${str(args.version)}`)),
    command: revealText(str(args.command)),
    name: revealText(str(args.name ?? args.id)),
  });
}

function Row({ label, value, mono = true }: { label: string; value: string; mono?: boolean }) {
  return (
    <div className="field">
      <span className="muted">{label}</span>{" "}
      {mono ? (
        <code>
          <Reveal text={value} />
        </code>
      ) : (
        <span>
          <Reveal text={value} />
        </span>
      )}
    </div>
  );
}

/** Each argument on a line of its own, hidden characters marked; "none" for none. */
export function Args({ label, args }: { label: string; args: string[] }) {
  const t = useT();
  return (
    <div className="field">
      <span className="muted">{label}</span>{" "}
      {args.length === 0 ? (
        <span className="muted">{t("instNoArgs")}</span>
      ) : (
        <ol className="inst-args">
          {args.map((a, i) => (
            <li key={i}>
              <code>
                <Reveal text={a} />
              </code>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function InstallDetails({ tool, args }: { tool: string; args: Record<string, unknown> }) {
  const t = useT();
  switch (tool) {
    case "mcp_install_npm":
      return (
        <div className="details inst">
          <Row label={t("instPackage")} value={str(args.spec ?? `${str(args.package)}@${str(args.version)}`)} />
          <Row label={t("instBin")} value={str(args.bin)} />
          <Args label={t("instArgs")} args={list(args.args)} />
          <Row label={t("instSource")} value={str(args.source)} mono={false} />
          <Row label={t("instDir")} value={str(args.installDir)} />
          {args.alreadyInstalled === true ? <p className="muted">{t("instAlready")}</p> : null}
          {args.cleanUp === true ? (
            <p className="inst-cleanup" role="alert">
              {t("instCleanUp")}
            </p>
          ) : null}
          {args.integrity !== undefined ? (
            <div className="inst-facts">
              <p className="muted">{t("instFromRegistry")}</p>
              <Row label={t("instDescription")} value={str(args.description)} mono={false} />
              <Row label={t("instLicense")} value={str(args.license)} />
              <Row label={t("instRepository")} value={str(args.repository)} />
              <Row label={t("instPublished")} value={str(args.published)} />
              <Row label={t("instDependencies")} value={str(args.dependencies)} />
              <Row label={t("instIntegrity")} value={str(args.integrity)} />
              <Row label={t("instScripts")} value={str(args.installScriptsNote)} mono={false} />
            </div>
          ) : null}
          <p className="muted">{t("instImpact")}</p>
          <p className="inst-impact">
            <Reveal text={str(args.impact)} mode="text" />
          </p>
          <p className="inst-disclosure" role="note">
            {t("instDisclosure")}
          </p>
          <p className="muted">{t("instSecrets")}</p>
        </div>
      );
    case "mcp_register":
      return (
        <div className="details inst">
          <Row label={t("instCommand")} value={str(args.command)} />
          <Args label={t("instArgs")} args={list(args.args)} />
          {args.cwd ? <Row label={t("instCwd")} value={str(args.cwd)} /> : null}
          <p className="inst-impact">{t("instRegisterNote")}</p>
          <p className="muted">{t("instSecrets")}</p>
        </div>
      );
    case "mcp_activate_service": {
      const vars = list(args.variables);
      const digest = str(args.configDigest);
      return (
        <div className="details inst">
          <Row label={t("instConfig")} value={`${str(args.name)} (${str(args.id)})`} />
          <Row label={t("instCommand")} value={str(args.command)} />
          <Args label={t("instArgs")} args={list(args.args)} />
          {args.cwd ? <Row label={t("instCwd")} value={str(args.cwd)} /> : null}
          {vars.length > 0 ? <Row label={t("instVariables")} value={vars.join(", ")} /> : null}
          {digest ? (
            <div className="field" title={digest}>
              <span className="muted">{t("instConfigDigest")}</span> <code>{digest.slice(0, 16)}…</code>
            </div>
          ) : null}
          <p className="inst-impact">{t("instActivateNote")}</p>
          <p className="muted">{t("instSecrets")}</p>
        </div>
      );
    }
    default:
      return null;
  }
}
