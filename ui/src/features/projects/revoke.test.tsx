// The project list's Revoke action (DEC-03) in jsdom: the confirmation names the folder and
// says what happens in both languages; only the confirm button revokes, cancel changes
// nothing; a session whose folder was revoked says so instead of "no folder".
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { I18n, translator, type Lang } from "../../i18n";
import { folderLine, RevokeProject } from "./RevokeProject";

afterEach(cleanup);

const project = { id: "p_0123456789abcdef0123456789abcdef", root: "/home/me/work/site", createdAt: 1 };

function show(lang: Lang, onRevoke: (id: string) => Promise<void>) {
  render(
    <I18n.Provider value={translator(lang)}>
      <RevokeProject project={project} onRevoke={onRevoke} />
    </I18n.Provider>,
  );
}

describe("RevokeProject", () => {
  it("asks first, saying what happens, and revokes only on confirm", async () => {
    const onRevoke = vi.fn(async () => {});
    show("en", onRevoke);
    fireEvent.click(screen.getByRole("button", { name: "Revoke access" }));
    const dialog = screen.getByRole("dialog");
    expect(dialog.textContent).toContain("Revoke access to site?");
    expect(dialog.textContent).toContain("keep their history");
    expect(dialog.textContent).toContain("no file tools");
    expect(dialog.textContent).toContain("becomes void");
    expect(dialog.textContent).toContain("Nothing in the folder is changed or deleted");
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onRevoke).not.toHaveBeenCalled();
    expect(screen.queryByRole("dialog")).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Revoke access" }));
    fireEvent.click(screen.getByRole("button", { name: "Revoke" }));
    expect(onRevoke).toHaveBeenCalledWith(project.id);
    await vi.waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("says the same in Chinese", () => {
    show("zh", vi.fn(async () => {}));
    fireEvent.click(screen.getByRole("button", { name: "撤销授权" }));
    const dialog = screen.getByRole("dialog");
    expect(dialog.textContent).toContain("撤销对 site 的授权？");
    expect(dialog.textContent).toContain("保留历史记录");
    expect(dialog.textContent).toContain("没有文件工具");
    expect(dialog.textContent).toContain("不会被修改或删除");
    expect(screen.getByRole("button", { name: "撤销" })).toBeTruthy();
  });

  it("tells a revoked folder from none", () => {
    const t = translator("en");
    expect(folderLine(t, { projectId: project.id, root: "/home/me/work/site" })).toBe("Project: /home/me/work/site");
    expect(folderLine(t, { projectId: project.id, root: null })).toBe(t("projectRevoked"));
    expect(folderLine(t, { projectId: null, root: null })).toBe(t("noProject"));
    expect(t("projectRevoked")).not.toBe(t("noProject"));
  });
});
