// A layout that fits the window, in real Chromium at 800 and 1,920 px: the
// preview collapses to a toggle on narrow windows, the approval card keeps its buttons in view,
// long titles truncate with a tooltip, lines stay readable on wide screens, the sidebar keeps
// its header while the list scrolls, older runs load as the person scrolls up without moving
// what they read, and preview tabs survive switching sessions.
import { test, expect, type Page } from "@playwright/test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { AUTH, SCREENS, shootAll, startHost, stopHost, type Host } from "./host";

let host: Host;
test.afterEach(async () => {
  await stopHost(host);
});

async function send(page: Page, text: string) {
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill(text);
  await box.press("Enter");
}

test("narrow: the preview is a toggle, the card's buttons stay in view, titles truncate", async ({ page, request }) => {
  host = await startHost();
  await page.setViewportSize({ width: 800, height: 800 });
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  await send(page, "[demo:write] please");
  const card = page.getByRole("group", { name: "Approve files_write?" });
  const approve = card.getByRole("button", { name: "Approve" });
  await expect(approve).toBeVisible();
  // A card taller than the list arrives with its title in view, not scrolled above the top.
  const list = (await page.locator(".runs").boundingBox())!;
  const title = card.locator(".approval-head");
  await expect.poll(async () => (await title.boundingBox())!.y >= list.y - 1).toBe(true);
  for (const b of [approve, card.getByRole("button", { name: "Reject" })]) {
    const box = (await b.boundingBox())!;
    const cardBox = (await card.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(cardBox.x + cardBox.width);
    expect(box.x + box.width).toBeLessThanOrEqual(800);
  }
  await expect(page.locator("#preview-panel")).toBeHidden();
  await shootAll(page, "narrow-approval", async (p) => {
    await expect(p.getByRole("group", { name: /files_write/ })).toBeVisible();
  });
  await page.setViewportSize({ width: 800, height: 800 });
  // The preview opened while the card waits covers neither its buttons nor the simulation
  // banner: what is at each one's centre is that element itself.
  const onTop = (l: ReturnType<Page["locator"]>) =>
    l.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return !!hit && (hit === el || el.contains(hit));
    });
  await page.locator(".preview-toggle").click();
  await expect(page.locator("#preview-panel")).toBeVisible();
  for (const l of [approve, card.getByRole("button", { name: "Reject" }), page.locator(".banner").first()]) {
    await l.scrollIntoViewIfNeeded();
    expect(await onTop(l)).toBe(true);
  }
  await page.screenshot({ path: join(SCREENS, "narrow-card-with-preview.png") });
  await page.getByRole("button", { name: "Close the preview" }).click();
  await expect(page.locator("#preview-panel")).toBeHidden();
  await approve.click();
  await expect(page.getByText("wisp-demo.txt was written").first()).toBeVisible();
  // The written file opened a tab without covering the conversation; the toggle shows it.
  const toggle = page.getByRole("button", { name: /Preview \(1\)/ });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(page.locator("#preview-panel")).toBeHidden();
  await toggle.click();
  await expect(page.getByRole("tabpanel")).toContainText("Hello from the Wisp simulator.");
  // A dialog opened over the open preview is above it: its tabs and buttons are what a click
  // at their centre reaches.
  await page.getByRole("button", { name: "Settings" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  for (const l of [dialog.getByRole("tab").last(), dialog.getByRole("button", { name: "Test connection" }), dialog.getByRole("button", { name: "OK" })]) {
    await l.scrollIntoViewIfNeeded();
    expect(await onTop(l)).toBe(true);
  }
  // Its right half too, where the preview lies under it. What is painted on top, not what
  // takes the pointer: a modal dialog turns pointer events off around itself, and a hit test
  // skips such elements, so they are turned on for this look.
  const dialogOnTop = await dialog.evaluate((el) => {
    const all = el.ownerDocument.createElement("style");
    all.textContent = "* { pointer-events: auto !important; }";
    el.ownerDocument.head.append(all);
    const r = el.getBoundingClientRect();
    const ok = [0.6, 0.75, 0.9].every((f) => {
      const hit = document.elementFromPoint(r.x + r.width * f, r.y + r.height / 2);
      return !!hit && el.contains(hit);
    });
    all.remove();
    return ok;
  });
  expect(dialogOnTop).toBe(true);
  await page.screenshot({ path: join(SCREENS, "narrow-settings-over-preview.png") });
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByRole("button", { name: "Close the preview" }).click();
  await expect(page.locator("#preview-panel")).toBeHidden();
  // A long title is cut with an ellipsis and readable in full as a tooltip.
  const [session] = await (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json();
  const long = "A very long session title that explains everything about the refactoring of the parser and the lexer ".repeat(1).trim();
  await request.patch(`${host.base}/api/sessions/${session.id}`, { headers: AUTH, data: { title: long } });
  await page.reload();
  const h1 = page.locator(".conv-head h1");
  await expect(h1).toHaveAttribute("title", long);
  expect(await h1.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  expect(await page.locator(".conv-head").evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
  await expect(page.locator(`.session-row [title="${long}"]`)).toBeVisible();
});

test("wide: answers keep a readable width; preview tabs survive switching sessions", async ({ page }) => {
  host = await startHost(["--sim-pace-ms", "0"]);
  await page.setViewportSize({ width: 1920, height: 1000 });
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  await send(page, "[demo:multi] look");
  await expect(page.getByText("Here is what the two tools returned").first()).toBeVisible();
  expect((await page.locator("article.run").boundingBox())!.width).toBeLessThanOrEqual(52 * 14 + 1);
  await page.getByRole("button", { name: /Tool process/ }).click();
  await page.getByRole("button", { name: "Open preview" }).click();
  await expect(page.getByRole("tab", { name: /README.md/ })).toBeVisible();
  await page.getByRole("button", { name: "New session" }).click();
  await expect(page.getByRole("tab")).toHaveCount(0);
  await page.keyboard.press("Alt+ArrowDown");
  await expect(page.getByRole("heading", { name: "[demo:multi] look" })).toBeVisible();
  await expect(page.getByRole("tab", { name: /README.md/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel")).toContainText("The answer is 42.");
});

test("the sidebar header stays while many sessions scroll; Alt+↓ brings the chosen one into view", async ({ page, request }) => {
  host = await startHost();
  await page.setViewportSize({ width: 1280, height: 700 });
  for (let i = 0; i < 40; i++) await request.post(`${host.base}/api/sessions`, { headers: AUTH, data: {} });
  await page.goto(host.url);
  const list = page.locator(".sidebar section.grow > .list");
  await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(page.locator(".sidebar section.grow h2").getByRole("button", { name: "New session" })).toBeInViewport();
  await expect(page.getByRole("heading", { name: "Projects" })).toBeInViewport();
  // From the first session, Alt+↑ wraps to the last, which scrolls into view.
  await list.evaluate((el) => el.scrollTo(0, 0));
  const rows = page.locator(".session-row .item");
  await rows.first().click();
  await page.keyboard.press("Alt+ArrowUp");
  await expect(rows.last()).toHaveAttribute("aria-current", "true");
  await expect(rows.last()).toBeInViewport();
});

test("older runs load as the person scrolls up, and what they were reading stays in place", async ({ page, request }) => {
  host = await startHost(["--sim-pace-ms", "0"]);
  const session = await (await request.post(`${host.base}/api/sessions`, { headers: AUTH, data: {} })).json();
  for (let i = 0; i < 45; i++) {
    const { runId } = await (await request.post(`${host.base}/api/sessions/${session.id}/runs`, { headers: AUTH, data: { text: `message ${i}` } })).json();
    const deadline = Date.now() + 20_000;
    while ((await (await request.get(`${host.base}/api/runs/${runId}`, { headers: AUTH })).json()).status === "running") {
      if (Date.now() > deadline) throw new Error("run did not finish");
      await new Promise((res) => setTimeout(res, 10));
    }
  }
  await page.goto(host.url);
  await expect(page.getByText("message 44", { exact: true })).toBeVisible();
  const runs = page.locator(".runs");
  // One jump to the top: the oldest run of the first page (message 15) is what the person sees.
  await runs.evaluate((el) => el.scrollTo(0, 0));
  // The older page arrives by itself; the view still shows message 15 at the top, with the
  // older runs above it, instead of jumping to message 0.
  await expect(page.locator("article.run", { has: page.getByText("message 14", { exact: true }) })).toBeAttached();
  await expect(page.getByRole("button", { name: "Load older runs" })).toHaveCount(0);
  const oldest = page.locator("article.run", { has: page.getByText("message 15", { exact: true }) });
  await expect(oldest).toBeInViewport();
  const top = (await runs.boundingBox())!.y;
  expect((await oldest.boundingBox())!.y - top).toBeLessThan(250);
  expect(await runs.evaluate((el) => el.scrollTop)).toBeGreaterThan(1000);
  await expect(page.locator(".bubble", { hasText: /^message 0$/ })).not.toBeInViewport();
});

test("a session started without a folder gets one later, authorized as ~/…; examples start it", async ({ page }) => {
  host = await startHost([], undefined, "0", false);
  const home = homedir();
  const dir = mkdtempSync(join(home, "wisp-ui-home-"));
  try {
    await page.goto(host.url);
    await page.getByRole("button", { name: "New session" }).click();
    await expect(page.getByText("No project folder")).toBeVisible();
    await expect(page.getByRole("button", { name: "[demo:write] create a small file" })).toBeVisible();
    await shootAll(page, "new-session-examples", async (p) => {
      await expect(p.locator(".examples")).toBeVisible();
    });
    await page.getByRole("textbox", { name: /Folder path/ }).fill(`~/${relative(home, dir)}`);
    await page.getByRole("button", { name: "Authorize", exact: true }).click();
    await expect(page.locator(".sidebar .list .item").first()).toHaveAttribute("title", realpathSync(dir));
    await page.getByRole("combobox", { name: "Attach a project folder" }).selectOption({ label: realpathSync(dir) });
    await page.getByRole("button", { name: "Attach", exact: true }).click();
    await expect(page.locator(".conv-head .root")).toHaveText(`Project: ${realpathSync(dir)}`);
    await page.getByRole("button", { name: "[demo:write] create a small file" }).click();
    const box = page.getByRole("textbox", { name: /Message/ });
    await expect(box).toHaveValue("[demo:write] create a small file");
    await box.press("Enter");
    await page.getByRole("group", { name: "Approve files_write?" }).getByRole("button", { name: "Approve" }).click();
    await expect(page.getByText("wisp-demo.txt was written").first()).toBeVisible();
    expect(readFileSync(join(dir, "wisp-demo.txt"), "utf8")).toContain("Hello from the Wisp simulator.");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
