// The undo plan dialog and what a run shows of its undos: each item's action and path, a
// restored file's diff, skipped items with their reason, the calls no undo takes back, the
// exact text with hidden characters marked; confirming quotes the plan's digest, and a plan
// that changed meanwhile is read again instead of undone. In both languages.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ApiError, type Api } from "../../api";
import { I18n, translator } from "../../i18n";
import type { Run, UndoPlan, UndoResult } from "../../types";
import { UndoDialog } from "./UndoDialog";
import { RunUndos } from "./RunUndos";
import { ApprovalCard } from "../approvals/ApprovalCard";
import { UndoSettingsPage } from "./UndoSettings";

afterEach(cleanup);

const plan = (over: Partial<UndoPlan> = {}): UndoPlan => ({
  runId: "r1",
  callId: null,
  undoId: null,
  items: [
    { change: 3, callId: "r1-s1-c0", tool: "files_replace", action: "restore", path: "notes.txt", now: "one\ntwo edited\n", restored: "one\ntwo\n" },
    { change: 2, callId: "r1-s0-c1", tool: "files_write", action: "remove", path: "new\u202etxt.md", skip: "changed", detail: "new.md: changed since; it was left as it is" },
    { change: 1, callId: "r1-s0-c0", tool: "files_move", action: "move_back", path: "b", to: "a" },
  ],
  notUndoable: [{ callId: "r1-s0-c2", tool: "mcp_0a1b2c3d_echo_55667788" }],
  canonical: '{"items":[],"runId":"r1"}',
  digest: "a".repeat(64),
  ...over,
});

const result: UndoResult = {
  id: "un_1",
  callId: null,
  undoId: null,
  at: 1,
  undoable: 2,
  items: [
    { change: 3, callId: "r1-s1-c0", tool: "files_replace", action: "restore", path: "notes.txt" },
    { change: 1, callId: "r1-s0-c0", tool: "files_move", action: "move_back", path: "b", to: "a" },
    { change: 2, callId: "r1-s0-c1", tool: "files_write", action: "remove", path: "new.md", skip: "gone" },
  ],
};

function show(api: Partial<Api>, lang: "en" | "zh" = "en", onDone = () => {}) {
  return render(
    <I18n.Provider value={translator(lang)}>
      <UndoDialog api={api as Api} target={{ runId: "r1", of: {} }} onClose={() => {}} onDone={onDone} />
    </I18n.Provider>,
  );
}

describe("undo plan", () => {
  it("shows each item, the diff of a restore, why one is skipped and what no undo takes back", async () => {
    show({ undoPlan: vi.fn(async () => plan()) });
    await screen.findByText("Undo 2 changes");
    expect(screen.getByRole("dialog", { name: "Undo what this run changed" })).toBeTruthy();
    const items = [...document.querySelectorAll("[data-undo-change]")].map((li) => li.getAttribute("data-action"));
    expect(items).toEqual(["restore", "remove", "move_back"]);
    // The restore's diff: the line that comes back and the one that goes.
    expect(document.querySelector(".diff-add")?.textContent).toContain("two");
    expect(document.querySelector(".diff-del")?.textContent).toContain("two edited");
    // The skipped item, its path with the hidden character marked.
    expect(screen.getByText("changed since, left as it is", { exact: false })).toBeTruthy();
    expect(screen.getByText("⟨U+202E⟩")).toBeTruthy();
    expect(screen.getByText(/no undo can take back/)).toBeTruthy();
    expect(screen.getByText("Exactly what is confirmed")).toBeTruthy();
  });

  it("undoes with the digest it showed, and says what happened", async () => {
    const undo = vi.fn(async () => result);
    const onDone = vi.fn();
    show({ undoPlan: vi.fn(async () => plan()), undo }, "en", onDone);
    fireEvent.click(await screen.findByText("Undo 2 changes"));
    await screen.findByText("Undone: 2 of 3 changes.");
    expect(undo).toHaveBeenCalledWith("r1", "a".repeat(64), {});
    expect(onDone).toHaveBeenCalledWith("r1");
    expect(screen.getByText("gone since", { exact: false })).toBeTruthy();
  });

  it("reads a plan that changed meanwhile again instead of undoing it", async () => {
    const undoPlan = vi.fn().mockResolvedValueOnce(plan()).mockResolvedValueOnce(plan({ digest: "b".repeat(64), items: [] }));
    const undo = vi.fn(async () => Promise.reject(new ApiError(409, "conflict", "changed")));
    show({ undoPlan, undo });
    fireEvent.click(await screen.findByText("Undo 2 changes"));
    await screen.findByText(/changed since it was shown/);
    await waitFor(() => expect(undoPlan).toHaveBeenCalledTimes(2));
    await screen.findByText("Nothing of it is left to undo.");
    expect(screen.queryByText(/^Undo \d/)).toBeNull();
  });

  it("offers nothing to confirm when every item is skipped, in Chinese too", async () => {
    const skipped = plan({ items: [plan().items[1]!], notUndoable: [] });
    show({ undoPlan: vi.fn(async () => skipped) }, "zh");
    const button = await screen.findByText("撤销 0 项更改");
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("此后已被修改，保持原样", { exact: false })).toBeTruthy();
  });
});

