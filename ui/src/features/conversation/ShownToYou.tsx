// What a call's result had for the person alone: a local MCP server's content annotated for
// the user only (`audience: ["user"]`). The Host keeps it with the call and never sends it to
// the model; here it shows under the call, marked as such. Server text: plain text only, hidden
// characters marked.
import { useT } from "../../i18n";
import { Reveal } from "../../components/Reveal";

export function ShownToYou({ text }: { text: string }) {
  const t = useT();
  return (
    <div className="call-shown" role="note" aria-label={t("callShownToYou")}>
      <div className="muted small">{t("callShownToYou")}</div>
      <pre className="call-result">
        <Reveal text={text} mode="text" />
      </pre>
    </div>
  );
}
