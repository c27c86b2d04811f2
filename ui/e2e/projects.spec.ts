// Two authorized folders in real Chromium against a real Host: the project new sessions go in
// follows the session the person looks at, authorizing a folder picks it (and New session says
// so), and once sessions of both folders are listed each is labelled with its folder.
import { test, expect } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { AUTH, SCREENS, startHost, stopHost, type Host } from "./host";

let host: Host;
test.afterEach(async () => {
  await stopHost(host);
});

test("New session starts where the person looks; sessions of two folders are labelled", async ({ page, request }) => {
  host = await startHost();
  const second = join(dirname(host.project), "second");
  mkdirSync(second);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(host.url);
  const newButton = page.getByLabel("New session", { exact: true });
  const projects = page.locator(".project-row .item");
  await expect(projects).toHaveText(["project"]);

  // A session in the first folder is shown.
  await newButton.click();
  await expect(page.getByRole("heading", { name: "New session", exact: true })).toBeVisible();
  await expect(newButton).toHaveAttribute("title", "New session in project");
  await expect(page.locator(".item-place")).toHaveCount(0);

  // Authorizing a second folder picks it, and New session says where it starts.
  await page.getByRole("textbox", { name: /Folder path/ }).fill(second);
  await page.getByRole("button", { name: "Authorize" }).click();
  await expect(projects).toHaveText(["project", "second"]);
  await expect(page.locator(".project-row .item.selected")).toHaveText("second");
  await expect(newButton).toHaveAttribute("title", "New session in second");
  await newButton.click();
  await expect(page.locator(".session-row")).toHaveCount(2);
  const list = async () => (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json() as Promise<{ id: string; root: string | null }[]>;
  const [newest, older] = await list();
  expect(newest!.root).toBe(second);
  // Both folders are listed now: each session says which it works in.
  await expect(page.locator(".session-row .item-place")).toHaveText(["second", "project"]);

  // Showing the first folder's session makes it the place of the next one.
  await page.locator(`[data-session-id="${older!.id}"]`).click();
  await expect(page.locator(".project-row .item.selected")).toHaveText("project");
  await expect(newButton).toHaveAttribute("title", "New session in project");
  await newButton.click();
  await expect(page.locator(".session-row")).toHaveCount(3);
  const [third] = await list();
  expect(third!.root).toBe(host.project);
  await page.screenshot({ path: join(SCREENS, "sessions-of-two-folders.png") });
});
