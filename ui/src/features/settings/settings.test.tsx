// Settings → Model in jsdom against a fake of the Host's settings calls: the key is shown only
// as "set" and leaves the page once kept, values from the environment are badged, "Test
// connection" words each problem kind in the page's language, and prices say their source.
import { afterEach, describe, expect, it } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import { ModelSettingsPage, type SettingsApi } from "./ModelSettings";
import { failureText } from "./problem";
import type { ConnectionTest, ModelSettings, Problem, UpdateSettings } from "./types";

afterEach(cleanup);

const base: ModelSettings = {
  provider: "deepseek",
  baseUrl: "https://api.deepseek.com",
  model: "deepseek-v4-flash",
  thinking: "enabled",
  reasoningEffort: null,
  apiKey: { set: false, storage: null },
  prices: {
    currency: "USD",
    source: "DeepSeek Models & Pricing",
    asOf: "2026-06-28",
    models: { "deepseek-v4-flash": { cacheHit: 0.0028, cacheMiss: 0.14, output: 0.28 } },
  },
  sources: { provider: "default", baseUrl: "env", model: "default", thinking: "default", reasoningEffort: "default", apiKey: "default", prices: "default" },
  keyringProblem: null,
};

class FakeHost implements SettingsApi {
  state: ModelSettings = structuredClone(base);
  keys: [string, string][] = [];
  updates: UpdateSettings[] = [];
  next: ConnectionTest = { ok: true, problem: null, models: ["deepseek-v4-flash", "deepseek-v4-pro"] };
  settings = async () => structuredClone(this.state);
  updateSettings = async (u: UpdateSettings) => {
    this.updates.push(u);
    this.state = { ...this.state, ...u, baseUrl: u.baseUrl ?? "", prices: u.prices ?? base.prices, sources: { ...this.state.sources, model: "stored" } };
    return structuredClone(this.state);
  };
  setApiKey = async (value: string, storage: "keyring" | "process") => {
    this.keys.push([value, storage]);
    this.state.apiKey = { set: true, storage };
    return structuredClone(this.state);
  };
  deleteApiKey = async () => {
    this.state.apiKey = { set: false, storage: null };
    return structuredClone(this.state);
  };
  testConnection = async () => this.next;
}

async function page(host: FakeHost, lang: "en" | "zh" = "en") {
  render(
    <I18n.Provider value={translator(lang)}>
      <ModelSettingsPage api={host} />
    </I18n.Provider>,
  );
  await act(async () => {});
}

const click = async (name: string | RegExp) => {
  await act(async () => {
    fireEvent.click(screen.getByRole("button", { name }));
  });
};

