// Approval safety in real Chromium against a real Host: a card appears without
// taking focus, so typing goes on into the message box and answers nothing; A/R answer only a
// card the person moved to; Esc stops the run from anywhere, a focused card included.
import { test, expect, type Page, type Request } from "@playwright/test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { apiApprovals, apiRuns, SCREENS, sendInNewSession as send, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

/** Every decision the page sends, so a test can assert that none was. */
function watchDecisions(page: Page): Request[] {
  const sent: Request[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/approvals/")) sent.push(r);
  });
  return sent;
}

/** A new session on this test's Host, with `text` sent. */
const sendInNewSession = (page: Page, text: string) => send(page, text, host.url);

const card = (page: Page) => page.getByRole("group", { name: "Approve files_write?" });

/** Moves keyboard focus backwards from the message box until the card has it, as a person
 * pressing Shift+Tab would; fails when the card is not reachable in a few steps. */
async function tabToCard(page: Page) {
  await page.getByRole("textbox", { name: /Message/ }).focus();
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Shift+Tab");
    if (await card(page).evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error("the approval card is not reachable with Shift+Tab");
}

test("typing in the message box while a card appears answers nothing and loses no keystroke", async ({ page, request }) => {
  const decisions = watchDecisions(page);
  const box = await sendInNewSession(page, "[demo:write] please");
  // Keep typing from the moment the message is sent, through the card's appearance, and on.
  const pattern = "aaaa rrrr ";
  let typed = "";
  let after = -1;
  const deadline = Date.now() + 30_000;
  for (let i = 0; after < pattern.length * 2; i++) {
    if (Date.now() > deadline) throw new Error("no approval card appeared while typing");
    const ch = pattern[i % pattern.length]!;
    await page.keyboard.type(ch);
    typed += ch;
    if (after >= 0) after++;
    else if (await card(page).isVisible()) after = 0;
  }
  await expect(card(page)).toBeVisible();
  // The Host agrees: nothing was decided and nothing written.
  expect(decisions.map((r) => r.url())).toEqual([]);
  const approvals = await apiApprovals(request, host);
  expect(approvals.map((a) => a.state)).toEqual(["pending"]);
  expect(approvals[0]!.run.status).toBe("awaiting_approval");
  expect(existsSync(join(host.project, "wisp-demo.txt"))).toBe(false);
  // Every keystroke is in the box, which kept the focus; the card was announced instead.
  await expect(box).toHaveValue(typed);
  await expect(box).toBeFocused();
  await expect(page.getByTestId("announcer")).toContainText("files_write");
  await expect(card(page).getByRole("button", { name: "Approve" })).toBeVisible();
  await page.screenshot({ path: join(SCREENS, "typing-while-card-appears.png") });
});

test("A approves the card the person tabbed to, and nothing with a modifier key", async ({ page, request }) => {
  const decisions = watchDecisions(page);
  await sendInNewSession(page, "[demo:write] please");
  await expect(card(page)).toBeVisible();
  await tabToCard(page);
  for (const chord of ["Control+a", "Alt+a", "Meta+a", "Shift+A", "Control+r"]) await page.keyboard.press(chord);
  expect(decisions).toEqual([]);
  expect((await apiApprovals(request, host)).map((a) => a.state)).toEqual(["pending"]);
  await page.keyboard.press("a");
  await expect(page.getByText("wisp-demo.txt was written").first()).toBeVisible();
  // The focus is back in the message box, not on the page's body, and the answered card is
  // still in view.
  await expect(page.getByRole("textbox", { name: /Message/ })).toBeFocused();
  await expect(page.getByRole("group", { name: /wisp-demo\.txt/ }).first()).toBeInViewport();
  expect(decisions.length).toBe(1);
  expect((await apiApprovals(request, host)).map((a) => a.state)).toEqual(["approved"]);
  expect(readFileSync(join(host.project, "wisp-demo.txt"), "utf8")).toContain("Hello from the Wisp simulator.");
});

test("R rejects a card the person clicked", async ({ page, request }) => {
  await sendInNewSession(page, "[demo:write] please");
  await card(page).getByText("Approve files_write?").click();
  await expect(card(page)).toBeFocused();
  await page.keyboard.press("r");
  await expect(page.getByText("The write was rejected").first()).toBeVisible();
  expect((await apiApprovals(request, host)).map((a) => a.state)).toEqual(["rejected"]);
  expect(existsSync(join(host.project, "wisp-demo.txt"))).toBe(false);
});

test("Esc on a focused card stops the run and voids the card", async ({ page, request }) => {
  const decisions = watchDecisions(page);
  await sendInNewSession(page, "[demo:write] please");
  await expect(card(page)).toBeVisible();
  await tabToCard(page);
  await page.keyboard.press("Escape");
  await expect(page.getByText("You stopped this run.")).toBeVisible();
  await expect(page.getByRole("group", { name: "Not answered: write wisp-demo.txt" }).getByRole("status")).toContainText("nothing was done");
  expect(decisions).toEqual([]);
  const runs = await apiRuns(request, host);
  expect(runs.map((r) => r.status)).toEqual(["cancelled"]);
  expect((await apiApprovals(request, host)).map((a) => a.state)).toEqual(["void"]);
  expect(existsSync(join(host.project, "wisp-demo.txt"))).toBe(false);
});

test("Esc in the message box stops a run and keeps the draft", async ({ page, request }) => {
  const box = await sendInNewSession(page, "[demo:write] please");
  await box.pressSequentially("next question");
  await expect(card(page)).toBeVisible();
  await box.press("Escape");
  await expect(page.getByText("You stopped this run.")).toBeVisible();
  await expect(box).toHaveValue("next question");
  expect((await apiRuns(request, host)).map((r) => r.status)).toEqual(["cancelled"]);
});
