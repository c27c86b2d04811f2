// Write and replace cards diff only against the file their approval is bound to (the
// replace card: "diff with the file as it is at approval"): the preview's digest equal to the
// bound one → the diff; different (edited, or gone) → the stale notice and no diff against the
// wrong file; a failed fetch → said, never a silent fallback. And the hook that fetches the
// file again when the person looks.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, renderHook, screen, waitFor } from "@testing-library/react";
import { ApprovalCard } from "./ApprovalCard";
import { sampleCanonical } from "./sample";
import { useCurrentFiles, type CurrentFile } from "./currentFile";
import { I18n, translator } from "../../i18n";
import { ApiError, type Api } from "../../api";
import type { Preview, Run } from "../../types";

afterEach(cleanup);

const BOUND = "b".repeat(64);
const EDITED = "e".repeat(64);
const FILE = "one\ntwo\nthree\n";
const STALE = "This file changed since this card appeared: approving it would be refused.";

const replace = {
  approvalId: "ap-replace",
  tool: "files_replace",
  arguments: { path: "a.txt", oldText: "two", newText: "2", sha256: BOUND, line: 2 },
  digest: "d".repeat(64),
  state: "pending" as const,
};
const write = {
  approvalId: "ap-write",
  tool: "files_write",
  arguments: { path: "a.txt", content: "one\nTHREE\n", creates: false, replaces: BOUND },
  digest: "d".repeat(64),
  state: "pending" as const,
};

function show(request: typeof replace | typeof write, currentFile?: CurrentFile, lang: "en" | "zh" = "en", onLook?: () => void) {
  return render(
    <I18n.Provider value={translator(lang)}>
      <ApprovalCard request={{ ...request, canonical: sampleCanonical(request.arguments) }} currentFile={currentFile} onLook={onLook} onDecide={async () => "approved"} />
    </I18n.Provider>,
  );
}

const diffText = () => screen.queryByLabelText("diff")?.textContent ?? null;

describe("a replace card", () => {
  it("diffs in context when the preview is the bound file", () => {
    show(replace, { state: "loaded", content: FILE, sha256: BOUND });
    expect(screen.getByText("Changes against the current file")).toBeTruthy();
    expect(diffText()).toContain("- two");
    expect(diffText()).toContain("+ 2");
    expect(diffText()).toContain("three");
    expect(screen.queryByText(STALE)).toBeNull();
    expect(screen.getByRole("button", { name: /Approve/ }).className).toBe("approve");
  });

  it("says the file changed and shows only the requested change, never the other file", () => {
    // The edited file still contains oldText: only the digest tells it is not the bound one.
    show(replace, { state: "loaded", content: "one\ntwo\nthree, edited\n", sha256: EDITED });
    expect(screen.getByText(STALE)).toBeTruthy();
    expect(screen.queryByText("Changes against the current file")).toBeNull();
    expect(screen.getByText("The requested change")).toBeTruthy();
    expect(diffText()).toBe("- two+ 2");
    // Approving would only be refused: Reject is the main action.
    expect(screen.getByRole("button", { name: /Reject/ }).className).toBe("reject primary");
    expect(screen.getByRole("button", { name: /Approve/ }).className).toBe("approve stale");
  });

  it("says a file that is gone changed, in Chinese too", () => {
    const { unmount } = show(replace, { state: "missing" });
    expect(screen.getByText(STALE)).toBeTruthy();
    unmount();
    show(replace, { state: "missing" }, "zh");
    expect(screen.getByText("此文件在此卡片出现后已被修改：批准将被拒绝。")).toBeTruthy();
  });

  it("says when the current file could not be loaded instead of degrading silently", () => {
    show(replace, { state: "failed", message: "the Host is busy" });
    expect(screen.getByText("The current file could not be loaded (the Host is busy), so no diff against it is shown.")).toBeTruthy();
    expect(screen.queryByText("Changes against the current file")).toBeNull();
    expect(diffText()).toBe("- two+ 2");
  });

  it("shows the requested change and no notice while the file loads", () => {
    show(replace, { state: "loading" });
    expect(screen.queryByText(STALE)).toBeNull();
    expect(screen.queryByText(/could not be loaded/)).toBeNull();
    expect(diffText()).toBe("- two+ 2");
  });
});

