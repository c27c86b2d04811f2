// Waiting must look like waiting, in real Chromium against a real Host: elapsed
// time while a model request is open, a retry notice that stays while the service makes Wisp
// wait, and sessions that wait for an approval marked in the list and counted in the tab title.
import { test, expect } from "@playwright/test";
import { apiApprovals, AUTH, sendInNewSession, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});


test("a session waiting for approval is marked in the list and counted in the tab title", async ({ page, request }) => {
  await page.goto(host.url);
  await expect(page).toHaveTitle("Wisp");
  await sendInNewSession(page, "[demo:write] please");
  await expect(page.getByRole("group", { name: "Approve files_write?" })).toBeVisible();
  await expect(page).toHaveTitle("(1) Wisp");
  // Another session in front: the waiting one keeps its mark and the count stays.
  await sendInNewSession(page, "hello");
  await expect(page.getByText("comes from the Wisp simulator").first()).toBeVisible();
  const waitingRow = page.locator(".session-row", { hasText: "[demo:write] please" });
  await expect(waitingRow.getByText("Approval needed")).toBeVisible();
  await expect(page.locator(".session-row", { hasText: "hello" }).getByText("Approval needed")).toHaveCount(0);
  await expect(page).toHaveTitle("(1) Wisp");
  await shootAll(page, "approval-badge", async (p) => {
    await expect(p.locator(".session-row .badge-awaiting_approval")).toBeVisible();
  });
  await waitingRow.locator(".item").click();
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("wisp-demo.txt was written").first()).toBeVisible();
  await expect(page).toHaveTitle("Wisp");
  await expect(page.locator(".session-row .badge-awaiting_approval")).toHaveCount(0);
  expect((await apiApprovals(request, host)).map((a) => a.state)).toEqual(["approved"]);
});

test("a session that starts waiting elsewhere is marked without a reload, and unmarked when answered elsewhere", async ({ page, request }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "hello");
  await expect(page.getByText("comes from the Wisp simulator").first()).toBeVisible();
  // Another client (a second window, a script) starts a run that waits for an approval.
  const made = await request.post(`${host.base}/api/sessions`, { headers: AUTH, data: { title: "from elsewhere" } });
  const { id } = (await made.json()) as { id: string };
  await request.post(`${host.base}/api/sessions/${id}/runs`, { headers: AUTH, data: { text: "[demo:write] please" } });
  const row = page.locator(".session-row", { hasText: "from elsewhere" });
  await expect(row.getByText("Approval needed")).toBeVisible();
  await expect(page).toHaveTitle("(1) Wisp");
  // Answered elsewhere too: the mark and the count go, still without a reload.
  await expect.poll(async () => (await apiApprovals(request, host)).length).toBe(1);
  const [pending] = await apiApprovals(request, host);
  const answered = await request.post(`${host.base}/api/approvals/${pending!.id}`, {
    headers: AUTH,
    data: { decision: "reject", digest: pending!.digest },
  });
  expect(answered.status()).toBe(204);
  await expect(row.getByText("Approval needed")).toHaveCount(0);
  await expect(page).toHaveTitle("Wisp");
});

test("an open model request shows how long it has been open", async ({ page }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "tell me [fault:slow]");
  const elapsed = page.locator(".live .elapsed");
  await expect(elapsed).toBeVisible();
  await expect.poll(async () => Number((await elapsed.textContent())?.match(/\d+/)?.[0]), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByText("You stopped this run.")).toBeVisible();
  await expect(elapsed).toHaveCount(0);
});

test("a rate limit shows a retry notice that stays while Wisp waits as asked", async ({ page }) => {
  await page.goto(host.url);
  await sendInNewSession(page, "hi [fault:429]");
  const notice = page.locator(".status-line.retry");
  await expect(notice).toContainText("Trying the model again");
  await expect(notice).toContainText("429");
  // Several waits of 1 s later it is still there, with the attempt counting up.
  await expect(notice).toContainText(/attempt [3-9]/, { timeout: 10_000 });
  await expect(page.locator(".live .elapsed")).toBeVisible();
  await shootAll(page, "retry-notice", async (p) => {
    await expect(p.locator(".status-line.retry")).toBeVisible({ timeout: 10_000 });
  });
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByText("You stopped this run.")).toBeVisible();
});
