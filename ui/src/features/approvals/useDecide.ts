// Answering an approval: the person's decision with the digest the card showed, for the shown
// session only. A 409 means the card is stale (decided elsewhere, voided, or its file changed).
import { useCallback, useRef } from "react";
import { ApiError, type Api } from "../../api";
import type { Outcome } from "./ApprovalCard";

export function useDecide(api: Api, sessionId: string | null, report: (e: unknown) => void) {
  const session = useRef(sessionId);
  session.current = sessionId;
  return useCallback(
    async (approvalId: string, decision: "approve" | "reject", digest: string): Promise<Outcome> => {
      try {
        await api.decide(approvalId, decision, digest, session.current ?? "");
        return decision === "approve" ? "approved" : "rejected";
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) return "stale";
        report(e);
        return "pending";
      }
    },
    [api, report],
  );
}
