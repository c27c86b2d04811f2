// Files that look like credentials in real Chromium against a real Host: `[demo:secrets]` reads
// `.env`, and the card asks "Send this file to the model provider?" with path, size and why —
// never the content, which neither the page nor the Host's answers hold until the person
// approves. Rejected, nothing is sent; approved, the file is sent once.
import { test, expect, type Page } from "@playwright/test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AUTH, apiRuns, SCREENS, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
  writeFileSync(join(host.project, ".env"), ENV);
});
test.afterEach(async () => {
  await stopHost(host);
});

const SECRET = "sk-live-ui-7d1e0c9b";
const ENV = `OPENAI_API_KEY=${SECRET}\nDEBUG=1\n`;

async function send(page: Page, text: string) {
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill(text);
  await box.press("Enter");
}

const card = (page: Page) => page.getByRole("group", { name: "Send this file to the model provider?" });

/** Everything the Host's API says about the runs, as text. */
async function apiText(page: Page) {
  const sessions = await (await page.request.get(`${host.base}/api/sessions`, { headers: AUTH })).text();
  return sessions + JSON.stringify(await apiRuns(page.request, host));
}

test("the card shows path, size and why, never the content; rejected, nothing is sent", async ({ page }) => {
  await send(page, "[demo:secrets]");
  await expect(card(page)).toBeVisible();
  await expect(card(page).getByText(".env", { exact: true })).toBeVisible();
  await expect(card(page).getByText(`${ENV.length} bytes`)).toBeVisible();
  await expect(card(page).getByText(/An environment file, which often holds API keys and passwords\./)).toBeVisible();
  await expect(card(page).getByText(/Its content is not shown here/)).toBeVisible();
  expect(await page.content()).not.toContain(SECRET);
  expect(await apiText(page)).not.toContain(SECRET);
  await page.setViewportSize({ width: 800, height: 900 });
  await card(page).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENS, "approval-read-secret-800.png") });
  await shootAll(page, "approval-read-secret", async (p) => {
    await expect(p.getByRole("group", { name: /Send this file to the model provider\?|把这个文件发送给模型服务商？/ })).toBeVisible();
  });
  await card(page).getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("group", { name: "Rejected: send .env to the model provider" })).toBeVisible();
  await expect(page.getByText(/You declined, so nothing of \.env was sent to me/).first()).toBeVisible();
  await expect.poll(async () => (await apiRuns(page.request, host))[0]!.status).toBe("completed");
  const [run] = await apiRuns(page.request, host);
  expect(run!.steps[0]!.toolCalls[0]!.status).toBe("rejected");
  expect(await page.content()).not.toContain(SECRET);
  expect(await apiText(page)).not.toContain(SECRET);
});

test("approved, the file is sent once; the next read asks again", async ({ page }) => {
  await send(page, "[demo:secrets]");
  await card(page).getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("group", { name: "Approved: send .env to the model provider" })).toBeVisible();
  await expect(page.getByText(/\.env was sent to me once, as you approved/).first()).toBeVisible();
  await expect.poll(async () => (await apiRuns(page.request, host))[0]!.status).toBe("completed");
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("[demo:secrets] again");
  await box.press("Enter");
  await expect(card(page)).toBeVisible();
  await expect(card(page).getByRole("button", { name: "Approve" })).toBeVisible();
  const runs = await apiRuns(page.request, host);
  expect(runs.map((r) => r.status).sort()).toEqual(["awaiting_approval", "completed"]);
});
