// The Host's health: its mode, the model in use and what stops it, read at start and again
// after the model settings change.
import { useCallback, useEffect, useState } from "react";
import type { Api } from "../../api";
import type { Health } from "../../types";

export function useHealth(api: Api, report: (e: unknown) => void) {
  const [health, setHealth] = useState<Health | null>(null);
  const reload = useCallback(() => {
    api.health().then(setHealth).catch(report);
  }, [api, report]);
  useEffect(reload, [reload]);
  return { health, reload };
}
