// Component tests (Vitest + Testing Library in jsdom). They check behaviour a person relies on:
// what a card shows, that it is answered once, what is collapsed, that model text cannot inject
// markup, and that both languages say everything.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ApprovalAnnouncer } from "./features/approvals/Announcer";
import { errorLine, subjectOf } from "./features/conversation/RunView";
import { ApprovalCard, type ApprovalRequest } from "./features/approvals/ApprovalCard";
import { sampleCanonical } from "./features/approvals/sample";
import type { CurrentFile } from "./features/approvals/currentFile";
import { decisionOf, isTextField } from "./features/approvals/keys";
import { RunView, cachedShareText, contextUseText, omittedText, outlineText, sessionCostText, sessionUsageText } from "./features/conversation/RunView";
import { Markdown } from "./features/conversation/Markdown";
import { dictionaries, I18n, translator } from "./i18n";
import { SseParser, takeToken } from "./api";
import type { Run } from "./types";
import { FAILURE_KINDS } from "./features/settings/failureKinds";
import { failureText } from "./features/settings/problem";

afterEach(cleanup);

/** Focus as Tab gives it: the key press first, then the focus. */
const tabTo = (el: HTMLElement) => {
  fireEvent.keyDown(document.activeElement ?? document.body, { key: "Tab" });
  el.focus();
};

const withT = (ui: React.ReactNode, lang: "en" | "zh" = "en") => <I18n.Provider value={translator(lang)}>{ui}</I18n.Provider>;

/** A card's request with the canonical text the Host would send for its plain arguments. */
const asked = (r: Omit<ApprovalRequest, "canonical">): ApprovalRequest => ({ ...r, canonical: sampleCanonical(r.arguments) });

describe("i18n", () => {
  it("has every key in both languages, none empty", () => {
    const en = Object.keys(dictionaries.en).sort();
    expect(Object.keys(dictionaries.zh).sort()).toEqual(en);
    for (const lang of ["en", "zh"] as const) for (const v of Object.values(dictionaries[lang])) expect(v.trim()).not.toBe("");
  });
  it("words every failure kind the Host can send in both languages, from its parameters only", () => {
    const params = { host: "api.example.test", port: "8443", source: "DEEPSEEK_BASE_URL", status: "418", model: "m-1", steps: "7", asked: "90", limit: "60", waited: "45", offered: "a, b", detail: "DETAIL" };
    expect(FAILURE_KINDS.length).toBeGreaterThan(20);
    for (const lang of ["en", "zh"] as const) {
      const t = translator(lang);
      for (const kind of FAILURE_KINDS) {
        const key = `failure_${kind}` as const;
        expect(dictionaries[lang][key], kind).toBeTruthy();
        if (lang === "zh") expect(dictionaries.zh[key], kind).not.toBe(dictionaries.en[key]);
        const text = failureText(t, { kind, params });
        expect(text, kind).not.toMatch(/\{\w+\}/);
        if (lang === "zh") expect(text, kind).toMatch(/[\u4e00-\u9fff]/);
        // The service's own words (or the setting that cannot work) are never dropped.
        expect(text, kind).toContain("DETAIL");
      }
    }
    const zh = translator("zh");
    const en = translator("en");
    expect(failureText(zh, { kind: "connect", params })).toContain("api.example.test:8443");
    expect(failureText(zh, { kind: "connect", params })).toContain("DEEPSEEK_BASE_URL");
    expect(failureText(zh, { kind: "rate_limited", params: { waited: "45" } })).toContain("45 秒");
    expect(failureText(en, { kind: "rate_limited", params: { asked: "90", limit: "60" } })).toContain("asked to wait 90 s");
    expect(failureText(en, { kind: "model_not_offered", params: { model: "m" } })).not.toContain("It offers");
    expect(failureText(en, { kind: "model_not_offered", params: { model: "m", offered: "a, b" } })).toContain("It offers: a, b");
    expect(failureText(en, { kind: "model_not_offered", params: { model: "m", offered: "a", source: "settings" } })).not.toContain("DEEPSEEK_MODEL");
    expect(failureText(zh, { kind: "model_not_offered", params: { model: "m", offered: "a", source: "DEEPSEEK_BASE_URL" } })).toMatch(/选择一个。或在启动 Wisp 前设置 DEEPSEEK_MODEL。$/);
    expect(failureText(en, { kind: "bad_request", params: { host: "h", port: "1", status: "400", detail: "no such field" } })).toBe(
      "The model service at h:1 rejected the request as invalid (400). The service said: “no such field”",
    );
    // A failure stored by an older Host, without the parameters its wording names, says they
    // were not recorded instead of showing a placeholder.
    expect(failureText(zh, { kind: "connect", params: {} })).toContain("（未记录）");
    expect(failureText(en, { kind: "connect", params: { host: "h" } })).toContain("h:(not recorded)");
    expect(failureText(en, { kind: "connect", params: {} })).not.toMatch(/[{}]/);
  });
  it("says a session's cost is a lower bound when some runs had no estimate", () => {
    const base = { promptTokens: 1, completionTokens: 1, reasoningTokens: 0, cacheHitTokens: 0, cacheMissTokens: 1 };
    const en = translator("en");
    expect(sessionCostText(en, { ...base, estimatedCost: 0.5, runsWithoutEstimate: 0 })).toBe("This session: ≈ 0.500000 USD");
    expect(sessionCostText(en, { ...base, estimatedCost: 0.5, runsWithoutEstimate: 2 })).toBe("This session: at least 0.500000 USD; 2 runs without an estimate");
    expect(sessionCostText(en, { ...base, estimatedCost: 0.5, runsWithoutEstimate: 1 })).toBe("This session: at least 0.500000 USD; 1 run without an estimate");
    expect(sessionCostText(en, { ...base, estimatedCost: null, runsWithoutEstimate: 3 })).toBe("This session: 3 runs without a cost estimate");
    expect(sessionCostText(translator("zh"), { ...base, estimatedCost: 0.5, runsWithoutEstimate: 2 })).toBe("本会话：至少 0.500000 USD；另有 2 次运行没有费用估算");
    expect(sessionCostText(en, { ...base, estimatedCost: null, runsWithoutEstimate: 0 })).toBeNull();
  });
  it("says what share of the input the cache served, never rounding up to all", () => {
    const en = translator("en");
    const u = (hit: number, prompt: number) => ({ promptTokens: prompt, completionTokens: 1, reasoningTokens: 0, cacheHitTokens: hit, cacheMissTokens: prompt - hit, estimatedCost: null });
    expect(cachedShareText(en, u(92, 100))).toBe("cached: 92%");
    expect(cachedShareText(en, u(999, 1000))).toBe("cached: 99%");
    expect(cachedShareText(en, u(1000, 1000))).toBe("cached: 100%");
    expect(cachedShareText(en, u(0, 1000))).toBe("cached: 0%");
    expect(cachedShareText(en, u(0, 0))).toBeNull();
    expect(cachedShareText(en, undefined)).toBeNull();
    expect(cachedShareText(translator("zh"), u(92, 100))).toBe("缓存命中 92%");
    // The session's line: its cost and its share; the share alone where nothing is priced.
    expect(sessionUsageText(en, { ...u(92, 100), estimatedCost: 0.5, runsWithoutEstimate: 0 })).toBe("This session: ≈ 0.500000 USD · cached: 92%");
    expect(sessionUsageText(en, { ...u(50, 100), estimatedCost: null, runsWithoutEstimate: 0 })).toBe("cached: 50%");
    expect(sessionUsageText(en, { ...u(0, 0), estimatedCost: null, runsWithoutEstimate: 0 })).toBeNull();
  });
  it("says how full the context window was and what the requests left out", () => {
    const en = translator("en");
    expect(contextUseText(en, { window: 1_048_576, promptTokens: 125_000, omittedResults: 0, summarisedRuns: 0, trimmedRuns: 0, wholeRuns: 0 })).toBe("context: 12% of 1,048,576 tokens");
    expect(contextUseText(en, { window: 1_000, promptTokens: 1, omittedResults: 0, summarisedRuns: 0, trimmedRuns: 0, wholeRuns: 0 })).toBe("context: 1% of 1,000 tokens");
    expect(contextUseText(en, { window: 1_000, promptTokens: 0, omittedResults: 0, summarisedRuns: 0, trimmedRuns: 0, wholeRuns: 0 })).toBeNull();
    expect(contextUseText(translator("zh"), { window: 8_000, promptTokens: 4_000, omittedResults: 0, summarisedRuns: 0, trimmedRuns: 0, wholeRuns: 0 })).toBe("上下文：占 8,000 token 窗口的 50%");
    const step = (omittedResults: number | null) => ({ index: 0, text: "", partial: false, toolCalls: [], context: omittedResults === null ? null : { window: 8_000, promptTokens: 10, omittedResults, summarisedRuns: 0, trimmedRuns: 0, wholeRuns: 0 } });
    const run = (...steps: ReturnType<typeof step>[]) => ({ steps }) as unknown as Parameters<typeof omittedText>[1];
    expect(omittedText(en, run(step(null), step(0)))).toBeNull();
    expect(omittedText(en, run(step(3), step(5), step(null)))).toBe(
      "To stay within the model's context window, this run's requests left out the results of the 5 oldest tool calls of earlier runs, each replaced by a line naming it; the session keeps them.",
    );
    expect(omittedText(en, run(step(1)))).toContain("the 1 oldest tool call of earlier runs");
  });
  it("fills in variables", () => {
    expect(translator("zh")("steps", { n: 2, c: 3 })).toBe("2 轮，3 次工具调用");
  });
  it("says 1 step, 1 tool call — plurals only where English has them", () => {
    expect(translator("en")("steps", { n: 1, c: 1 })).toBe("1 step, 1 tool call");
    expect(translator("en")("steps", { n: 2, c: 1 })).toBe("2 steps, 1 tool call");
    expect(translator("en")("steps", { n: 1, c: 0 })).toBe("1 step, 0 tool calls");
    expect(translator("zh")("steps", { n: 1, c: 1 })).toBe("1 轮，1 次工具调用");
  });
});

