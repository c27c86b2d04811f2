// Settings → Model on long sessions: the window Wisp takes for the model and why, the window
// set for it (others' kept), the spending warning and stopping at it; and the session header's
// context use and its notice once the session's cost passed the warning.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ApiError } from "../../api";
import { I18n, translator } from "../../i18n";
import type { Run, Schemas } from "../../types";
import { ContextSettingsPage, windowText } from "./ContextSettings";
import { lastContextOf, spendingText } from "../conversation/RunView";

afterEach(cleanup);

type Values = Schemas["ContextSettings"];
const values = (over: Partial<Values> = {}): Values => ({
  windows: { "other-model": 32768 },
  model: "qwen3-coder",
  window: 131072,
  windowSource: "default",
  refusedAbove: null,
  spendingWarning: null,
  stopAtLimit: false,
  currency: "USD",
  ...over,
});

describe("Settings → Model on long sessions", () => {
  it("says where the window comes from, in both languages", () => {
    const en = translator("en");
    expect(windowText(en, values())).toContain("Wisp takes 131,072 tokens, a safe default");
    expect(windowText(en, values({ window: 24000, windowSource: "provider" }))).toBe("Wisp takes 24,000 tokens: what the endpoint's model list says.");
    expect(windowText(en, values({ window: 1048576, windowSource: "known" }))).toContain("the model's known window");
    expect(windowText(en, values({ window: 12000, windowSource: "known", refusedAbove: 12000 }))).toContain("so this Host keeps to 12,000 until it stops");
    expect(windowText(translator("zh"), values({ window: 8192, windowSource: "setting" }))).toBe("Wisp 按 8,192 token 计算：这里设定的窗口。");
  });

  it("saves the model's window beside the others' and the warning, and says what the Host refused", async () => {
    const updateContextSettings = vi
      .fn()
      .mockResolvedValueOnce(values({ windows: { "other-model": 32768, "qwen3-coder": 8192 }, window: 8192, windowSource: "setting", spendingWarning: 0.5, stopAtLimit: true }))
      .mockRejectedValueOnce(new ApiError(400, "invalid", "windows.qwen3-coder: 4096 to 16777216 tokens"));
    render(
      <I18n.Provider value={translator("en")}>
        <ContextSettingsPage api={{ contextSettings: async () => values(), updateContextSettings }} />
      </I18n.Provider>,
    );
    const window = (await screen.findByLabelText("Context window of qwen3-coder (tokens)")) as HTMLInputElement;
    expect(window.value).toBe("");
    const stop = screen.getByLabelText(/Stop at the limit/) as HTMLInputElement;
    expect(stop.disabled).toBe(true);
    fireEvent.change(window, { target: { value: "8192" } });
    fireEvent.change(screen.getByLabelText("Spending warning per session (USD)"), { target: { value: "0.5" } });
    expect(stop.disabled).toBe(false);
    fireEvent.click(stop);
    fireEvent.click(screen.getByText("Save"));
    await screen.findByText("Saved; every session's next request follows them.");
    expect(updateContextSettings).toHaveBeenCalledWith({ windows: { "other-model": 32768, "qwen3-coder": 8192 }, spendingWarning: 0.5, stopAtLimit: true });
    expect(screen.getByTestId("window-in-effect").textContent).toBe("Wisp takes 8,192 tokens: the window set here.");
    fireEvent.change(window, { target: { value: "100" } });
    fireEvent.submit(window.closest("form")!);
    await screen.findByRole("alert");
    expect(screen.queryByText("Saved; every session's next request follows them.")).toBeNull();
  });

  it("clears the model's window to automatic and the warning to none", async () => {
    const updateContextSettings = vi.fn().mockResolvedValue(values());
    render(
      <I18n.Provider value={translator("en")}>
        <ContextSettingsPage api={{ contextSettings: async () => values({ windows: { "qwen3-coder": 8192 }, spendingWarning: 2, stopAtLimit: true }), updateContextSettings }} />
      </I18n.Provider>,
    );
    const window = (await screen.findByLabelText("Context window of qwen3-coder (tokens)")) as HTMLInputElement;
    expect(window.value).toBe("8192");
    fireEvent.change(window, { target: { value: "" } });
    fireEvent.change(screen.getByLabelText("Spending warning per session (USD)"), { target: { value: "" } });
    fireEvent.click(screen.getByText("Save"));
    await screen.findByText("Saved; every session's next request follows them.");
    expect(updateContextSettings).toHaveBeenCalledWith({ windows: {}, spendingWarning: null, stopAtLimit: true });
  });
});

describe("the session header", () => {
  const usage = (cost: number | null) => ({ promptTokens: 1, completionTokens: 1, reasoningTokens: 0, cacheHitTokens: 0, cacheMissTokens: 1, estimatedCost: cost });
  it("notices a cost at or past the warning, and nothing without one", () => {
    const en = translator("en");
    expect(spendingText(en, usage(0.5), 0.5, "USD")).toBe("Past your spending warning of 0.5 USD");
    expect(spendingText(en, usage(0.49), 0.5, "USD")).toBeNull();
    expect(spendingText(en, usage(null), 0.5, "USD")).toBeNull();
    expect(spendingText(en, usage(9), null, "USD")).toBeNull();
    expect(spendingText(translator("zh"), usage(1), 0.5, "CNY")).toBe("已超过你的费用提醒 0.5 CNY");
  });
  it("takes the context of the session's newest request that recorded one", () => {
    const context = (promptTokens: number) => ({ window: 1000, promptTokens, omittedResults: 0, summarisedRuns: 0, trimmedRuns: 0, wholeRuns: 0 });
    const run = (...contexts: (number | null)[]) =>
      ({ steps: contexts.map((c, index) => ({ index, text: "", partial: false, toolCalls: [], context: c === null ? null : context(c) })) }) as unknown as Run;
    expect(lastContextOf([])).toBeNull();
    expect(lastContextOf([run(1, 2), run(3, null), run()])?.promptTokens).toBe(3);
    expect(lastContextOf([run(null)])).toBeNull();
  });
});
