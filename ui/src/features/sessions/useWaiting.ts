// Which sessions wait for the person's approval, and the tab title that counts them. The shown
// session's state is known from its own runs at once; the others come from the Host's stream.
import { useEffect, useMemo } from "react";
import { useT } from "../../i18n";
import type { RunStatus } from "../../types";

export function useWaiting(fromHost: Set<string>, currentId: string | null, activeStatus: RunStatus | undefined): Set<string> {
  const t = useT();
  const waiting = useMemo(() => {
    const ids = new Set(fromHost);
    if (currentId) {
      if (activeStatus === "awaiting_approval") ids.add(currentId);
      else ids.delete(currentId);
    }
    return ids;
  }, [fromHost, currentId, activeStatus]);
  useEffect(() => {
    document.title = waiting.size ? `(${waiting.size}) ${t("appName")}` : t("appName");
  }, [waiting.size, t]);
  return waiting;
}
