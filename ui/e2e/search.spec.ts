// Finding an old conversation: the sidebar's search over titles, messages and answers (Chinese
// too) lists the sessions found with the match marked; choosing one shows its session at the
// run that matched. A pinned session stays above newer ones, also after a reload.
import { test, expect, type APIRequestContext } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { join } from "node:path";
import { AUTH, SCREENS, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

/** A session titled `title` with one finished run per message; its ID and its runs' IDs. */
async function sessionWith(request: APIRequestContext, title: string, messages: string[]) {
  const s = await (await request.post(`${host.base}/api/sessions`, { headers: AUTH, data: {} })).json();
  await request.patch(`${host.base}/api/sessions/${s.id}`, { headers: AUTH, data: { title } });
  const runs: string[] = [];
  for (const text of messages) {
    const started = await (await request.post(`${host.base}/api/sessions/${s.id}/runs`, { headers: AUTH, data: { text } })).json();
    runs.push(started.runId);
    await expect
      .poll(async () => (await (await request.get(`${host.base}/api/runs/${started.runId}`, { headers: AUTH })).json()).status, { timeout: 15_000 })
      .toBe("completed");
  }
  return { id: s.id as string, runs };
}

test("a search finds a session by a message, marks the match and opens it at that run", async ({ page, request }) => {
  const filler = Array.from({ length: 5 }, (_, i) => `filler message ${i}: ${"some words to take room on the screen ".repeat(12)}`);
  const old = await sessionWith(request, "Old work", ["请检查配置文件的加载", ...filler]);
  await sessionWith(request, "Newer work", ["something else entirely"]);
  await page.goto(host.url);
  await expect(page.locator(".conv-head h1")).toHaveText("Newer work");

  const box = page.getByRole("searchbox", { name: "Search sessions" });
  await box.fill("配置");
  const found = page.getByRole("list", { name: "Sessions found" });
  await expect(found.getByRole("button")).toHaveCount(1);
  const hit = found.getByRole("button");
  await expect(hit).toContainText("Old work");
  await expect(hit).toContainText("in a message");
  await expect(hit.locator("mark")).toHaveText("配置");
  await expect(page.getByRole("status").filter({ hasText: "found" })).toHaveText("1 session found");
  await page.screenshot({ path: join(SCREENS, "search-hits.png") });
  const axe = await new AxeBuilder({ page }).include(".sidebar").withTags(["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);

  await hit.click();
  await expect(page.locator(".conv-head h1")).toHaveText("Old work");
  // The run that matched is brought to the top of the list and marked, though the list opens
  // at its end and is taller than the screen.
  const list = page.locator(".runs");
  expect(await list.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeGreaterThan(400);
  const matched = page.locator(`article.run[data-run-id="${old.runs[0]}"]`);
  await expect
    .poll(async () => {
      const [a, l] = [await matched.boundingBox(), await list.boundingBox()];
      return a && l ? Math.abs(a.y - l.y) : Infinity;
    })
    .toBeLessThan(60);
  await expect(page.locator(".run-slot.found article.run")).toHaveAttribute("data-run-id", old.runs[0]!);

  // Text in no session says so; Escape gives the session list back.
  await box.fill("没有这段文字");
  await expect(page.getByRole("status").filter({ hasText: "No session" })).toHaveText("No session holds this text.");
  await box.press("Escape");
  await expect(box).toHaveValue("");
  await expect(page.locator(".session-row .item")).toHaveCount(2);
});

test("a pinned session stays above newer ones, also after a reload, until it is unpinned", async ({ page, request }) => {
  await sessionWith(request, "Keep me", []);
  await sessionWith(request, "Newer", []);
  await page.goto(host.url);
  const rows = page.locator(".session-row .item .item-title");
  await expect(rows).toHaveText(["Newer", "Keep me"]);
  await page.locator(".session-row .item", { hasText: "Keep me" }).click();
  await page.getByRole("button", { name: "Pin to the top" }).click();
  await expect(rows).toHaveText(["Keep me", "Newer"]);
  await expect(page.locator(".session-row", { hasText: "Keep me" }).getByRole("img", { name: "Pinned" })).toBeVisible();
  await page.reload();
  await expect(rows).toHaveText(["Keep me", "Newer"]);
  await page.getByRole("button", { name: "Unpin" }).click();
  await expect(rows).toHaveText(["Newer", "Keep me"]);
  await expect(page.getByRole("img", { name: "Pinned" })).toHaveCount(0);
});
