// The files_replace card in real Chromium against a real Host (FILE-16, "diff with the
// file as it is at approval"): the diff is against the file the approval is bound to; when the
// file is edited after the card appeared, the card says so as soon as the person looks, shows no
// diff against the edited file, and approving is refused as stale with the edit kept. The Host
// here checks a waiting card only when it is approved (`--card-recheck-ms 0`), so the card stays
// to be looked at; the void a change makes by itself is move.spec.ts's.
import { test, expect, type Page } from "@playwright/test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { apiApprovals, SCREENS, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost(["--card-recheck-ms", "0"]);
  writeFileSync(join(host.project, "wisp-demo.txt"), "alpha\nbeta\n");
});
test.afterEach(async () => {
  await stopHost(host);
});

const STALE = "This file changed since this card appeared: approving it would be refused.";

async function askReplace(page: Page) {
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:replace]");
  await box.press("Enter");
  const card = page.getByRole("group", { name: "Approve files_replace?" });
  await expect(card).toBeVisible();
  return card;
}

test("the replace card diffs against the bound file; approving edits it", async ({ page }) => {
  const card = await askReplace(page);
  await expect(card.getByText("Changes against the current file")).toBeVisible();
  await expect(card.getByLabel("diff")).toContainText("- alpha");
  await expect(card.getByLabel("diff")).toContainText("+ alpha (edited by Wisp)");
  await expect(card.getByLabel("diff")).toContainText("beta");
  await expect(card.getByText(STALE)).toHaveCount(0);
  await page.screenshot({ path: join(SCREENS, "replace-card.png") });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("group", { name: "Approved: edit wisp-demo.txt" })).toBeVisible();
  await expect.poll(() => readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toBe("alpha (edited by Wisp)\nbeta\n");
});

test("a file edited after the card appeared: the card says so when the person looks, and approving is refused", async ({ page, request }) => {
  const card = await askReplace(page);
  // First the card shows the diff against the bound file…
  await expect(card.getByText("Changes against the current file")).toBeVisible();
  // …then the person edits it elsewhere (same size: only the digest tells) and comes back.
  writeFileSync(join(host.project, "wisp-demo.txt"), "ALPHA\nbeta\n");
  await card.hover();
  await expect(card.getByText(STALE)).toBeVisible();
  await expect(card.getByText("Changes against the current file")).toHaveCount(0);
  // No diff against the edited file: only the requested change.
  await expect(card.getByText("The requested change")).toBeVisible();
  await expect(card.getByLabel("diff")).not.toContainText("ALPHA");
  await expect(card.getByLabel("diff")).not.toContainText("beta");
  await page.screenshot({ path: join(SCREENS, "replace-card-stale.png") });
  // Reloaded, the card fetches the edited file at once and says so, in every layout.
  await shootAll(page, "replace-card-stale", async (p) => {
    await expect(p.locator(".approval-pending .file-notice.error")).toBeVisible();
  });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/the file changed since its card appeared \(nothing was written\)/).first()).toBeAttached();
  // The decided card is not titled as if the edit had been made.
  await expect(page.getByRole("group", { name: "Approved, but it did not succeed: edit wisp-demo.txt" })).toBeVisible();
  await expect(page.getByRole("group", { name: "Approved: edit wisp-demo.txt" })).toHaveCount(0);
  await shootAll(page, "replace-approved-failed", async (p) => {
    await expect(p.locator(".approval-approved.approval-failed")).toBeVisible();
  });
  const [approval] = await apiApprovals(request, host);
  expect(approval?.state).toBe("approved");
  expect(approval?.call.status).toBe("failed");
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toBe("ALPHA\nbeta\n");
});

test("coming back to the window fetches the file again", async ({ page }) => {
  const card = await askReplace(page);
  await expect(card.getByText("Changes against the current file")).toBeVisible();
  writeFileSync(join(host.project, "wisp-demo.txt"), "alpha\nBETA\n");
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  await expect(card.getByText(STALE)).toBeVisible();
  // Put back byte for byte, the file is the bound one again and the diff returns.
  writeFileSync(join(host.project, "wisp-demo.txt"), "alpha\nbeta\n");
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  await expect(card.getByText("Changes against the current file")).toBeVisible();
  await expect(card.getByText(STALE)).toHaveCount(0);
});

test("the QA page's replace samples show both states in memory (UI-12)", async ({ page }) => {
  const apiCalls: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/")) apiCalls.push(r.url());
  });
  await page.goto(host.base + "/qa.html");
  const same = page.locator('[data-sample="replace"]');
  await same.getByRole("button", { name: /Run sample/ }).click();
  await expect(same.getByText("Changes against the current file")).toBeVisible({ timeout: 5000 });
  await expect(same.getByLabel("diff")).toContainText("+ const retries = 5;");
  const stale = page.locator('[data-sample="replace-stale"]');
  await stale.getByRole("button", { name: /Run sample/ }).click();
  await expect(stale.getByText(STALE)).toBeVisible({ timeout: 5000 });
  await expect(stale.getByText("Changes against the current file")).toHaveCount(0);
  await stale.getByRole("button", { name: "Approve" }).click();
  await expect(stale.getByText("memory state: approved")).toBeVisible();
  expect(apiCalls).toEqual([]);
});
