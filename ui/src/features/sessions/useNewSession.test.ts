// New session is made once, however often it is asked for before the person sees it; once it
// is the session shown, the next ask makes another — also when the list's reload showed it
// before the creation finished.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, renderHook } from "@testing-library/react";
import type { Api } from "../../api";
import { useNewSession } from "./useNewSession";

afterEach(cleanup);

function host() {
  let n = 0;
  const made: string[] = [];
  const api = {
    createSession: vi.fn(async () => {
      const id = `s_${++n}`;
      made.push(id);
      return { id };
    }),
  } as unknown as Api;
  return { api, made };
}

const report = () => {};

describe("New session", () => {
  it("is made once while it is being made or made but not shown, and again once shown", async () => {
    const { api, made } = host();
    const shows: string[] = [];
    const { result, rerender } = renderHook(({ currentId }) => useNewSession({ api, projectId: "p_1", currentId, show: (id) => shows.push(id), loadSessions: async () => {}, report }), {
      initialProps: { currentId: null as string | null },
    });
    let first: Promise<string | null> = Promise.resolve(null);
    let second: Promise<string | null> = Promise.resolve(null);
    await act(async () => {
      first = result.current();
      second = result.current();
    });
    expect(await first).toBe("s_1");
    expect(await second).toBe("s_1");
    expect(shows).toEqual(["s_1"]);
    // Made, not shown yet: a message sent now still goes to it.
    expect(await act(() => result.current())).toBe("s_1");
    expect(made).toEqual(["s_1"]);
    // Shown: the next New session is a new one.
    rerender({ currentId: "s_1" });
    expect(await act(() => result.current())).toBe("s_2");
    expect(made).toEqual(["s_1", "s_2"]);
  });

  it("makes another once the list's reload already showed the one it made", async () => {
    let answer: (s: { id: string }) => void = () => {};
    const made: string[] = [];
    const api = {
      createSession: vi.fn(() => new Promise<{ id: string }>((resolve) => (answer = (s) => (made.push(s.id), resolve(s))))),
    } as unknown as Api;
    const { result, rerender } = renderHook(({ currentId }) => useNewSession({ api, projectId: null, currentId, show: () => {}, loadSessions: async () => {}, report }), {
      initialProps: { currentId: null as string | null },
    });
    let first: Promise<string | null> = Promise.resolve(null);
    act(() => {
      first = result.current();
    });
    // The session list's own reload shows the new session before its creation answers.
    rerender({ currentId: "s_1" });
    await act(async () => answer({ id: "s_1" }));
    expect(await first).toBe("s_1");
    // No render follows (the shown session does not change again): the next ask is new.
    let second: Promise<string | null> = Promise.resolve(null);
    act(() => {
      second = result.current();
    });
    await act(async () => answer({ id: "s_2" }));
    expect(await second).toBe("s_2");
    expect(made).toEqual(["s_1", "s_2"]);
  });

  it("is made once also when the page renders while it is being made (the person types)", async () => {
    const pending: ((s: { id: string }) => void)[] = [];
    const api = { createSession: vi.fn(() => new Promise<{ id: string }>((resolve) => pending.push(resolve))) } as unknown as Api;
    const { result, rerender } = renderHook(({ currentId }) => useNewSession({ api, projectId: null, currentId, show: () => {}, loadSessions: async () => {}, report }), {
      initialProps: { currentId: null as string | null },
    });
    let first: Promise<string | null> = Promise.resolve(null);
    act(() => {
      first = result.current();
    });
    // Nothing is shown yet and nothing was made: a render now must not end the creation.
    rerender({ currentId: null });
    let second: Promise<string | null> = Promise.resolve(null);
    act(() => {
      second = result.current();
    });
    await act(async () => pending.forEach((answer, i) => answer({ id: `s_${i + 1}` })));
    expect(await first).toBe("s_1");
    expect(await second).toBe("s_1");
    expect(api.createSession).toHaveBeenCalledTimes(1);
  });

  it("reports a failure and tries again at the next ask", async () => {
    const errors: unknown[] = [];
    let fail = true;
    const api = {
      createSession: vi.fn(async () => {
        if (fail) throw new Error("no");
        return { id: "s_ok" };
      }),
    } as unknown as Api;
    const { result } = renderHook(() => useNewSession({ api, projectId: null, currentId: null, show: () => {}, loadSessions: async () => {}, report: (e) => errors.push(e) }));
    expect(await act(() => result.current())).toBeNull();
    expect(errors).toHaveLength(1);
    fail = false;
    expect(await act(() => result.current())).toBe("s_ok");
  });
});
