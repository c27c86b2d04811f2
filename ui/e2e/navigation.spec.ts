// Keyboard navigation between sessions and what an open page does when the Host restarts:
// the event stream reconnects from the last sequence number it saw and
// the page shows what the restarted Host holds, without a reload.
import { test, expect } from "@playwright/test";
import { AUTH, SCREENS, startHost, stopHost, type Host } from "./host";
import { join } from "node:path";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

test("Alt+↓ and Alt+↑ move between sessions, from the message box too", async ({ page, request }) => {
  for (const title of ["First", "Second", "Third"]) {
    const s = await (await request.post(`${host.base}/api/sessions`, { headers: AUTH, data: {} })).json();
    await request.patch(`${host.base}/api/sessions/${s.id}`, { headers: AUTH, data: { title } });
  }
  await page.goto(host.url);
  const heading = page.locator(".conv-head h1");
  const first = await heading.textContent();
  const order = await page.locator(".session-row .item").allTextContents();
  expect(order.length).toBe(3);
  await page.keyboard.press("Alt+ArrowDown");
  await expect(heading).toHaveText(order[(order.indexOf(first!) + 1) % 3]!);
  await expect(page.locator(".session-row .item[aria-current=true]")).toHaveText(order[(order.indexOf(first!) + 1) % 3]!);
  await page.getByRole("textbox", { name: /Message/ }).focus();
  await page.keyboard.press("Alt+ArrowUp");
  await expect(heading).toHaveText(first!);
  await page.keyboard.press("Alt+ArrowUp");
  await expect(heading).toHaveText(order[(order.indexOf(first!) + 2) % 3]!);
});

test("after a Host restart the open page reconnects from its last event and shows the run's end", async ({ page, request }) => {
  const streams: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/events?")) streams.push(r.url());
  });
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:write] please");
  await box.press("Enter");
  const card = page.getByRole("group", { name: "Approve files_write?" });
  await expect(card.getByRole("button", { name: "Approve" })).toBeVisible();
  const [session] = await (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json();
  const seen = session.lastEventSeq as number;
  expect(seen).toBeGreaterThan(0);
  const before = streams.length;

  // The same address and token: a restart, as `wisp serve` with WISP_TOKEN does it.
  const port = new URL(host.base).port;
  await stopHost(host);
  host = await startHost([], host, port);

  // The run in flight did not survive the restart; the page learns it from the event stream.
  await expect(card.getByRole("button", { name: "Approve" })).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator("article.run")).toHaveAttribute("data-status", /interrupted|cancelled/);
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeVisible();
  const reconnects = streams.slice(before).map((u) => Number(new URL(u).searchParams.get("after")));
  expect(reconnects.length).toBeGreaterThan(0);
  // Each reconnect resumes after the last event seen, never from the start.
  for (const after of reconnects) expect(after).toBeGreaterThanOrEqual(seen);
  const runs = (await (await request.get(`${host.base}/api/sessions/${session.id}/runs`, { headers: AUTH })).json()).runs;
  await expect(page.locator("article.run")).toHaveAttribute("data-status", runs[0].status);
  await page.screenshot({ path: join(SCREENS, "after-restart.png") });
});
