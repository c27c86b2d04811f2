// What the open_webpage approval card shows (WEB-02): the URL whole, exactly as it will open
// (the Host's parsed form, which the digest covers), and — for a loopback or private address —
// that it is one, so a page on this computer or the local network is never opened unawares.
import { useT } from "../../i18n";
import { Reveal } from "../../components/Reveal";

export function OpenPageDetails({ args }: { args: Record<string, unknown> }) {
  const t = useT();
  const url = typeof args.url === "string" ? args.url : "";
  const kind = args.addressKind;
  return (
    <div className="details">
      <div className="field">
        <span className="muted">{t("openUrl")}</span> <code className="open-url">
          <Reveal text={url} />
        </code>
      </div>
      {kind === "loopback" ? (
        <p className="address-kind" role="note">
          {t("openLoopback")}
        </p>
      ) : kind === "private" ? (
        <p className="address-kind" role="note">
          {t("openPrivate")}
        </p>
      ) : null}
      <p className="muted">{t("openNote")}</p>
    </div>
  );
}