describe("an overwriting write card", () => {
  it("diffs against the preview only when it is the file the write replaces", () => {
    show(write, { state: "loaded", content: "one\ntwo\n", sha256: BOUND });
    expect(diffText()).toContain("- two");
    expect(diffText()).toContain("+ THREE");
  });

  it("shows no diff against a file that changed, and says approving will be refused", () => {
    show(write, { state: "loaded", content: "one\ntwo, edited\n", sha256: EDITED });
    expect(screen.getByText(STALE)).toBeTruthy();
    expect(diffText()).toBeNull();
    // The content that would be written is still shown whole.
    expect(document.querySelector("pre.content")?.textContent).toBe("one\nTHREE\n");
  });

  it("says a failed fetch, and a file too long to compare, with no diff", () => {
    const { unmount } = show(write, { state: "failed", message: "boom" });
    expect(screen.getByText("The current file could not be loaded (boom), so no diff against it is shown.")).toBeTruthy();
    expect(diffText()).toBeNull();
    unmount();
    show(write, { state: "loaded", content: "a".repeat(100), sha256: null }, "zh");
    expect(screen.getByText("文件太长，无法预览，因此不显示与它的差异。")).toBeTruthy();
    expect(diffText()).toBeNull();
  });

  it("asks for its file again when the person points at or focuses it, and not once answered", () => {
    const look = vi.fn();
    const { unmount } = show(write, { state: "loaded", content: "one\n", sha256: BOUND }, "en", look);
    const card = screen.getByRole("group", { name: "Approve files_write?" });
    fireEvent.pointerEnter(card);
    fireEvent.focus(card);
    expect(look).toHaveBeenCalledTimes(2);
    unmount();
    look.mockClear();
    show({ ...write, state: "approved" as const } as unknown as typeof write, undefined, "en", look);
    const answered = screen.getByRole("group", { name: "Approved: write a.txt" });
    fireEvent.pointerEnter(answered);
    fireEvent.focus(answered);
    expect(look).not.toHaveBeenCalled();
  });
});

describe("useCurrentFiles", () => {
  const runWith = (tool: string, args: Record<string, unknown>, state = "pending") =>
    [{ id: "r1", steps: [{ index: 0, toolCalls: [{ callId: "c1", tool, arguments: args, status: "awaiting_approval", result: null, approval: { id: "ap1", state, digest: "d", arguments: args } }] }] }] as unknown as Run[];
  const preview = (content: string, sha256: string | null): Preview => ({ path: "a.txt", content, size: content.length, partial: sha256 === null, sha256 });

  it("fetches a pending card's file, and again when the person looks", async () => {
    const answers = [preview(FILE, BOUND), preview("edited\n", EDITED)];
    const fetch = vi.fn(async () => answers.shift()!);
    const api = { preview: fetch } as unknown as Api;
    const { result } = renderHook(() => useCurrentFiles(api, "s1", runWith("files_replace", replace.arguments)));
    await waitFor(() => expect(result.current.current("ap1")).toEqual({ state: "loaded", content: FILE, sha256: BOUND }));
    expect(fetch).toHaveBeenCalledWith("s1", "a.txt");
    act(() => result.current.look("ap1"));
    await waitFor(() => expect(result.current.current("ap1")).toEqual({ state: "loaded", content: "edited\n", sha256: EDITED }));
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("tells a missing file from a failed fetch", async () => {
    const gone = { preview: vi.fn(async () => Promise.reject(new ApiError(404, "not_found", "a.txt: not found"))) } as unknown as Api;
    const a = renderHook(() => useCurrentFiles(gone, "s1", runWith("files_replace", replace.arguments)));
    await waitFor(() => expect(a.result.current.current("ap1")).toEqual({ state: "missing" }));
    const busy = { preview: vi.fn(async () => Promise.reject(new ApiError(503, "busy", "too many file tasks"))) } as unknown as Api;
    const b = renderHook(() => useCurrentFiles(busy, "s1", runWith("files_replace", replace.arguments)));
    await waitFor(() => expect(b.result.current.current("ap1")).toEqual({ state: "failed", message: "too many file tasks" }));
  });

  it("fetches nothing for a write that creates its file or a card already answered", () => {
    const fetch = vi.fn(async () => preview(FILE, BOUND));
    const api = { preview: fetch } as unknown as Api;
    const { result } = renderHook(() => useCurrentFiles(api, "s1", runWith("files_write", { path: "n.txt", content: "x", creates: true })));
    renderHook(() => useCurrentFiles(api, "s1", runWith("files_replace", replace.arguments, "approved")));
    // A fetch starts synchronously, inside the effects that rendering has already run.
    act(() => result.current.look("ap1"));
    expect(fetch).not.toHaveBeenCalled();
  });
});