describe("Settings → Model", () => {
  it("keeps an entered key in the chosen store and shows it only as set", async () => {
    const host = new FakeHost();
    await page(host);
    expect(screen.getByTestId("key-state").textContent).toBe("Not set");
    await click("Replace");
    const input = screen.getByLabelText("New API key") as HTMLInputElement;
    expect(input.type).toBe("password");
    fireEvent.change(input, { target: { value: "sk-typed-secret" } });
    fireEvent.change(screen.getByLabelText("Keep it in"), { target: { value: "process" } });
    await click("Keep key");
    expect(host.keys).toEqual([["sk-typed-secret", "process"]]);
    expect(screen.getByTestId("key-state").textContent).toBe("Set (this session only)");
    expect(document.body.innerHTML).not.toContain("sk-typed-secret");
    await click("Remove");
    expect(screen.getByTestId("key-state").textContent).toBe("Not set");
  });

  it("says a key is optional for an OpenAI-compatible endpoint, and words the 401 of one that wants a key", async () => {
    const host = new FakeHost();
    host.state = { ...host.state, provider: "openai_compatible", baseUrl: "http://127.0.0.1:11434/v1" };
    await page(host);
    expect(screen.getByTestId("key-state").textContent).toBe("Not set (optional: the endpoint is asked without one)");
    const wants: Problem = { kind: "key_required", params: { host: "127.0.0.1", port: "11434", status: "401" } };
    const t = translator("zh");
    expect(failureText(translator("en"), wants)).toBe(
      "The model service at 127.0.0.1:11434 wants an API key (401), and none is set. Enter one in Settings → Model.",
    );
    expect(failureText(t, wants)).toContain("127.0.0.1:11434 上的模型服务需要 API 密钥");
  });

  it("under --simulate shows the simulator as pinned and saves nothing", async () => {
    const host = new FakeHost();
    host.state = { ...host.state, provider: "simulation", baseUrl: "", sources: { ...host.state.sources, provider: "flag" } };
    await page(host);
    expect(screen.getByRole("note").textContent).toMatch(/^Wisp was started with --simulate/);
    // Disabled by their fieldset, as the browser sees it.
    expect(screen.getByLabelText("Provider").matches(":disabled")).toBe(true);
    expect(screen.getByLabelText("Model name").matches(":disabled")).toBe(true);
    expect(screen.queryByRole("button", { name: "Save model settings" })).toBeNull();
    expect((screen.getByRole("button", { name: "Replace" }) as HTMLButtonElement).disabled).toBe(true);
    // What it tests is what it shows: the simulator.
    await click("Test connection");
    expect(screen.getByTestId("test-outcome").textContent).toContain("deepseek-v4-flash");
    expect(host.updates).toEqual([]);
  });

  it("tests only saved settings: with unsaved changes Test connection waits for Save", async () => {
    const host = new FakeHost();
    await page(host);
    const test = screen.getByRole("button", { name: "Test connection" }) as HTMLButtonElement;
    expect(test.disabled).toBe(false);
    fireEvent.change(screen.getByLabelText("Model name"), { target: { value: "deepseek-v4-pro" } });
    expect(test.disabled).toBe(true);
    expect(screen.getByText(/^Save the settings first/)).toBeTruthy();
    await click("Save model settings");
    expect(host.updates.at(-1)?.model).toBe("deepseek-v4-pro");
    expect((screen.getByRole("button", { name: "Test connection" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("offers only the process choice when there is no secret store", async () => {
    const host = new FakeHost();
    host.state.keyringProblem = { kind: "secret_store_unavailable", params: {} };
    await page(host);
    await click("Replace");
    const keyring = screen.getByRole("option", { name: "system keyring" }) as HTMLOptionElement;
    expect(keyring.disabled).toBe(true);
    expect((screen.getByLabelText("Keep it in") as HTMLSelectElement).value).toBe("process");
    expect(screen.getByText(/cannot be reached/)).toBeTruthy();
  });

  it("learns that the secret store is unreachable from the first refused save, then offers this session", async () => {
    // The Host opens the OS store only when a key goes there (MCP-18): before that it has no
    // problem to tell.
    const host = new FakeHost();
    host.setApiKey = async () => {
      host.state.keyringProblem = { kind: "secret_store_unavailable", params: {} };
      throw Object.assign(new Error("refused"), { code: "secret_store_unavailable" });
    };
    await page(host);
    await click("Replace");
    fireEvent.change(screen.getByLabelText("New API key"), { target: { value: "sk-typed-secret" } });
    await click("Keep key");
    expect(screen.getByRole("alert").textContent).toContain("cannot be reached");
    const keyring = screen.getByRole("option", { name: "system keyring" }) as HTMLOptionElement;
    expect(keyring.disabled).toBe(true);
    expect((screen.getByLabelText("Keep it in") as HTMLSelectElement).value).toBe("process");
  });

  it("badges values from the environment and saves the edited settings", async () => {
    const host = new FakeHost();
    await page(host);
    expect(screen.getByText("from environment")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Model name"), { target: { value: "deepseek-v4-pro" } });
    fireEvent.change(screen.getByLabelText("Reasoning effort"), { target: { value: "max" } });
    // A model without a price says so instead of guessing.
    expect(screen.getByTestId("price").textContent).toBe("No price for this model: no cost estimate.");
    await click("Save model settings");
    expect(host.updates).toEqual([
      { provider: "deepseek", baseUrl: "https://api.deepseek.com", model: "deepseek-v4-pro", thinking: "enabled", reasoningEffort: "max", prices: null },
    ]);
    expect(screen.getByText(/Source: DeepSeek Models & Pricing, as of 2026-06-28/)).toBeTruthy();
  });

  it("tests the connection and fills the model picker from what the endpoint offers", async () => {
    const host = new FakeHost();
    await page(host);
    await click("Test connection");
    expect(screen.getByTestId("test-outcome").textContent).toContain("deepseek-v4-flash, deepseek-v4-pro");
    const options = Array.from(document.querySelectorAll("#wisp-offered-models option")).map((o) => (o as HTMLOptionElement).value);
    expect(options).toEqual(["deepseek-v4-flash", "deepseek-v4-pro"]);
  });

  it("words every problem kind in Chinese from its parameters", async () => {
    const zh = translator("zh");
    const cases: [Problem, string][] = [
      [{ kind: "connect", params: { host: "127.0.0.1", port: "9", source: "DEEPSEEK_BASE_URL" } }, "无法连接 127.0.0.1:9 上的模型服务（地址来自 DEEPSEEK_BASE_URL）"],
      [{ kind: "tls", params: { host: "h", port: "443", source: "settings" } }, "与 h:443 的安全连接失败（地址来自 设置 → 模型）"],
      [{ kind: "key_refused", params: { host: "h", port: "443", source: "keyring" } }, "密钥来自 系统钥匙串"],
      [{ kind: "no_balance", params: {} }, "余额已用完（402）"],
      [{ kind: "model_not_offered", params: { model: "m-gone", offered: "a, b" } }, "不提供模型“m-gone”。它提供：a, b"],
      [{ kind: "missing_key", params: {} }, "尚未设置 API 密钥"],
      [{ kind: "secret_store_unavailable", params: {} }, "无法访问系统的密钥存储"],
    ];
    for (const [p, want] of cases) expect(failureText(zh, p)).toContain(want);
    expect(failureText(zh, { kind: "no_balance", params: {} })).toContain("余额已用完（402）");

    const host = new FakeHost();
    host.next = { ok: false, problem: cases[3]![0], models: [] };
    await page(host, "zh");
    await click("测试连接");
    expect(screen.getByTestId("test-outcome").textContent).toContain("余额已用完");
  });
});
