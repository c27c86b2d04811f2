// Pieces every family's approval card body is made of.
import { Reveal } from "../../components/Reveal";

/** An argument as text: a string as it is, anything else as JSON. */
export const str = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** A labelled value, hidden characters marked. */
export function Field({ label, value }: { label: string; value: string }) {
  return (
    <div className="field">
      <span className="muted">{label}</span>{" "}
      <code>
        <Reveal text={value} />
      </code>
    </div>
  );
}
