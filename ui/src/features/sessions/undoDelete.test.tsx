// Deleting a session is undoable for a few seconds: the Host is asked only when the time is up,
// Undo shows the session again and asks nothing, a second delete makes the first final, the
// pointer on the offer stops its time, leaving the page makes it final, and a refusal keeps
// the session and says why.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import type { Api } from "../../api";
import type { Session } from "../../types";
import { UndoDelete } from "./UndoDelete";
import { UNDO_MS, useUndoableDelete } from "./useUndoableDelete";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const session = (id: string) => ({ id, title: `Title ${id}`, activeRunId: null }) as unknown as Session;
const list = [session("s1"), session("s2"), session("s3")];

function setup(deleteSession = vi.fn(async () => {})) {
  vi.useFakeTimers();
  const api = { deleteSession, deleteSessionOnLeave: vi.fn() } as unknown as Api;
  const show = vi.fn();
  const report = vi.fn();
  const loadSessions = vi.fn(async () => list);
  const hook = renderHook(() => useUndoableDelete(api, { sessions: list, loadSessions, show, report }));
  return { api, show, report, deleteSession, hook, loadSessions };
}

describe("useUndoableDelete", () => {
  it("asks the Host only when the time is up, and shows the newest session left meanwhile", async () => {
    const { hook, deleteSession, show, loadSessions } = setup();
    act(() => hook.result.current.start(list[0]!));
    expect(hook.result.current.pending?.id).toBe("s1");
    expect(show).toHaveBeenLastCalledWith("s2");
    await act(async () => vi.advanceTimersByTime(UNDO_MS - 1));
    expect(deleteSession).not.toHaveBeenCalled();
    await act(async () => vi.advanceTimersByTime(1));
    expect(deleteSession).toHaveBeenCalledWith("s1");
    expect(loadSessions).toHaveBeenCalled();
    expect(hook.result.current.pending).toBeNull();
  });

  it("Undo shows the session again and nothing is deleted", async () => {
    const { hook, deleteSession, show } = setup();
    act(() => hook.result.current.start(list[1]!));
    act(() => hook.result.current.undo());
    expect(show).toHaveBeenLastCalledWith("s2");
    expect(hook.result.current.pending).toBeNull();
    await act(async () => vi.advanceTimersByTime(UNDO_MS * 2));
    expect(deleteSession).not.toHaveBeenCalled();
  });

  it("a second delete makes the first final at once; holding stops the time", async () => {
    const { hook, deleteSession, show } = setup();
    act(() => hook.result.current.start(list[0]!));
    act(() => hook.result.current.start(list[1]!));
    expect(deleteSession.mock.calls).toEqual([["s1"]]);
    expect(show).toHaveBeenLastCalledWith("s3");
    act(() => hook.result.current.hold());
    await act(async () => vi.advanceTimersByTime(UNDO_MS * 3));
    expect(deleteSession.mock.calls).toEqual([["s1"]]);
    act(() => hook.result.current.resume());
    await act(async () => vi.advanceTimersByTime(UNDO_MS));
    expect(deleteSession.mock.calls).toEqual([["s1"], ["s2"]]);
  });

  it("leaving the page makes the delete final, once", async () => {
    const { hook, api, deleteSession } = setup();
    act(() => hook.result.current.start(list[2]!));
    window.dispatchEvent(new Event("pagehide"));
    expect(api.deleteSessionOnLeave).toHaveBeenCalledWith("s3");
    await act(async () => vi.advanceTimersByTime(UNDO_MS * 2));
    expect(deleteSession).not.toHaveBeenCalled();
  });

  it("a refusal keeps the session and says why", async () => {
    const refusal = new Error("a run is in progress");
    const { hook, report } = setup(vi.fn(async () => Promise.reject(refusal)));
    act(() => hook.result.current.start(list[0]!));
    await act(async () => vi.advanceTimersByTime(UNDO_MS));
    expect(report).toHaveBeenCalledWith(refusal);
    expect(hook.result.current.pending).toBeNull();
  });
});

describe("UndoDelete", () => {
  it("names the session, takes the focus, and undoes with one key", () => {
    const onUndo = vi.fn();
    render(
      <I18n.Provider value={translator("zh")}>
        <UndoDelete pending={session("s1")} onUndo={onUndo} onHold={() => {}} onResume={() => {}} />
      </I18n.Provider>,
    );
    expect(screen.getByRole("status").textContent).toContain("即将从本机删除“Title s1”");
    const undo = screen.getByRole("button", { name: "撤销" });
    expect(document.activeElement).toBe(undo);
    fireEvent.click(undo);
    expect(onUndo).toHaveBeenCalledTimes(1);
  });
});