describe("a run's undos", () => {
  const run = { id: "r1", undos: [result] } as unknown as Run;

  it("says how many came back, what stayed and why, and offers to undo the undo", () => {
    const onUndo = vi.fn();
    render(
      <I18n.Provider value={translator("en")}>
        <RunUndos run={run} onUndo={onUndo} />
      </I18n.Provider>,
    );
    expect(screen.getByText(/You undid 2 of 3 changes of this run/)).toBeTruthy();
    expect(screen.getByText(": gone since", { exact: false })).toBeTruthy();
    fireEvent.click(screen.getByText("Undo this undo"));
    expect(onUndo).toHaveBeenCalledWith({ runId: "r1", of: { undoId: "un_1" } });
  });

  it("offers no undo of an undo whose changes are undone, or while a run goes on", () => {
    const { rerender } = render(
      <I18n.Provider value={translator("en")}>
        <RunUndos run={{ ...run, undos: [{ ...result, undoable: 0 }] }} onUndo={() => {}} />
      </I18n.Provider>,
    );
    expect(screen.queryByText("Undo this undo")).toBeNull();
    rerender(
      <I18n.Provider value={translator("en")}>
        <RunUndos run={run} />
      </I18n.Provider>,
    );
    expect(screen.queryByText("Undo this undo")).toBeNull();
  });
});

describe("cards of what no undo takes back", () => {
  const card = (tool: string, args: Record<string, unknown>) =>
    render(
      <I18n.Provider value={translator("en")}>
        <ApprovalCard request={{ approvalId: `ap-${tool}`, tool, arguments: args, canonical: JSON.stringify(args), digest: "d".repeat(64), state: "pending" }} onDecide={async () => "approved"} />
      </I18n.Provider>,
    );

  it("say so for an MCP tool, not for a file change or an approved read", () => {
    card("mcp_0a1b2c3d_echo_55667788", { text: "hi" });
    expect(screen.getByTestId("no-undo-note").textContent).toBe("Wisp cannot undo this once it ran.");
    cleanup();
    card("files_write", { path: "a.txt", content: "x", creates: true });
    expect(screen.queryByTestId("no-undo-note")).toBeNull();
    cleanup();
    card("files_read", { path: ".env", size: 10, offset: 0, end: 10, sensitive: "env", reason: "an .env file" });
    expect(screen.queryByTestId("no-undo-note")).toBeNull();
  });
});

describe("Settings → Undo", () => {
  it("shows what the Host holds, saves what the person typed, and says what the Host refused", async () => {
    const updateUndoSettings = vi
      .fn()
      .mockResolvedValueOnce({ keepDays: 7, maxFileMib: 16, maxSessionMib: 256 })
      .mockRejectedValueOnce(new ApiError(400, "invalid", "keepDays: 1 to 365 days"));
    render(
      <I18n.Provider value={translator("en")}>
        <UndoSettingsPage api={{ undoSettings: async () => ({ keepDays: 30, maxFileMib: 16, maxSessionMib: 256 }), updateUndoSettings }} />
      </I18n.Provider>,
    );
    const days = (await screen.findByLabelText("Days a change stays undoable")) as HTMLInputElement;
    expect(days.value).toBe("30");
    fireEvent.change(days, { target: { value: "7" } });
    fireEvent.click(screen.getByText("Save"));
    await screen.findByText("Saved.");
    expect(updateUndoSettings).toHaveBeenCalledWith({ keepDays: 7, maxFileMib: 16, maxSessionMib: 256 });
    fireEvent.change(days, { target: { value: "400" } });
    fireEvent.submit(days.closest("form")!);
    await screen.findByRole("alert");
    expect(screen.queryByText("Saved.")).toBeNull();
  });
});
