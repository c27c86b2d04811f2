// The ticket claim of open_webpage (WEB-03): claim, show, then acknowledge — in that order,
// once per ticket, never after a refused claim, only for `open_ticket` events.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../api";
import { ticketHandler, type TicketApi } from "./tickets";

const settle = () => new Promise((r) => setTimeout(r, 0));

function fakeApi(refuse = false) {
  const log: string[] = [];
  const api: TicketApi = {
    claimTicket: async (ticketId: string, sessionId: string) => {
      log.push(`claim ${ticketId} ${sessionId}`);
      if (refuse) throw new ApiError(409, "conflict", "belongs to another session");
      return { tabId: "tab_1", url: "http://127.0.0.1:9/site/" };
    },
    ackTicket: async (ticketId: string) => {
      log.push(`ack ${ticketId}`);
      return { status: "accepted" as const };
    },
  };
  return { api, log };
}

const event = (ticketId: string) => JSON.stringify({ ticketId, url: "http://127.0.0.1:9/site/" });

describe("open tickets", () => {
  it("claims for the shown session, shows the tab, then acknowledges", async () => {
    const { api, log } = fakeApi();
    const onEvent = ticketHandler(api, () => "s_1", (c) => void log.push(`show ${c.tabId}`), async () => void log.push("painted"));
    onEvent("open_ticket", event("tk_a"));
    await settle();
    expect(log).toEqual(["claim tk_a s_1", "show tab_1", "painted", "ack tk_a"]);
  });

  it("handles a ticket announced again (a reconnect) once", async () => {
    const { api, log } = fakeApi();
    const onEvent = ticketHandler(api, () => "s_1", () => {}, async () => {});
    onEvent("open_ticket", event("tk_a"));
    onEvent("open_ticket", event("tk_a"));
    await settle();
    expect(log.filter((l) => l.startsWith("claim"))).toEqual(["claim tk_a s_1"]);
  });

  it("never acknowledges a refused claim and never retries it", async () => {
    const { api, log } = fakeApi(true);
    const errors: unknown[] = [];
    const onEvent = ticketHandler(api, () => "s_1", () => void log.push("show"), async () => {}, (e) => errors.push(e));
    onEvent("open_ticket", event("tk_b"));
    await settle();
    onEvent("open_ticket", event("tk_b"));
    await settle();
    expect(log).toEqual(["claim tk_b s_1"]);
    expect(errors).toHaveLength(1);
  });

  it("ignores other events, broken data and a missing session", async () => {
    const { api, log } = fakeApi();
    ticketHandler(api, () => "s_1", () => {}, async () => {})("tabs", event("tk_c"));
    ticketHandler(api, () => "s_1", () => {}, async () => {})("open_ticket", "{not json");
    ticketHandler(api, () => null, () => {}, async () => {})("open_ticket", event("tk_d"));
    await settle();
    expect(log).toEqual([]);
  });
});
