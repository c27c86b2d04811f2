// The model picker beside the message box: a pick before the first message waits for the
// session that message makes; a pick of a shown session goes to the Host at once; the list
// offers the price table's models and the session's own pick even when the table lacks it.
import { describe, expect, it } from "vitest";
import { act, cleanup, fireEvent, render, renderHook, screen } from "@testing-library/react";
import { afterEach } from "vitest";
import { I18n, translator } from "../../i18n";
import type { Session } from "../../types";
import type { ModelSettings } from "../settings/types";
import { ModelPicker, useModelPick } from "./ModelPicker";

afterEach(cleanup);

const session = (model?: string): Session =>
  ({ id: "s_1", projectId: null, root: null, title: "t", createdAt: 1, activeRunId: null, lastEventSeq: 0, usage: {}, pinned: false, ...(model ? { model } : {}) }) as unknown as Session;

function fakeApi(log: string[]) {
  return {
    settings: async () => ({ prices: { models: { "deepseek-v4-flash": {}, "deepseek-v4-pro": {} } } }) as unknown as ModelSettings,
    setSessionModel: async (id: string, model: string) => {
      log.push(`${id} ${JSON.stringify(model)}`);
      return session(model || undefined);
    },
  };
}

describe("useModelPick", () => {
  it("keeps a pick made before there is a session and gives it to the session made for the first message", async () => {
    const log: string[] = [];
    let reloads = 0;
    const api = fakeApi(log);
    const { result } = renderHook(() => useModelPick(api, null, async () => reloads++, (e) => log.push(`error ${String(e)}`)));
    await act(async () => {});
    expect(result.current.names).toEqual(["deepseek-v4-flash", "deepseek-v4-pro"]);
    act(() => result.current.pick("deepseek-v4-pro"));
    expect(result.current.value).toBe("deepseek-v4-pro");
    expect(log).toEqual([]);
    await act(() => result.current.applyTo("s_new"));
    expect(log).toEqual(['s_new "deepseek-v4-pro"']);
    expect(result.current.value).toBe("");
    expect(reloads).toBe(1);
    // Nothing waits now: a second session is made without a PATCH.
    await act(() => result.current.applyTo("s_other"));
    expect(log).toHaveLength(1);
  });

  it("sends a shown session's pick at once and offers its own pick even when the table lacks it", async () => {
    const log: string[] = [];
    const api = fakeApi(log);
    const { result } = renderHook(() => useModelPick(api, session("local-llama"), async () => 0, () => {}));
    await act(async () => {});
    expect(result.current.value).toBe("local-llama");
    expect(result.current.names).toEqual(["deepseek-v4-flash", "deepseek-v4-pro", "local-llama"]);
    await act(async () => result.current.pick(""));
    expect(log).toEqual(['s_1 ""']);
  });
});

describe("ModelPicker", () => {
  it("names Settings' model in the default and does not offer it twice", () => {
    const picked: string[] = [];
    const model = { value: "", names: ["deepseek-v4-flash", "deepseek-v4-pro"], pick: (n: string) => picked.push(n), applyTo: async () => {} };
    render(
      <I18n.Provider value={translator("zh")}>
        <ModelPicker model={model} settingsModel="deepseek-v4-flash" />
      </I18n.Provider>,
    );
    const select = screen.getByRole("combobox", { name: "此会话的模型" });
    expect([...select.querySelectorAll("option")].map((o) => o.textContent)).toEqual(["deepseek-v4-flash（与设置相同）", "deepseek-v4-pro"]);
    fireEvent.change(select, { target: { value: "deepseek-v4-pro" } });
    expect(picked).toEqual(["deepseek-v4-pro"]);
  });
});
