// The skills family's views (FILE-05): skills_read needs no card; skills_run_script's card shows
// the script and everything it runs with (see ../tools/views.ts).
import type { ToolFamily } from "../tools/views";
import { ScriptDetails, scriptAction, scriptOption } from "./ScriptDetails";

export const SKILLS: ToolFamily = {
  skills_run_script: { Details: ScriptDetails, action: scriptAction, pendingTitle: "scriptPendingTitle", optionLabel: scriptOption },
};