describe("SseParser", () => {
  it("frames events cut anywhere, with names, ids and comments", () => {
    const got: [string, string][] = [];
    const p = new SseParser((n, d) => got.push([n, d]));
    const text = ": keep-alive\n\nid: 1\ndata: {\"a\":1}\n\nevent: delta\r\ndata: x\r\ndata: y\r\n\r\n";
    for (const ch of text) p.feed(ch);
    expect(got).toEqual([["message", '{"a":1}'], ["delta", "x\ny"]]);
  });
});

describe("takeToken", () => {
  it("takes the token from the fragment and removes it from the address", () => {
    window.history.replaceState(null, "", "/#token=abc123");
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) } as unknown as Storage;
    expect(takeToken(window.location, storage)).toBe("abc123");
    expect(window.location.hash).toBe("");
    expect(takeToken(window.location, storage)).toBe("abc123");
  });
});

describe("ApprovalCard", () => {
  const bound = "b".repeat(64);
  const write = { approvalId: "ap1", tool: "files_write", arguments: { path: "a.txt", content: "one\nthree\n", creates: false, replaces: bound }, digest: "d".repeat(64), state: "pending" as const };
  const loaded = (content: string, sha256: string | null = bound): CurrentFile => ({ state: "loaded", content, sha256 });

  it("shows the path, the complete content and a diff against the current file", () => {
    render(withT(<ApprovalCard request={asked(write)} currentFile={loaded("one\ntwo\n")} onDecide={async () => "approved"} />));
    expect(screen.getByText("a.txt")).toBeTruthy();
    const diff = screen.getByLabelText("diff");
    expect(diff.textContent).toContain("- two");
    expect(diff.textContent).toContain("+ three");
    // The whole digest, under the card's details (closed until asked for).
    const toggle = screen.getByRole("button", { name: "Details" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(document.querySelector(".card-meta dd")).toBeNull();
    fireEvent.click(toggle);
    expect(document.querySelector(".card-meta dd")!.textContent).toBe(write.digest);
  });

  it("titles an answered card by its outcome and says when a write changes nothing", () => {
    const { unmount } = render(withT(<ApprovalCard request={asked({ ...write, state: "approved" })} onDecide={async () => "approved"} />));
    expect(screen.getByRole("group", { name: "Approved: write a.txt" })).toBeTruthy();
    unmount();
    render(withT(<ApprovalCard request={asked(write)} currentFile={loaded(write.arguments.content)} onDecide={async () => "approved"} />, "zh"));
    expect(screen.getByText("没有变化：文件已经是这个内容")).toBeTruthy();
    expect(screen.queryByLabelText("diff")).toBeNull();
  });

  // APPR-07: where a file change is authorized, the person is told not to approve it in a folder
  // a hostile program changes at the same time; other cards do not say so, nor a decided one.
  it("tells the person on every pending file-change card not to approve in a folder another program changes meanwhile", () => {
    const args: Record<string, Record<string, unknown>> = {
      files_write: write.arguments,
      files_replace: { path: "a.txt", oldText: "one", newText: "1", sha256: bound, line: 1 },
      files_mkdir: { path: "docs/new" },
      files_move: { source: "drafts", target: "docs/drafts", files: 1, folders: 0, fingerprint: "f".repeat(64) },
      files_trash: { path: "old", files: 1, folders: 0 },
    };
    for (const [lang, words] of [["en", /^Approve only if no untrusted program can change this folder at the same time/], ["zh", /^仅在没有不可信程序会同时修改此文件夹时批准/]] as const) {
      for (const [tool, a] of Object.entries(args)) {
        const { unmount } = render(withT(<ApprovalCard request={asked({ ...write, tool, arguments: a })} onDecide={async () => "approved"} />, lang));
        expect(screen.getByText(words), `${tool} ${lang}`).toBeTruthy();
        unmount();
      }
    }
    const others: [string, Record<string, unknown>][] = [
      ["files_read", { path: ".env", size: 10, sensitive: "env_file", reason: "r" }],
      ["open_webpage", { url: "https://example.com/" }],
      ["weather__forecast", { city: "Hangzhou" }],
    ];
    for (const [tool, a] of others) {
      const { unmount } = render(withT(<ApprovalCard request={asked({ ...write, tool, arguments: a })} onDecide={async () => "approved"} />));
      expect(screen.queryByText(/untrusted program/), tool).toBeNull();
      unmount();
    }
    render(withT(<ApprovalCard request={asked({ ...write, state: "approved" })} onDecide={async () => "approved"} />));
    expect(screen.queryByText(/untrusted program/)).toBeNull();
  });

  it("says a write creates a new file when there is none", () => {
    const creating = { ...write, arguments: { path: "a.txt", content: "one\nthree\n", creates: true } };
    render(withT(<ApprovalCard request={asked(creating)} onDecide={async () => "approved"} />));
    expect(screen.getByText("New file")).toBeTruthy();
  });

  it("is answered once, then shows the outcome without buttons", async () => {
    const onDecide = vi.fn(async () => "approved" as const);
    render(withT(<ApprovalCard request={asked(write)} onDecide={onDecide} />));
    await act(async () => fireEvent.click(screen.getByRole("button", { name: /Approve/ })));
    expect(onDecide).toHaveBeenCalledTimes(1);
    expect(onDecide).toHaveBeenCalledWith("approve", "d".repeat(64));
    expect(screen.queryByRole("button", { name: /Approve/ })).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("Approved");
  });

  it("answers to R on a card the person tabbed to and reports a stale request", async () => {
    const onDecide = vi.fn(async () => "stale" as const);
    render(withT(<ApprovalCard request={asked(write)} onDecide={onDecide} />));
    const card = screen.getByRole("group");
    tabTo(card);
    await act(async () => fireEvent.keyDown(card, { key: "r" }));
    expect(onDecide).toHaveBeenCalledWith("reject", "d".repeat(64));
    expect(screen.getByRole("status").textContent).toContain("No longer pending");
  });

  // Typing that happens to contain an "a" or "r" must never answer a card.
  it("never takes the focus when it appears: typing goes on in the box and decides nothing", async () => {
    const onDecide = vi.fn(async () => "approved" as const);
    const box = document.createElement("textarea");
    document.body.appendChild(box);
    box.focus();
    const run: Run = {
      ...baseRun, status: "awaiting_approval", finalText: null,
      steps: [{ index: 0, partial: false, text: "", toolCalls: [{ callId: "c9", tool: "files_write", arguments: write.arguments, argumentsText: sampleCanonical(write.arguments), status: "awaiting_approval", result: null,
        approval: { id: "ap9", state: "pending", digest: write.digest, arguments: write.arguments, canonical: sampleCanonical(write.arguments) } }] }],
    };
    render(withT(<RunView run={run} onDecide={onDecide} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />));
    expect(screen.getByRole("group", { name: /files_write/ })).toBeTruthy();
    expect(document.activeElement).toBe(box);
    for (const key of "aaaa rrrr") await act(async () => fireEvent.keyDown(document.activeElement!, { key }));
    expect(onDecide).not.toHaveBeenCalled();
    box.remove();
  });

  it("shows what the model wrote with a call above its pending card, once per step", () => {
    const call = (id: string) => ({ callId: id, tool: "files_write", arguments: write.arguments, argumentsText: sampleCanonical(write.arguments), status: "awaiting_approval" as const, result: null,
      approval: { id: `ap_${id}`, state: "pending" as const, digest: write.digest, arguments: write.arguments, canonical: sampleCanonical(write.arguments) } });
    const run: Run = { ...baseRun, status: "awaiting_approval", finalText: null, steps: [{ index: 0, partial: false, text: "I will write **a.txt** now.", toolCalls: [call("c1"), call("c2")] }] };
    render(withT(<RunView run={run} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />));
    const words = [...document.querySelectorAll(".answer > .card-words")];
    expect(words.map((w) => w.textContent)).toEqual(["The model wrote, with this request:I will write a.txt now."]);
    // Right above the first card of its step.
    expect(words[0]!.nextElementSibling?.getAttribute("role")).toBe("group");
  });

  it("announces a new card once and empties the announcement once the card is answered", () => {
    const pending = (state: "pending" | "approved"): Run => ({
      ...baseRun, status: state === "pending" ? "awaiting_approval" : "completed", finalText: null,
      steps: [{ index: 0, partial: false, text: "", toolCalls: [{ callId: "c9", tool: "files_write", arguments: write.arguments, argumentsText: sampleCanonical(write.arguments), status: state === "pending" ? "awaiting_approval" : "succeeded", result: null,
        approval: { id: "ap9", state, digest: write.digest, arguments: write.arguments, canonical: sampleCanonical(write.arguments) } }] }],
    });
    const { rerender } = render(withT(<ApprovalAnnouncer runs={[pending("pending")]} />));
    const region = screen.getByTestId("announcer");
    expect(region.getAttribute("aria-live")).toBe("polite");
    expect(region.textContent).toMatch(/^Approval needed: files_write /);
    rerender(withT(<ApprovalAnnouncer runs={[pending("pending")]} />));
    expect(region.textContent).toMatch(/^Approval needed/);
    rerender(withT(<ApprovalAnnouncer runs={[pending("approved")]} />));
    expect(region.textContent).toBe("");
    // The same card showing as pending again (an old list read late) is not announced twice.
    rerender(withT(<ApprovalAnnouncer runs={[pending("pending")]} />));
    expect(region.textContent).toBe("");
  });

  it("gives the focus back to the message box once the person answered, by key or by button", async () => {
    const box = document.createElement("textarea");
    box.id = "message-box";
    document.body.appendChild(box);
    const onDecide = vi.fn(async () => "approved" as const);
    const { unmount } = render(withT(<ApprovalCard request={asked(write)} onDecide={onDecide} />));
    const card = screen.getByRole("group");
    tabTo(card);
    await act(async () => fireEvent.keyDown(card, { key: "a" }));
    expect(onDecide).toHaveBeenCalledWith("approve", "d".repeat(64));
    expect(document.activeElement).toBe(box);
    unmount();
    // The Approve button the person pressed is gone once answered: the focus does not fall to
    // the page's body.
    render(withT(<ApprovalCard request={asked(write)} onDecide={async () => "rejected"} />));
    const reject = screen.getByRole("button", { name: /Reject/ });
    reject.focus();
    await act(async () => fireEvent.click(reject));
    expect(screen.queryByRole("button", { name: /Reject/ })).toBeNull();
    expect(document.activeElement).toBe(box);
    box.remove();
  });

  it("leaves the focus where the person moved it while the answer was on its way", async () => {
    const box = document.createElement("textarea");
    box.id = "message-box";
    const elsewhere = document.createElement("input");
    document.body.append(box, elsewhere);
    let answer: (o: "approved") => void = () => {};
    render(withT(<ApprovalCard request={asked(write)} onDecide={() => new Promise((r) => (answer = r))} />));
    const card = screen.getByRole("group");
    tabTo(card);
    await act(async () => fireEvent.keyDown(card, { key: "a" }));
    elsewhere.focus();
    await act(async () => answer("approved"));
    expect(document.activeElement).toBe(elsewhere);
    box.remove();
    elsewhere.remove();
  });

  it("ignores A and R on a card focused by anything but Tab or a click", async () => {
    const onDecide = vi.fn(async () => "approved" as const);
    render(withT(<ApprovalCard request={asked(write)} onDecide={onDecide} />));
    const card = screen.getByRole("group");
    fireEvent.keyDown(document.body, { key: "x" });
    card.focus();
    await act(async () => fireEvent.keyDown(card, { key: "a" }));
    expect(onDecide).not.toHaveBeenCalled();
    // Moving away and back with Tab makes it the person's choice.
    card.blur();
    tabTo(card);
    await act(async () => fireEvent.keyDown(card, { key: "a" }));
    expect(onDecide).toHaveBeenCalledWith("approve", "d".repeat(64));
  });

  it("ignores modifier keys, key repeat, IME composition and keys on its buttons", async () => {
    const onDecide = vi.fn(async () => "approved" as const);
    render(withT(<ApprovalCard request={asked(write)} onDecide={onDecide} />));
    const card = screen.getByRole("group");
    tabTo(card);
    for (const mod of [{ ctrlKey: true }, { altKey: true }, { metaKey: true }, { shiftKey: true }, { repeat: true }, { isComposing: true }])
      for (const key of ["a", "A", "r", "R"]) await act(async () => fireEvent.keyDown(card, { key, ...mod }));
    await act(async () => fireEvent.keyDown(screen.getByRole("button", { name: /Reject/ }), { key: "a" }));
    expect(onDecide).not.toHaveBeenCalled();
    await act(async () => fireEvent.keyDown(card, { key: "A" }));
    expect(onDecide).toHaveBeenCalledTimes(1);
    expect(onDecide).toHaveBeenCalledWith("approve", "d".repeat(64));
  });

  it("answers R on a card the person clicked", async () => {
    const onDecide = vi.fn(async () => "rejected" as const);
    render(withT(<ApprovalCard request={asked(write)} onDecide={onDecide} />));
    const card = screen.getByRole("group");
    fireEvent.pointerDown(card);
    card.focus();
    fireEvent.pointerUp(card);
    await act(async () => fireEvent.keyDown(card, { key: "r" }));
    expect(onDecide).toHaveBeenCalledWith("reject", "d".repeat(64));
  });

  it("titles an approved card by how its call ended", () => {
    const decided = { ...write, state: "approved" as const };
    const { unmount } = render(withT(<ApprovalCard request={asked(decided)} callStatus="succeeded" onDecide={async () => "approved"} />));
    expect(screen.getByText("Approved: write a.txt")).toBeTruthy();
    unmount();
    const again = render(withT(<ApprovalCard request={asked(decided)} callStatus="failed" onDecide={async () => "approved"} />));
    expect(screen.getByText("Approved, but it did not succeed: write a.txt")).toBeTruthy();
    expect(screen.queryByText("Approved: write a.txt")).toBeNull();
    again.unmount();
    render(withT(<ApprovalCard request={asked(decided)} callStatus="failed" onDecide={async () => "approved"} />, "zh"));
    expect(screen.getByText("已批准，但未成功：写入 a.txt")).toBeTruthy();
  });

  it("shows old and new text of a replace, and the origin of an MCP tool", () => {
    const { unmount } = render(
      withT(<ApprovalCard request={asked({ ...write, tool: "files_replace", arguments: { path: "x.rs", oldText: "let a = 1;", newText: "let a = 2;", sha256: "abc" } })} onDecide={async () => "approved"} />),
    );
    expect(screen.getAllByText("let a = 1;").length).toBeGreaterThan(0);
    expect(screen.getAllByText("let a = 2;").length).toBeGreaterThan(0);
    unmount();
    render(withT(<ApprovalCard request={asked({ ...write, tool: "weather__forecast", arguments: { city: "Hangzhou" } })} onDecide={async () => "approved"} />, "zh"));
    expect(screen.getByText("MCP 服务器 weather")).toBeTruthy();
    expect(screen.getByText('{"city":"Hangzhou"}')).toBeTruthy();
  });
});

const baseRun: Run = {
  id: "r1", sessionId: "s1", text: "[demo:multi] look", status: "completed", mode: "simulation", model: null,
  steps: [
    { index: 0, partial: false, text: "Looking.", toolCalls: [
      { callId: "c1", tool: "files_list", arguments: { path: "." }, argumentsText: '{"path":"."}', status: "succeeded", result: "[]", approval: null },
      { callId: "c2", tool: "files_read", arguments: { path: "README.md" }, argumentsText: '{"path":"README.md"}', status: "succeeded", result: "{}", approval: null },
    ] },
    { index: 1, partial: false, text: "All done.", toolCalls: [] },
  ],
  finalText: "All done.", error: null,
  usage: { promptTokens: 10, completionTokens: 5, reasoningTokens: 2, cacheHitTokens: 0, cacheMissTokens: 10, estimatedCost: null },
  createdAt: 1, endedAt: 2, undoable: 0, undos: [], summaries: [],
};

const runView = (run: Run) =>
  render(withT(<RunView run={run} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />));

describe("a run's usage line", () => {
  const context = (promptTokens: number, omittedResults: number, summarisedRuns = 0, trimmedRuns = 0, wholeRuns = 0) => ({ window: 16_000, promptTokens, omittedResults, summarisedRuns, trimmedRuns, wholeRuns });
  it("says how full the window was after the cost, and what the requests left out below it", () => {
    runView({
      ...baseRun,
      usage: { ...baseRun.usage, estimatedCost: 0.001 },
      steps: [{ ...baseRun.steps[0]!, context: context(12_000, 3) }, { ...baseRun.steps[1]!, context: context(9_000, 3) }],
    });
    const line = document.querySelector(".usage")!;
    // The last request's use, then the cost, then the note on its own line.
    expect(line.querySelector(".context-use")!.textContent).toBe(" · context: 57% of 16,000 tokens");
    expect(line.textContent!.indexOf("context: 57%")).toBeLessThan(line.textContent!.indexOf("≈ 0.001000 USD"));
    expect(line.lastElementChild!.getAttribute("data-testid")).toBe("context-omitted");
    expect(screen.getByTestId("context-omitted").textContent).toContain("the results of the 3 oldest tool calls of earlier runs");
  });
  it("outlines what the last request carried of earlier runs, and shows the model's summary labelled with its cost", () => {
    const summary = {
      step: 0, runs: 12, text: "The person asked for **a report**.", createdAt: 1,
      usage: { promptTokens: 9_000, completionTokens: 300, reasoningTokens: 0, cacheHitTokens: 8_960, cacheMissTokens: 40, estimatedCost: 0.0001 },
    };
    runView({
      ...baseRun,
      summaries: [summary],
      steps: [{ ...baseRun.steps[0]!, context: context(5_000, 2, 12, 1, 3) }, { ...baseRun.steps[1]!, context: context(6_000, 2, 12, 2, 2) }],
    });
    expect(screen.getByTestId("context-outline").textContent).toBe(
      "Its last request carried the session's earlier runs so: 12 in the model's summary · 2 with tool results left out · 2 whole.",
    );
    const block = screen.getByTestId("context-summary");
    expect(block.querySelector("summary")!.textContent).toBe(
      "The model's summary of 12 earlier runs · Tokens: 9000 in (8960 cached, 40 not), 300 out (0 reasoning) · ≈ 0.000100 USD",
    );
    expect(block.textContent).toContain("before round 1 of this run");
    expect(block.querySelector("strong")!.textContent).toBe("a report");
    expect(outlineText(translator("en"), context(1, 0))).toBeNull();
    expect(outlineText(translator("en"), null)).toBeNull();
    expect(outlineText(translator("zh"), context(1, 0, 1, 0, 4))).toBe("其最后一次请求这样携带会话中较早的运行：1 次在模型的总结中 · 0 次省略了工具结果 · 4 次完整。");
  });
  it("says nothing of the window for runs stored before it was recorded", () => {
    runView(baseRun);
    expect(document.querySelector(".usage .context-use")).toBeNull();
    expect(screen.queryByTestId("context-omitted")).toBeNull();
    expect(screen.queryByTestId("context-outline")).toBeNull();
    expect(screen.queryByTestId("context-summary")).toBeNull();
  });
});

describe("a tool call's collapsed row", () => {
  it("says what each call was about and why a failed one failed, so eight refusals read as eight lines", () => {
    const paths = ["../etc/passwd", "/etc/shadow", "a/../../b", ".git/config"];
    const failed = paths.map((path, i) => ({
      callId: `e${i}`, tool: "files_read", arguments: { path }, argumentsText: JSON.stringify({ path }), status: "failed" as const,
      result: JSON.stringify({ error: `${path}: refused, the path leads outside the authorized project folder\nmore` }), approval: null,
    }));
    const moved = { callId: "m1", tool: "files_move", arguments: { source: "a.txt", target: "b/a.txt" }, argumentsText: "{}", status: "succeeded" as const, result: "{}", approval: null };
    runView({ ...baseRun, steps: [{ index: 0, partial: false, text: "", toolCalls: [...failed, moved] }] });
    // A process with a failed call is open from the start.
    expect(screen.getByRole("button", { name: /Tool process/ }).getAttribute("aria-expanded")).toBe("true");
    expect([...document.querySelectorAll(".call-subject")].map((e) => e.textContent)).toEqual([...paths, "a.txt → b/a.txt"]);
    const errors = [...document.querySelectorAll(".call-error-line")].map((e) => e.textContent);
    expect(errors).toEqual(paths.map((p) => `${p}: refused, the path leads outside the authorized project folder`));
    expect(new Set(errors).size).toBe(paths.length);
  });

  it("reads the subject from the arguments a tool names, and the error from a result that is not JSON", () => {
    expect(subjectOf({ url: "https://example.com/" })).toBe("https://example.com/");
    expect(subjectOf({ path: "src", query: "TODO" })).toBe("src · “TODO”");
    expect(subjectOf({ package: "@scope/server", version: "1.2.3" })).toBe("@scope/server@1.2.3");
    expect(subjectOf({ tabId: "tab_1", action: "close" })).toBe("tab_1");
    expect(subjectOf({ count: 3 })).toBeNull();
    expect(subjectOf(null)).toBeNull();
    expect(errorLine("plain words\nsecond")).toBe("plain words");
    expect(errorLine('{"error":"\\nafter a blank line"}')).toBe("after a blank line");
    expect(errorLine(null)).toBeNull();
  });

  it("opens to its arguments and result laid out, each copyable and scrollable from the keyboard", async () => {
    const writes: string[] = [];
    Object.defineProperty(navigator, "clipboard", { value: { writeText: async (t: string) => void writes.push(t) }, configurable: true });
    const call = { callId: "c1", tool: "files_read", arguments: { path: "a" }, argumentsText: '{"path":"a"}', status: "failed" as const, result: '{"error":"no"}', approval: null };
    runView({ ...baseRun, steps: [{ index: 0, partial: false, text: "", toolCalls: [call] }] });
    fireEvent.click(screen.getByRole("button", { name: /files_read/ }));
    const args = screen.getByLabelText("Arguments", { selector: "pre" });
    const result = screen.getByLabelText("Result", { selector: "pre" });
    expect(args.textContent).toContain('"path": "a"');
    expect([args.tabIndex, result.tabIndex]).toEqual([0, 0]);
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Copy result" })));
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Copy arguments" })));
    // What was sent, byte for byte, not the layout.
    expect(writes).toEqual(['{"error":"no"}', '{"path":"a"}']);
  });
});

describe("RunView", () => {
  it("collapses a successful process and keeps the final answer as the main content", () => {
    runView(baseRun);
    const toggle = screen.getByRole("button", { name: /Tool process/ });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(screen.getByText("All done.")).toBeTruthy();
    expect(screen.queryByText("files_list")).toBeNull();
    fireEvent.click(toggle);
    expect(screen.getByText("files_list")).toBeTruthy();
    expect(screen.getByText("c2")).toBeTruthy();
  });

  // UI-04: a stored run is shown by the rounds the Host recorded, under their own numbers; one
  // stored with no rounds (as `GET /api/runs/{id}` returns such a row: `steps: []`, no answer) is
  // labelled a historical tool process; no thinking is shown for either, though the model spent
  // reasoning tokens on them.
  it("shows a stored run by its recorded rounds and one without round records as a historical tool process, inventing no thinking", () => {
    const usage = { ...baseRun.usage, reasoningTokens: 120 };
    const old: Run = { ...baseRun, id: "r-old", text: "list the files", steps: [], finalText: null, usage };
    for (const [lang, label, thinking] of [["en", "Historical tool process (no round records)", /Thinking/], ["zh", "历史工具过程（无轮次记录）", /思考/]] as const) {
      const { container, unmount } = render(withT(<RunView run={old} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />, lang));
      expect(screen.getByText(label)).toBeTruthy();
      expect(screen.queryByRole("button", { name: /Tool process|工具过程/ })).toBeNull();
      expect(container.querySelector(".steps, .step, .live, .thinking")).toBeNull();
      expect(screen.queryByText(thinking)).toBeNull();
      unmount();
    }
    // Rounds 0 and 2 recorded (round 1 made no call): the numbers are the records', not a count.
    const call = (id: string) => ({ callId: id, tool: "files_list", arguments: { path: "." }, argumentsText: '{"path":"."}', status: "succeeded" as const, result: "[]", approval: null });
    const recorded: Run = { ...baseRun, usage, steps: [{ index: 0, partial: false, text: "", toolCalls: [call("c1")] }, { index: 1, partial: false, text: "Hm.", toolCalls: [] }, { index: 2, partial: false, text: "Again.", toolCalls: [call("c2")] }] };
    const { container } = runView(recorded);
    fireEvent.click(screen.getByRole("button", { name: /Tool process/ }));
    expect([...container.querySelectorAll(".step-label")].map((e) => e.textContent)).toEqual(["Step 1", "Step 3"]);
    // The first round said nothing: nothing is put in its place.
    expect(container.querySelectorAll(".step")[0]!.querySelector(".markdown, p")).toBeNull();
    expect(screen.queryByText(/Historical tool process/)).toBeNull();
    expect(screen.queryByText(/Thinking/)).toBeNull();
  });

  it("lists search results whose paths open in the preview and says what was skipped", () => {
    const result = JSON.stringify({ results: [{ path: "src/a.rs", line: 2, snippet: "// TODO: ship" }, { path: "docs", kind: "dir" }],
      truncated: true, truncatedBy: ["results"], skipped: { count: 3, reasons: { hidden: 2, binary: 1 } } });
    const run: Run = { ...baseRun, steps: [{ index: 0, partial: false, text: "", toolCalls: [{ callId: "s1", tool: "files_search", arguments: { path: ".", query: "TODO", mode: "content" }, argumentsText: '{"mode":"content","path":".","query":"TODO"}', status: "succeeded", result, approval: null }] }] };
    const onPreview = vi.fn();
    render(withT(<RunView run={run} onDecide={async () => "approved"} onPreview={onPreview} currentFile={() => undefined} onLook={() => {}} />));
    fireEvent.click(screen.getByRole("button", { name: /Tool process/ }));
    fireEvent.click(screen.getByRole("button", { name: "src/a.rs:2" }));
    // At the line it was found on.
    expect(onPreview).toHaveBeenCalledWith("src/a.rs", 2);
    expect(screen.getByText("// TODO: ship", { exact: false })).toBeTruthy();
    expect(screen.getByText(/stopped at a limit: results/)).toBeTruthy();
    expect(screen.getByText(/3 skipped, not searched: hidden 2, binary 1|3 skipped, not searched: binary 1, hidden 2/)).toBeTruthy();
  });

  it("shows a move as source → target with the counts its fingerprint binds", async () => {
    const args = { source: "drafts", target: "docs/drafts", files: 3, folders: 2, fingerprint: "ab".repeat(32) };
    const onDecide = vi.fn(async () => "approved" as const);
    const { unmount } = render(withT(<ApprovalCard request={asked({ approvalId: "ap3", tool: "files_move", arguments: args, digest: "d".repeat(64), state: "pending" })} onDecide={onDecide} />));
    const card = screen.getByRole("group", { name: "Approve files_move?" });
    expect(card.querySelector(".move-paths")?.textContent).toBe("drafts → docs/drafts");
    expect(screen.getByLabelText("Source").textContent).toBe("drafts");
    expect(screen.getByLabelText("Target").textContent).toBe("docs/drafts");
    expect(screen.getByText(/^Moves 3 files and 2 folders, exactly as they are now/)).toBeTruthy();
    expect(screen.getByTitle("ab".repeat(32)).textContent).toContain("abababababababab…");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: /Approve/ })));
    expect(onDecide).toHaveBeenCalledWith("approve", "d".repeat(64));
    expect(screen.getByRole("group", { name: "Approved: move drafts to docs/drafts" })).toBeTruthy();
    unmount();
    // One of each: singular words; in Chinese, the counts too.
    const one = { ...args, source: "a.txt", target: "b.txt", files: 1, folders: 0 };
    const { unmount: u2 } = render(withT(<ApprovalCard request={asked({ approvalId: "ap4", tool: "files_move", arguments: one, digest: "d".repeat(64), state: "pending" })} onDecide={onDecide} />));
    expect(screen.getByText(/^Moves 1 file and 0 folders,/)).toBeTruthy();
    u2();
    render(withT(<ApprovalCard request={asked({ approvalId: "ap5", tool: "files_move", arguments: args, digest: "d".repeat(64), state: "pending" })} onDecide={onDecide} />, "zh"));
    expect(screen.getByText(/^移动 3 个文件和 2 个文件夹/)).toBeTruthy();
  });

  it("shows a replace as a diff of the file as it is at approval", () => {
    const args = { path: "a.txt", oldText: "two", newText: "2", sha256: "f".repeat(64), line: 2 };
    render(withT(<ApprovalCard request={asked({ approvalId: "ap2", tool: "files_replace", arguments: args, digest: "d".repeat(64), state: "pending" })}
      currentFile={{ state: "loaded", content: "one\ntwo\nthree\n", sha256: "f".repeat(64) }} onDecide={async () => "approved"} />));
    expect(screen.getByText("Changes against the current file")).toBeTruthy();
    expect(screen.getAllByText("three", { exact: false }).length).toBeGreaterThan(0);
  });

  it("never hides a pending approval inside the process", () => {
    const run: Run = {
      ...baseRun, status: "awaiting_approval", finalText: null,
      steps: [{ index: 0, partial: false, text: "", toolCalls: [{ callId: "c9", tool: "files_write", arguments: { path: "a", content: "x" }, argumentsText: '{"content":"x","path":"a"}', status: "awaiting_approval", result: null,
        approval: { id: "ap9", state: "pending", digest: "e".repeat(64), arguments: { path: "a", content: "x" }, canonical: '{"content":"x","path":"a"}' } }] }],
    };
    runView(run);
    expect(screen.getByRole("button", { name: /Approve/ })).toBeTruthy();
    expect(screen.getByRole("group", { name: /files_write/ }).closest(".process")).toBeNull();
  });

  it("keeps a decided card in the process with its outcome and no buttons", () => {
    const run: Run = {
      ...baseRun, status: "cancelled", finalText: null,
      steps: [{ index: 0, partial: false, text: "", toolCalls: [{ callId: "c9", tool: "files_write", arguments: { path: "a", content: "x" }, argumentsText: '{"content":"x","path":"a"}', status: "cancelled", result: null,
        approval: { id: "ap9", state: "void", digest: "e".repeat(64), arguments: { path: "a", content: "x" }, canonical: '{"content":"x","path":"a"}' } }] }],
    };
    runView(run);
    expect(screen.getByRole("status").textContent).toContain("Not answered");
    expect(screen.getByRole("group", { name: "Not answered: write a" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Approve/ })).toBeNull();
  });

  it("says what made a card void when its call's result names it, in both languages", () => {
    const voided = (result: string): Run => ({
      ...baseRun, status: "completed", finalText: "done",
      steps: [{ index: 0, partial: false, text: "", toolCalls: [{ callId: "c9", tool: "files_write", arguments: { path: "a", content: "x" }, argumentsText: '{"content":"x","path":"a"}', status: "failed", result,
        approval: { id: "ap9", state: "void", digest: "e".repeat(64), arguments: { path: "a", content: "x" }, canonical: '{"content":"x","path":"a"}' } }] }],
    });
    const said = () => screen.getAllByRole("status").map((e) => e.textContent).join(" ");
    const { unmount } = runView(voided(JSON.stringify({ error: "a: the file changed since its card appeared", void: "changed" })));
    expect(said()).toContain("changed on disk before a decision");
    unmount();
    const zh = render(withT(<RunView run={voided(JSON.stringify({ error: "x", void: "revoked" }))} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />, "zh"));
    expect(said()).toContain("该文件夹的授权已被撤回");
    zh.unmount();
    // A result that names no known reason keeps the general wording.
    runView(voided(JSON.stringify({ error: "x", void: "something else" })));
    expect(said()).toContain("the run stopped, Wisp restarted");
  });

  it("says when the model request is being retried", () => {
    render(withT(<RunView run={{ ...baseRun, status: "running", finalText: null, steps: [] }}
      live={{ step: 0, text: "", thinking: false, retry: { attempt: 2, error: { kind: "server_overloaded", params: { host: "h", port: "1", status: "503" } } } }}
      onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />));
    expect(screen.getByRole("status").textContent).toContain("attempt 2");
    expect(screen.getByRole("status").textContent).toContain("overloaded");
  });

  it("says while earlier runs are summarised, and why a summary failed", () => {
    const running = { ...baseRun, status: "running" as const, finalText: null, steps: [] };
    const { unmount } = render(withT(<RunView run={running} live={{ step: 0, text: "", thinking: false, summarising: 12 }}
      onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />));
    expect(document.querySelector(".summarising")!.textContent).toBe(" Summarising 12 earlier runs to make room in the model's context window…");
    unmount();
    render(withT(<RunView run={running} live={{ step: 0, text: "", thinking: false, summaryFailed: { kind: "bad_request", params: { host: "h", port: "1", status: "400" } } }}
      onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />, "zh"));
    expect(screen.getByRole("status").textContent).toBe("未能总结较早的运行： h:1 上的模型服务认为请求无效而拒绝了它（400）。");
  });

  it("keeps a cut-off answer and offers Retry; Continue only when out of steps or interrupted", () => {
    const send = vi.fn();
    const edit = vi.fn();
    const run: Run = { ...baseRun, status: "cancelled", finalText: null, steps: [{ index: 0, text: "Half an ans", partial: true, toolCalls: [] }] };
    const { unmount } = render(withT(<RunView run={run} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} actions={{ send, edit }} />));
    expect(screen.getByText(/Cut off/)).toBeTruthy();
    expect(screen.getByText("Half an ans")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Continue" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(send).toHaveBeenCalledWith(run.text);
    fireEvent.click(screen.getByRole("button", { name: "Edit & resend" }));
    expect(edit).toHaveBeenCalledWith(run.text);
    unmount();
    render(withT(<RunView run={{ ...run, status: "budget_exhausted", steps: [] }} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} actions={{ send, edit }} />));
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    expect(send).toHaveBeenLastCalledWith("Please continue where you stopped.");
  });

  it("offers no Retry while another run is active (no actions)", () => {
    runView({ ...baseRun, status: "failed", finalText: null, steps: [], error: { kind: "internal", params: {} } });
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("shows how long the open model request has been waiting", () => {
    render(withT(<RunView run={{ ...baseRun, status: "running", finalText: null, steps: [] }}
      live={{ step: 0, text: "", thinking: false, requestSince: Date.now() - 5_400 }}
      onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />, "zh"));
    expect(screen.getByText("5 秒")).toBeTruthy();
    expect(screen.getByText(/等待模型/)).toBeTruthy();
  });

  it("explains a failure in the model's words", () => {
    runView({ ...baseRun, status: "failed", finalText: null, steps: [], error: { kind: "no_balance", params: { host: "h", port: "1", status: "402" } } });
    expect(screen.getByRole("alert").textContent).toContain("no balance left (402)");
  });

  it("says why a run stopped at its step budget or was interrupted, in its own words and both languages", () => {
    const statusLine = () => document.querySelector(".status-line")?.textContent ?? "";
    const budget: Run = { ...baseRun, status: "budget_exhausted", finalText: null, steps: [],
      error: { kind: "budget_exhausted", params: { steps: "8" } } };
    const closed: Run = { ...budget, status: "interrupted",
      error: { kind: "interrupted", params: {} } };
    const crashed: Run = { ...closed,
      error: { kind: "unfinished_at_start", params: {} } };
    const shown = (run: Run, lang: "en" | "zh") => {
      const { unmount } = render(withT(<RunView run={run} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} actions={{ send: () => {}, edit: () => {} }} />, lang));
      const text = statusLine();
      const buttons = screen.queryAllByRole("button").map((b) => b.textContent?.trim());
      unmount();
      return { text, buttons };
    };
    const en = translator("en");
    const zh = translator("zh");
    let r = shown(budget, "en");
    expect(r.text).toContain("Stopped after 8 steps, the step budget of one request");
    expect(r.text).not.toContain(en("budgetHelp"));
    expect(r.buttons).toContain("Continue");
    r = shown(budget, "zh");
    expect(r.text).toContain("已在 8 个轮次后停止");
    expect(r.text).not.toContain(zh("budgetHelp"));
    r = shown(closed, "en");
    expect(r.text).toContain("Interrupted: Wisp was closed while this run was going");
    expect(r.text).not.toContain(en("interruptedHelp"));
    expect(r.buttons).toEqual(expect.arrayContaining(["Continue", "Retry"]));
    r = shown(closed, "zh");
    expect(r.text).toContain("已中断：本次运行进行中时 Wisp 被关闭了");
    r = shown(crashed, "en");
    expect(r.text).toContain("it crashed or was killed");
    r = shown(crashed, "zh");
    expect(r.text).toContain("崩溃或被强制结束");
    expect(r.buttons).toEqual(expect.arrayContaining(["继续", "重试"]));
    // A run stored without an error (an older Host) still gets the general help.
    r = shown({ ...budget, error: null }, "en");
    expect(r.text).toContain(en("budgetHelp"));
  });

  it("shows a call that finished as the cancel arrived as what it returned, and one the cancel stopped as stopped", () => {
    const note = (text: string) => JSON.stringify({ status: "registered", id: "srv_1", cancelNote: text });
    const stopped = JSON.stringify({ error: "cancelled while the tool was running: whether the tool had already done something is not known", cancelNote: "stopped" });
    const run: Run = { ...baseRun, status: "cancelled", finalText: null, steps: [{ index: 0, partial: false, text: "", toolCalls: [
      { callId: "r1-s0-c0", tool: "mcp_register", arguments: {}, argumentsText: "{}", status: "succeeded", result: note("finished"), approval: null },
      { callId: "r1-s0-c1", tool: "echo", arguments: {}, argumentsText: "{}", status: "cancelled", result: stopped, approval: null },
      { callId: "r1-s0-c2", tool: "files_list", arguments: {}, argumentsText: "{}", status: "cancelled", result: null, approval: null },
    ] }] };
    for (const lang of ["en", "zh"] as const) {
      const t = translator(lang);
      const { unmount } = render(withT(<RunView run={run} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />, lang));
      const finished = document.querySelector('[data-call-id="r1-s0-c0"] [data-cancel-note]');
      expect(finished?.getAttribute("data-cancel-note")).toBe("finished");
      expect(finished?.textContent).toBe(t("callFinishedDespiteCancel"));
      expect(document.querySelector('[data-call-id="r1-s0-c0"] .badge')?.textContent).toBe(t("call_succeeded"));
      const cut = document.querySelector('[data-call-id="r1-s0-c1"] [data-cancel-note]');
      expect(cut?.getAttribute("data-cancel-note")).toBe("stopped");
      expect(cut?.textContent).toContain(t("callStoppedByCancel"));
      expect(cut?.textContent).toContain("is not known");
      expect(document.querySelector('[data-call-id="r1-s0-c2"] [data-cancel-note]')).toBeNull();
      unmount();
    }
  });
});

