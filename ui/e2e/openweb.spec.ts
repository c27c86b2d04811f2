// open_webpage as a person uses it (SIM-08, WEB-02..04, UI-07) in web-only mode:
// `[demo:openweb]` asks to show the simulator's own test site; the card shows the URL whole
// and names it a loopback address; approved, this UI claims the ticket from its event stream,
// the Host's web tab of the session shows the URL, and the UI's acknowledgement makes the
// result open_request_accepted. Rejected, nothing opens.
import { test, expect, type APIRequestContext, type Page } from "@playwright/test";
import { join } from "node:path";
import { AUTH, SCREENS, apiRuns, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost(["--web-only"]);
});
test.afterEach(async () => {
  await stopHost(host);
});

async function send(page: Page, text: string) {
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill(text);
  await box.press("Enter");
}

async function sessionTabs(request: APIRequestContext) {
  const sessions = (await (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json()) as { id: string }[];
  const all: { tabId: string; kind: string; url?: string; active: boolean }[] = [];
  for (const s of sessions) all.push(...(await (await request.get(`${host.base}/api/sessions/${s.id}/tabs`, { headers: AUTH })).json()));
  return all;
}

const SITE = /^http:\/\/127\.0\.0\.1:\d+\/site\/$/;

test("approved, the UI claims the ticket, the web tab shows the URL and the result is open_request_accepted", async ({ page, request }) => {
  const claims: string[] = [];
  page.on("request", (r) => {
    if (/\/api\/tickets\/tk_[0-9a-f]{32}\/(claim|ack)$/.test(r.url())) claims.push(r.url().split("/").pop()!);
  });
  await send(page, "[demo:openweb]");
  const card = page.getByRole("group", { name: "Approve open_webpage?" });
  await expect(card).toBeVisible();
  const url = (await card.locator("code.open-url").textContent()) ?? "";
  expect(url).toMatch(SITE);
  await expect(card.getByRole("note")).toHaveText(/on this computer \(loopback\)/);
  await page.screenshot({ path: join(SCREENS, "approval-openweb.png") });
  expect(await sessionTabs(request)).toEqual([]);

  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/The preview accepted the page/).first()).toBeVisible();
  expect(claims).toEqual(["claim", "ack"]);
  const tabs = await sessionTabs(request);
  expect(tabs).toHaveLength(1);
  expect(tabs[0]).toMatchObject({ kind: "web", url, active: true });
  await expect(page.locator("button.preview-toggle")).toHaveAttribute("aria-expanded", "true");
  const call = (await apiRuns(request, host))[0]!.steps[0]!.toolCalls[0]! as unknown as { tool: string; status: string; result: string };
  expect(call.tool).toBe("open_webpage");
  expect(call.status).toBe("succeeded");
  expect(JSON.parse(call.result)).toMatchObject({ status: "open_request_accepted", tabId: tabs[0]!.tabId, url });
  await page.screenshot({ path: join(SCREENS, "openweb-accepted.png") });
});

test("rejected, nothing opens and no ticket is claimed", async ({ page, request }) => {
  const claims: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/tickets/")) claims.push(r.url());
  });
  await send(page, "[demo:openweb]");
  const card = page.getByRole("group", { name: "Approve open_webpage?" });
  await card.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByText(/The page was not opened/).first()).toBeVisible();
  // The answer streams before the run is stored as completed.
  await expect.poll(async () => (await apiRuns(request, host))[0]!.status).toBe("completed");
  const runs = await apiRuns(request, host);
  expect(runs[0]!.steps[0]!.toolCalls[0]!.status).toBe("rejected");
  expect(await sessionTabs(request)).toEqual([]);
  expect(claims).toEqual([]);
});
