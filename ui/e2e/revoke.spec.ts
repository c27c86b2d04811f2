// Revoking a project (DEC-03) in real Chromium against a real Host: the confirmation says what
// happens, the file approval waiting at that moment becomes void, the run in flight keeps its
// tool list but reaches no file, the next run has no file tools, and the folder is untouched.
import { test, expect } from "@playwright/test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AUTH, SCREENS, apiApprovals, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost(["--sim-pace-ms", "0"]);
});
test.afterEach(async () => {
  await stopHost(host);
});

test("revoking a project voids its waiting approval and the next run has no file tools", async ({ page, request }) => {
  const readme = readFileSync(join(host.project, "README.md"));
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  await expect(page.locator(".conv-head .root")).toContainText("Project:");
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:snapshot] before");
  await box.press("Enter");
  await expect(page.getByRole("group", { name: "Approve files_write?" })).toBeVisible();

  await page.getByRole("button", { name: "Revoke access" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("keep their history");
  await expect(dialog).toContainText("Nothing in the folder is changed or deleted");
  await page.screenshot({ path: join(SCREENS, "revoke-confirm.png") });
  await dialog.getByRole("button", { name: "Revoke" }).click();
  await expect(dialog).toBeHidden();

  // The waiting card is void; the run goes on with its own tool list (files_write still in it).
  const first = page.locator("article.run").first();
  await expect(first.locator(".answer > .markdown")).toContainText("tool_introspect listed");
  await expect(first.locator(".answer > .markdown")).toContainText("files_write");
  const approvals = await apiApprovals(request, host);
  expect(approvals.map((a) => a.state)).toEqual(["void"]);
  await expect(page.locator(".conv-head .root")).toContainText("no longer authorized");
  await expect(page.getByRole("button", { name: "Revoke access" })).toHaveCount(0);
  await page.screenshot({ path: join(SCREENS, "revoked-session.png") });
  const projects = await (await request.get(`${host.base}/api/projects`, { headers: AUTH })).json();
  expect(projects).toEqual([]);

  await box.fill("[demo:snapshot] after");
  await box.press("Enter");
  const second = page.locator("article.run").nth(1);
  await expect(second.locator(".answer > .markdown")).toContainText("tool_introspect listed");
  await expect(second.locator(".answer > .markdown")).toContainText("open_webpage");
  await expect(second.locator(".answer > .markdown")).not.toContainText("files_");
  expect((await apiApprovals(request, host)).length).toBe(1);

  expect(readFileSync(join(host.project, "README.md"))).toEqual(readme);
  expect(existsSync(join(host.project, "wisp-snapshot.txt"))).toBe(false);
});
