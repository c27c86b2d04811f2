// What the person undid of a run, under its answer: each undo with how many of its changes came
// back and which were left as they are (and why), and a way to undo that undo while its own
// changes are still recorded. Read from the stored run, so a reload shows the same.
import { Undo2 } from "lucide-react";
import { Reveal } from "../../components/Reveal";
import { useT } from "../../i18n";
import type { Run } from "../../types";
import type { UndoTarget } from "./UndoDialog";
import { skipText } from "./UndoDialog";

interface Props {
  run: Run;
  /** Opens the plan of an undo; absent while a run of the session is in progress. */
  onUndo?: (target: UndoTarget) => void;
}

export function RunUndos({ run, onUndo }: Props) {
  const t = useT();
  if (run.undos.length === 0) return null;
  return (
    <ul className="run-undos">
      {run.undos.map((u) => {
        const undone = u.items.filter((i) => !i.skip).length;
        const skipped = u.items.filter((i) => i.skip);
        return (
          <li key={u.id} className="run-undo muted small" data-undo-id={u.id}>
            <Undo2 size={13} aria-hidden /> {t(u.undoId ? "undoneUndoLine" : "undoneLine", { n: undone, m: u.items.length })}
            {skipped.length > 0 && (
              <ul>
                {skipped.map((i) => (
                  <li key={i.change}>
                    <span className="mono">
                      <Reveal text={i.path} />
                    </span>
                    : {skipText(t, i)}
                  </li>
                ))}
              </ul>
            )}
            {onUndo && u.undoable > 0 && (
              <button className="link small" onClick={() => onUndo({ runId: run.id, of: { undoId: u.id } })}>
                {t("undoThisUndo")}
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}
