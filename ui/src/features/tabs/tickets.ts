// The UI's half of open_webpage's one-time tickets (WEB-03): when the shown session's event
// stream announces `open_ticket`, the UI claims it (the Host shows the URL in the session's web
// tab and makes it active), shows that tab, and only then acknowledges — which is what turns
// the call's result into open_request_accepted. Each ticket is handled once: the Host announces
// a waiting ticket again whenever the stream reconnects, and a claim is never retried (a
// refused one opens nothing, and the Host's result says why).
import { useCallback, useEffect, useRef } from "react";
import type { Api } from "../../api";

export interface Claimed {
  tabId: string;
  url: string;
}

/** What the handler needs of the API (a test passes its own). */
export type TicketApi = Pick<Api, "claimTicket" | "ackTicket">;

/** Claims a ticket for the session being shown: `{tabId, url}` of the tab now showing it. */
export function claimTicket(api: TicketApi, sessionId: string, ticketId: string): Promise<Claimed> {
  return api.claimTicket(ticketId, sessionId);
}

/** Resolves once the browser has painted what the last state change rendered. */
export const painted = () =>
  new Promise<void>((done) => {
    if (typeof requestAnimationFrame !== "function") return done();
    requestAnimationFrame(() => requestAnimationFrame(() => done()));
  });

/** A handler of a session stream's named events: on `open_ticket`, claim, `show` the claimed
 * tab, wait for it to be painted, acknowledge. Other names are ignored. */
export function ticketHandler(
  api: TicketApi,
  session: () => string | null,
  show: (claimed: Claimed) => Promise<void> | void,
  afterShow: () => Promise<void> = painted,
  onError: (e: unknown) => void = () => {},
): (name: string, data: unknown) => void {
  const seen = new Set<string>();
  return (name, data) => {
    if (name !== "open_ticket") return;
    let ticketId: unknown;
    try {
      // `Api.follow` passes the parsed event; raw SSE data (a string) is parsed here.
      const event = (typeof data === "string" ? JSON.parse(data) : data) as { ticketId?: unknown } | null;
      ticketId = event?.ticketId;
    } catch {
      return;
    }
    const sessionId = session();
    if (typeof ticketId !== "string" || !sessionId || seen.has(ticketId)) return;
    seen.add(ticketId);
    void (async () => {
      const claimed = await claimTicket(api, sessionId, ticketId);
      await show(claimed);
      await afterShow();
      await api.ackTicket(ticketId);
    })().catch(onError);
  };
}

/** `ticketHandler` for the session being shown, stable across renders (pass it to
 * `Api.follow`). `show` makes the claimed tab visible (opens the preview panel). */
export function useOpenTickets(
  api: TicketApi,
  sessionId: string | null,
  show: (claimed: Claimed) => Promise<void> | void,
): (name: string, data: unknown) => void {
  const current = useRef(sessionId);
  const shower = useRef(show);
  useEffect(() => {
    current.current = sessionId;
    shower.current = show;
  });
  const handler = useRef<((name: string, data: unknown) => void) | null>(null);
  if (!handler.current) handler.current = ticketHandler(api, () => current.current, (c) => shower.current(c));
  return useCallback((name: string, data: unknown) => handler.current?.(name, data), []);
}
