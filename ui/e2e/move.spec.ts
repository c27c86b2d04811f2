// The files_move card in real Chromium against a real Host (FILE-21): source → target
// with the counts the Host's tree fingerprint binds; approving moves the folder on disk, and a
// tree changed while the card waits makes it void by itself, with nothing moved.
import { test, expect, type Page } from "@playwright/test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCREENS, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
  mkdirSync(join(host.project, "drafts/old"), { recursive: true });
  writeFileSync(join(host.project, "drafts/plan.md"), "# Plan\n");
  writeFileSync(join(host.project, "drafts/old/v1.md"), "v1\n");
  mkdirSync(join(host.project, "archive"));
});
test.afterEach(async () => {
  await stopHost(host);
});

async function askMove(page: Page) {
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:move] file=drafts to=archive/drafts");
  await box.press("Enter");
  const card = page.getByRole("group", { name: "Approve files_move?" });
  await expect(card).toBeVisible();
  return card;
}

test("the move card shows source → target and the bound counts; approving moves the folder", async ({ page }) => {
  const card = await askMove(page);
  await expect(card.locator(".move-paths")).toHaveText("drafts → archive/drafts");
  await expect(page.getByTestId("announcer")).toContainText("files_move drafts → archive/drafts");
  await expect(card.getByText(/^Moves 2 files and 2 folders, exactly as they are now/)).toBeVisible();
  expect(existsSync(join(host.project, "drafts/plan.md"))).toBe(true);
  await page.screenshot({ path: join(SCREENS, "move-card.png") });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("group", { name: "Approved: move drafts to archive/drafts" })).toBeVisible();
  await expect.poll(() => existsSync(join(host.project, "archive/drafts/old/v1.md"))).toBe(true);
  expect(existsSync(join(host.project, "drafts"))).toBe(false);
  expect(readFileSync(join(host.project, "archive/drafts/plan.md"), "utf8")).toBe("# Plan\n");
});

test("a tree changed while its card waits makes the card void by itself and nothing moves", async ({ page }) => {
  const card = await askMove(page);
  await expect(card.getByRole("button", { name: "Approve" })).toBeVisible();
  writeFileSync(join(host.project, "drafts/old/new.md"), "added after the card\n");
  // The Host checks the tree while the card waits: no Approve is left to press, and the card
  // says why it was withdrawn.
  const voided = page.getByRole("group", { name: "Not answered: move drafts to archive/drafts" });
  await expect(voided).toBeVisible();
  await expect(voided.getByRole("status")).toContainText("changed on disk before a decision");
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(page.getByText(/drafts: changed since its card appeared/).first()).toBeAttached();
  await shootAll(page, "move-card-void", async (p) => {
    await expect(p.locator(".approval-void")).toBeVisible();
  });
  expect(existsSync(join(host.project, "archive/drafts"))).toBe(false);
  expect(existsSync(join(host.project, "drafts/old/new.md"))).toBe(true);
});
