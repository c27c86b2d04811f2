// Undo from the workbench in real Chromium against a real Host: a run that edited a file and
// made a folder with a file in it is undone from "Undo this run" — the plan shows each change
// (the edit as a diff), nothing happens before the confirm, and after it the files are back as
// they were (what the run made in the trash of the test). A reload shows the same, and the
// undo is undone from the run's line. A card of a tool no undo takes back says so.
import { test, expect } from "@playwright/test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCREENS, sendInNewSession, shootAll, startHost, stopHost, trashOf, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
  writeFileSync(join(host.project, "wisp-demo.txt"), "alpha\nbeta\n");
});
test.afterEach(async () => {
  await stopHost(host);
});

test("a run is undone from its plan: edits restored, what it made in the trash, and the undo undone", async ({ page }) => {
  const box = await sendInNewSession(page, "[demo:replace]", host.url);
  await page.getByRole("group", { name: "Approve files_replace?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("group", { name: "Approved: edit wisp-demo.txt" })).toBeVisible();
  // The run has ended once it offers its undo: the next message can go.
  await expect(page.getByTestId("undo-run")).toHaveCount(1);
  await box.fill("[demo:mkdir-write]");
  await box.press("Enter");
  await page.getByRole("group", { name: "Approve files_mkdir?" }).getByRole("button", { name: "Approve" }).click();
  await page.getByRole("group", { name: "Approve files_write?" }).getByRole("button", { name: "Approve" }).click();
  await expect.poll(() => existsSync(join(host.project, "docs/README.md"))).toBe(true);
  await expect(page.getByRole("button", { name: "Undo this run" })).toHaveCount(2);

  // The first run's plan: the edit as a diff; nothing changes until the confirm.
  await page.locator("article.run").first().getByRole("button", { name: "Undo this run" }).click();
  const dialog = page.getByRole("dialog", { name: "Undo what this run changed" });
  await expect(dialog.locator("[data-undo-change]")).toHaveCount(1);
  await expect(dialog.getByText("Restore", { exact: true })).toBeVisible();
  await expect(dialog.getByLabel("diff")).toContainText("- alpha (edited by Wisp)");
  await expect(dialog.getByLabel("diff")).toContainText("+ alpha");
  await page.screenshot({ path: join(SCREENS, "undo-plan.png") });
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toBe("alpha (edited by Wisp)\nbeta\n");
  await dialog.getByRole("button", { name: "Undo 1 change" }).click();
  await expect(dialog.getByTestId("undo-result")).toHaveText("Undone: 1 of 1 change.");
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toBe("alpha\nbeta\n");
  await dialog.getByRole("button", { name: "Close" }).click();

  // The second run: its file, then its folder, go to the trash.
  await page.locator("article.run").nth(1).getByRole("button", { name: "Undo this run" }).click();
  const second = page.getByRole("dialog", { name: "Undo what this run changed" });
  await expect(second.locator("[data-undo-change]")).toHaveCount(2);
  await expect(second.locator("[data-undo-change]").first()).toContainText("docs/README.md");
  // At 800 px and 1,920, in both languages and themes, the confirm stays in view. (It leaves
  // the plan open, in English.)
  await shootAll(page, "undo-plan", async (p) => {
    await p.locator("article.run").nth(1).getByTestId("undo-run").click();
    await expect(p.getByRole("dialog").locator("[data-undo-change]")).toHaveCount(2);
    await expect(p.getByRole("dialog").getByTestId("undo-confirm")).toBeInViewport();
  });
  await page.getByRole("dialog").getByRole("button", { name: "Undo 2 changes" }).click();
  await expect(page.getByRole("dialog").getByTestId("undo-result")).toHaveText("Undone: 2 of 2 changes.");
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
  expect(existsSync(join(host.project, "docs"))).toBe(false);
  expect(readFileSync(join(trashOf(host), "files/README.md"), "utf8")).toBe("Hello from the Wisp simulator.\n你好，这是 Wisp 模拟器写的文件。\n");
  expect(existsSync(join(trashOf(host), "files/docs"))).toBe(true);

  // What the store holds, after a reload: both runs say what was undone, nothing left to undo.
  await page.reload();
  await expect(page.getByText("You undid 1 of 1 change of this run.")).toBeVisible();
  await expect(page.getByText("You undid 2 of 2 changes of this run.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Undo this run" })).toHaveCount(0);

  // The undo undone: the folder and its file come back out of the trash.
  await page.locator("article.run").nth(1).getByRole("button", { name: "Undo this undo" }).click();
  const again = page.getByRole("dialog", { name: "Undo this undo" });
  await expect(again.locator("[data-action=take_out]")).toHaveCount(2);
  await again.getByRole("button", { name: "Undo 2 changes" }).click();
  await expect(again.getByTestId("undo-result")).toHaveText("Undone: 2 of 2 changes.");
  expect(existsSync(join(host.project, "docs/README.md"))).toBe(true);
});

test("an item edited since is named and left as it is", async ({ page }) => {
  await sendInNewSession(page, "[demo:replace]", host.url);
  await page.getByRole("group", { name: "Approve files_replace?" }).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("group", { name: "Approved: edit wisp-demo.txt" })).toBeVisible();
  writeFileSync(join(host.project, "wisp-demo.txt"), "mine now\n");
  await page.getByRole("button", { name: "Undo this run" }).click();
  const dialog = page.getByRole("dialog", { name: "Undo what this run changed" });
  await expect(dialog.locator("[data-skip=changed]")).toContainText("changed since, left as it is");
  await expect(dialog.getByRole("button", { name: "Undo 0 changes" })).toBeDisabled();
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toBe("mine now\n");
});
