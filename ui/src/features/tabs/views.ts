// The web family's views (WEB-*): open_webpage's approval card (see ../tools/views.ts).
import { revealText } from "../../components/Reveal";
import { str } from "../approvals/parts";
import type { ToolFamily } from "../tools/views";
import { OpenPageDetails } from "./OpenPage";

export const WEB: ToolFamily = {
  open_webpage: { Details: OpenPageDetails, action: (_tool, args, t) => t("do_open_webpage", { url: revealText(str(args.url)) }) },
};
