// The first minute in real Chromium against a real Host: the first screen is ready to type (the
// message box has the focus, examples are offered, the first message makes its session in the
// project shown) and a session made before the first list arrived stays shown, "/" and a skip
// link lead to the message box, and ↑ in an empty box brings back the last message.
import { test, expect } from "@playwright/test";
import { join } from "node:path";
import { AUTH, SCREENS, apiRuns, startHost, stopHost, type Host } from "./host";

let host: Host;
test.beforeEach(async () => {
  host = await startHost();
});
test.afterEach(async () => {
  await stopHost(host);
});

test("the first screen takes a message at once and the first send makes the session", async ({ page }) => {
  await page.goto(host.url);
  const box = page.getByRole("textbox", { name: /Message/ });
  await expect(box).toBeFocused();
  await expect(page.locator(".example").first()).toBeVisible();
  // The model in use is named whole in the sidebar, never cut off.
  const badge = page.locator(".brand .model-badge");
  await expect(badge).toHaveText(/^Built-in simulator · deepseek-v4-flash$/);
  expect(await badge.evaluate((b) => b.scrollWidth <= b.clientWidth && b.getBoundingClientRect().height > 0)).toBe(true);
  // It says where the first message's session starts.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Write a message to start a session in project, or choose one on the left.");
  await page.screenshot({ path: join(SCREENS, "first-screen.png") });
  await page.keyboard.type("hello there");
  await page.keyboard.press("Enter");
  // One session, in the project, with the message as its title, and the answer in it.
  await expect(page.getByRole("heading", { name: "hello there" })).toBeVisible();
  // The box kept the focus through the session's making.
  await expect(box).toBeFocused();
  await expect(page.locator(".session-row")).toHaveCount(1);
  await expect(page.locator(".conv-head")).toContainText(host.project);
  await expect(page.locator(".run .answer").first()).not.toBeEmpty();
  // ↑ in the empty box brings the last message back to edit; in a box with text it does not.
  await expect(box).toHaveValue("");
  await box.focus();
  await page.keyboard.press("ArrowUp");
  await expect(box).toHaveValue("hello there");
  await page.keyboard.press("ArrowUp");
  await expect(box).toHaveValue("hello there");
});

test("a session made while the first list is still on its way stays shown", async ({ page }) => {
  // The first read of the session list answers late, as on a busy machine; the person does not
  // wait for it. The list it brings is from before the session was made.
  let first = true;
  let delivered!: () => void;
  const staleDelivered = new Promise<void>((r) => (delivered = r));
  await page.route("**/api/sessions", async (route) => {
    if (route.request().method() !== "GET" || !first) return route.continue();
    first = false;
    const stale = await route.fetch();
    await new Promise((r) => setTimeout(r, 1500));
    await route.fulfill({ response: stale });
    delivered();
  });
  await page.goto(host.url);
  await page.getByRole("button", { name: "New session" }).click();
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("quick one");
  await box.press("Enter");
  await expect(page.getByRole("heading", { name: "quick one" })).toBeVisible();
  await staleDelivered;
  // Two frames: the page has read the late list and rendered what follows from it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  expect(await page.getByRole("heading", { name: "quick one" }).isVisible()).toBe(true);
  await expect(page.locator(".run .answer").first()).not.toBeEmpty();
  await expect(page.locator(".session-row")).toHaveCount(1);
});

test("/ goes to the message box from anywhere but a text field, and the skip link does too", async ({ page }) => {
  await page.goto(host.url);
  const box = page.getByRole("textbox", { name: /Message/ });
  await page.getByRole("button", { name: "Settings" }).focus();
  await page.keyboard.press("/");
  await expect(box).toBeFocused();
  await expect(box).toHaveValue("");
  // In a text field "/" is a character.
  const folder = page.getByRole("textbox", { name: /Folder path/ });
  await folder.focus();
  await page.keyboard.press("/");
  await expect(folder).toHaveValue("/");
  // The skip link is the first stop of the keyboard and shows itself when reached.
  const skip = page.getByRole("link", { name: "Skip to the message box" });
  const first = await page.evaluate(() => document.querySelector('a[href], button, input, textarea, select, [tabindex]:not([tabindex="-1"])')?.textContent);
  expect(first).toBe("Skip to the message box");
  await expect(skip).not.toBeInViewport();
  await skip.focus();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(box).toBeFocused();
});

test("the model is picked beside the message box: before the first message, then for the next run", async ({ page, request }) => {
  await page.goto(host.url);
  const picker = page.getByRole("combobox", { name: "Model of this session" });
  // The default names the model Settings gives; the others are the price table's.
  await expect(picker.locator("option:checked")).toHaveText("deepseek-v4-flash (as in Settings)");
  await expect(picker.locator("option")).toHaveText(["deepseek-v4-flash (as in Settings)", "deepseek-v4-pro"]);
  await picker.selectOption("deepseek-v4-pro");
  const box = page.getByRole("textbox", { name: /Message/ });
  await box.fill("first on pro");
  await box.press("Enter");
  await expect(page.getByRole("heading", { name: "first on pro" })).toBeVisible();
  await expect.poll(async () => (await apiRuns(request, host)).map((r) => r.model?.name)).toEqual(["deepseek-v4-pro"]);
  await expect(picker).toHaveValue("deepseek-v4-pro");
  await expect.poll(async () => (await apiRuns(request, host)).map((r) => r.status)).toEqual(["completed"]);
  // Back to Settings' model: the next run asks for it; the first keeps what it used.
  await picker.selectOption("");
  await expect.poll(async () => ((await (await request.get(`${host.base}/api/sessions`, { headers: AUTH })).json()) as { model?: string }[])[0]!.model).toBeUndefined();
  await box.fill("then as in settings");
  await box.press("Enter");
  await expect.poll(async () => (await apiRuns(request, host)).map((r) => r.model?.name).sort()).toEqual(["deepseek-v4-flash", "deepseek-v4-pro"]);
});
