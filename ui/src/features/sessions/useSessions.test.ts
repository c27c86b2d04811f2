// The session list follows the Host's own stream: each `sessions` event (at connect, after every
// change) reads the list again and names the sessions waiting for the person, also those not
// on screen; nothing is polled, and leaving stops the stream.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { useSessions } from "./useSessions";
import type { Api } from "../../api";
import type { Session, SessionsChanged } from "../../types";

beforeEach(() => {
  localStorage.clear();
  // jsdom has no CSS.escape; the hook escapes the shown session's id for a selector.
  vi.stubGlobal("CSS", { escape: (s: string) => s });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Stable, as the App's is: a new one each render would read the list again each render. */
const report = () => {};

function session(id: string, title: string): Session {
  return { id, title, projectId: null, createdAt: 1, updatedAt: 1, activeRunId: null } as unknown as Session;
}

function fakeHost(list: Session[]) {
  let send: ((c: SessionsChanged) => void) | null = null;
  const stop = vi.fn();
  const api = {
    sessions: vi.fn(async () => list.slice()),
    followSessions: vi.fn((onChange: (c: SessionsChanged) => void) => {
      send = onChange;
      return stop;
    }),
  };
  return {
    api: api as unknown as Api,
    calls: api.sessions,
    stop,
    send: (c: SessionsChanged) => act(() => send!(c)),
    list,
  };
}

describe("useSessions", () => {
  it("reads the list again on each event of the Host's stream and names who waits", async () => {
    const host = fakeHost([session("s1", "one")]);
    const { result, unmount } = renderHook(() => useSessions(host.api, report));
    await waitFor(() => expect(result.current.sessions.map((s) => s.title)).toEqual(["one"]));
    expect(host.api.followSessions).toHaveBeenCalledTimes(1);
    const before = host.calls.mock.calls.length;

    host.list.push(session("s2", "two"));
    await host.send({ revision: 1, waiting: ["s2"] });
    await waitFor(() => expect(result.current.sessions.map((s) => s.title)).toEqual(["one", "two"]));
    expect([...result.current.waiting]).toEqual(["s2"]);
    expect(host.calls.mock.calls.length).toBe(before + 1);

    // Answered elsewhere: nobody waits any more.
    await host.send({ revision: 2, waiting: [] });
    expect(result.current.waiting.size).toBe(0);

    unmount();
    expect(host.stop).toHaveBeenCalledTimes(1);
  });

  it("a list read before a session was made does not take it away once it is shown", async () => {
    // The first read of the list is slow; meanwhile the person makes a session and it is shown.
    const made = session("s1", "made");
    const answers: ((l: Session[]) => void)[] = [];
    const api = {
      sessions: vi.fn(() => new Promise<Session[]>((resolve) => answers.push(resolve))),
      followSessions: vi.fn(() => () => {}),
    } as unknown as Api;
    const { result } = renderHook(() => useSessions(api, report));
    expect(answers).toHaveLength(1);
    let read!: Promise<Session[]>;
    act(() => {
      read = result.current.loadSessions();
    });
    await act(async () => {
      answers[1]!([made]);
      await read;
      result.current.setCurrentId("s1");
    });
    await act(async () => answers[0]!([]));
    expect(result.current.currentId).toBe("s1");
    expect(result.current.sessions.map((s) => s.id)).toEqual(["s1"]);
  });

  it("shows the remembered session if it still exists, else the first", async () => {
    localStorage.setItem("wisp-session", "s2");
    const kept = fakeHost([session("s1", "one"), session("s2", "two")]);
    const a = renderHook(() => useSessions(kept.api, report));
    await waitFor(() => expect(a.result.current.sessions).toHaveLength(2));
    expect(a.result.current.currentId).toBe("s2");
    a.unmount();

    localStorage.setItem("wisp-session", "gone");
    const other = fakeHost([session("s1", "one")]);
    const b = renderHook(() => useSessions(other.api, report));
    await waitFor(() => expect(b.result.current.currentId).toBe("s1"));
  });

  it("asks nothing while nothing changes", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const host = fakeHost([session("s1", "one")]);
    const { result } = renderHook(() => useSessions(host.api, report));
    await waitFor(() => expect(result.current.sessions).toHaveLength(1));
    const settled = host.calls.mock.calls.length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(30_000);
    });
    expect(host.calls.mock.calls.length).toBe(settled);
  });
});
