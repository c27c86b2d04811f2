// The files_trash approval card (UI-10..13): the path, what the tree fingerprint binds
// (files and folders), and that it goes to the trash, restorable — in both languages.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { ApprovalCard } from "./ApprovalCard";
import { sampleCanonical } from "./sample";
import { I18n, translator } from "../../i18n";

afterEach(cleanup);

const trash = (args: Record<string, unknown>) => ({
  approvalId: "ap-trash",
  tool: "files_trash",
  arguments: args,
  canonical: sampleCanonical(args),
  digest: "d".repeat(64),
  state: "pending" as const,
});

const show = (args: Record<string, unknown>, lang: "en" | "zh" = "en") =>
  render(
    <I18n.Provider value={translator(lang)}>
      <ApprovalCard request={trash(args)} onDecide={async () => "approved"} />
    </I18n.Provider>,
  );

describe("files_trash card", () => {
  it("shows the path, the counts the fingerprint binds and that it is restorable", () => {
    show({ path: "old/logs", files: 3, folders: 2 });
    expect(screen.getByRole("group", { name: "Approve files_trash?" })).toBeTruthy();
    expect(screen.getByText("old/logs")).toBeTruthy();
    expect(screen.getByText("3 files and 2 folders")).toBeTruthy();
    expect(screen.getByText(/to the trash, restorable/i)).toBeTruthy();
  });

  it("says a plain file is one file, not \"1 file and 0 folders\", and Chinese", () => {
    const { unmount } = show({ path: "a.txt", files: 1, folders: 0 });
    expect(screen.getByText("This one file")).toBeTruthy();
    expect(screen.queryByText(/0 folders/)).toBeNull();
    unmount();
    show({ path: "a.txt", files: 1, folders: 0 }, "zh");
    expect(screen.getByText("仅此一个文件")).toBeTruthy();
    expect(screen.getByText(/可从回收站恢复/)).toBeTruthy();
  });

  it("reads the counts of a run stored when folders were called dirs", () => {
    show({ path: "old/logs", files: 3, dirs: 1 });
    expect(screen.getByText("3 files and 1 folder")).toBeTruthy();
  });

  it("shows no counts it was not given", () => {
    show({ path: "a.txt" });
    expect(screen.queryByText(/files? and/)).toBeNull();
    expect(screen.getByText(/restorable/)).toBeTruthy();
  });
});