describe("decision keys", () => {
  const plain = { repeat: false, ctrlKey: false, altKey: false, metaKey: false, shiftKey: false };
  it("maps only a plain A or R", () => {
    expect(decisionOf({ ...plain, key: "a" })).toBe("approve");
    expect(decisionOf({ ...plain, key: "R" })).toBe("reject");
    expect(decisionOf({ ...plain, key: "Enter" })).toBeNull();
    expect(decisionOf({ ...plain, key: "a", repeat: true })).toBeNull();
    expect(decisionOf({ ...plain, key: "a", isComposing: true })).toBeNull();
  });
  it("knows text fields", () => {
    const div = document.createElement("div");
    div.setAttribute("contenteditable", "true");
    document.body.appendChild(div);
    for (const tag of ["input", "textarea", "select"]) expect(isTextField(document.createElement(tag))).toBe(true);
    expect(isTextField(div)).toBe(true);
    expect(isTextField(document.createElement("button"))).toBe(false);
    div.remove();
  });
});

describe("Markdown", () => {
  it("ends a bare link before the JSON quotes and brackets around it, and keeps explicit links whole", () => {
    const { container } = render(
      withT(<Markdown text={'Open {"url":"https://example.com/a?b=1"} or ["http://127.0.0.1:8080/x"], \'www.example.org/y\', and [this](https://example.com/q"}) too'} />),
    );
    const links = [...container.querySelectorAll("a")].map((a) => [a.getAttribute("href"), a.textContent]);
    expect(links).toEqual([
      ["https://example.com/a?b=1", "https://example.com/a?b=1"],
      ["http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"],
      ["http://www.example.org/y", "www.example.org/y"],
      ['https://example.com/q%22%7D', "this"],
    ]);
    // Nothing of the text is lost: the punctuation is back in the prose.
    expect(container.textContent).toContain('{"url":"https://example.com/a?b=1"}');
    expect(container.textContent).toContain('["http://127.0.0.1:8080/x"]');
  });

  it("renders GitHub-flavoured markdown: tables, task lists, strikethrough, autolinks", () => {
    const { container } = render(withT(<Markdown text={"| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~old~~ see https://example.com\n\n> quoted"} />));
    expect(container.querySelectorAll("table td").length).toBe(2);
    const boxes = container.querySelectorAll<HTMLInputElement>("input[type=checkbox]");
    expect([...boxes].map((b) => b.checked)).toEqual([true, false]);
    expect(container.querySelector("del")?.textContent).toBe("old");
    expect(container.querySelector("a")?.getAttribute("href")).toBe("https://example.com");
    expect(container.querySelector("a")?.getAttribute("rel")).toContain("noopener");
    expect(container.querySelector("blockquote")?.textContent).toContain("quoted");
  });

  it("names a code block's language, highlights it and copies its text", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const { container } = render(withT(<Markdown text={"```rust\nfn main() {}\n```"} />));
    expect(container.querySelector(".codeblock-head")?.textContent).toContain("rust");
    expect(container.querySelector("pre code .hljs-keyword")?.textContent).toBe("fn");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: /Copy code/ })));
    expect(writeText).toHaveBeenCalledWith("fn main() {}\n");
  });

  it("never renders raw HTML from model text", () => {
    const { container } = render(<Markdown text={'hi <script>alert(1)</script> <img src=x onerror="alert(2)"> **bold**'} />);
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("strong")?.textContent).toBe("bold");
  });
});
