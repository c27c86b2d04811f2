// files_trash as a person uses it: the card of `[demo:trash]` in real Chromium against
// a real Host, the file moved into the Host's trash on approval — a trash in the test's temp
// dir (XDG_DATA_HOME, see host.ts), never the machine's.
import { test, expect } from "@playwright/test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCREENS, startHost, stopHost, trashOf, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

async function send(page: import("@playwright/test").Page, text: string) {
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill(text);
  await box.press("Enter");
}

test("a trash card shows the path and what goes; approved, the folder is in the trash", async ({ page }) => {
  mkdirSync(join(host.project, "old/sub"), { recursive: true });
  writeFileSync(join(host.project, "old/a.log"), "a");
  writeFileSync(join(host.project, "old/sub/b.log"), "b");
  await send(page, "[demo:trash] file=old");
  const card = page.getByRole("group", { name: "Approve files_trash?" });
  await expect(card).toBeVisible();
  await expect(card.getByText("old", { exact: true })).toBeVisible();
  await expect(card.getByText("2 files and 2 folders")).toBeVisible();
  await expect(card.getByText(/to the trash, restorable/i)).toBeVisible();
  await page.screenshot({ path: join(SCREENS, "approval-trash.png") });
  expect(existsSync(join(host.project, "old/sub/b.log"))).toBe(true);
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/old and the trash/).first()).toBeVisible();
  expect(existsSync(join(host.project, "old"))).toBe(false);
  expect(readFileSync(join(trashOf(host), "files/old/sub/b.log"), "utf8")).toBe("b");
  expect(readFileSync(join(trashOf(host), "info/old.trashinfo"), "utf8")).toContain(`Path=${host.project}/old\n`);
});

test("a rejected trash card leaves the file where it was", async ({ page }) => {
  writeFileSync(join(host.project, "wisp-demo.txt"), "stay");
  await send(page, "[demo:trash]");
  const card = page.getByRole("group", { name: "Approve files_trash?" });
  await expect(card.getByText("This one file")).toBeVisible();
  await card.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("group", { name: /Rejected: move wisp-demo.txt to the trash/ })).toBeVisible();
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toBe("stay");
  expect(existsSync(join(trashOf(host), "files/wisp-demo.txt"))).toBe(false);
});

test("the QA trash sample shows its counts and is answered in memory only", async ({ page }) => {
  const apiCalls: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/")) apiCalls.push(r.url());
  });
  await page.goto(host.base + "/qa.html");
  const sample = page.locator('[data-sample="trash"]');
  await sample.getByRole("button", { name: /Run sample/ }).click();
  const card = sample.getByRole("group", { name: "Approve files_trash?" });
  await expect(card).toBeVisible({ timeout: 5000 });
  await expect(card.getByText("3 files and 1 folder")).toBeVisible();
  await card.getByRole("button", { name: "Reject" }).click();
  await expect(sample.getByText("memory state: rejected")).toBeVisible();
  expect(apiCalls).toEqual([]);
  expect(existsSync(trashOf(host))).toBe(false);
});
