// The card shows the arguments exactly as they will be sent: the Host's canonical text verbatim
// (every digit of an integer past 2^53, the sign of -0.0), and hidden or direction-changing
// characters shown marked on the card, in its diff, in a tool row and in a tab title, with a
// plain warning on the card in both languages.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ApprovalCard, type ApprovalRequest } from "./ApprovalCard";
import { RunView } from "../conversation/RunView";
import { PreviewPanel } from "../tabs/Panel";
import { Api } from "../../api";
import { I18n, dictionaries, translator } from "../../i18n";
import { hasHidden, revealParts, revealText } from "../../components/Reveal";
import { layoutJson } from "../../components/jsonLayout";
import type { PreviewTab, Run } from "../../types";

afterEach(cleanup);

const withT = (ui: React.ReactNode, lang: "en" | "zh" = "en") => <I18n.Provider value={translator(lang)}>{ui}</I18n.Provider>;

/** A request as the UI builds it from the API: `arguments` is JSON.parse of the Host's JSON. */
const fromHost = (tool: string, canonical: string): ApprovalRequest => ({
  approvalId: "ap1",
  tool,
  arguments: JSON.parse(canonical),
  canonical,
  digest: "d".repeat(64),
  state: "pending",
});

const exactText = () => screen.getByLabelText(dictionaries.en.exactArguments).textContent;
const marks = (root: ParentNode = document) => [...root.querySelectorAll("mark.hidden-char")].map((m) => m.textContent);

describe("reveal", () => {
  it("marks each class of hidden character in a name, as ⟨U+XXXX⟩", () => {
    const cases: [string, string][] = [
      ["\u202a", "⟨U+202A⟩"], ["\u202e", "⟨U+202E⟩"], ["\u2066", "⟨U+2066⟩"], ["\u2069", "⟨U+2069⟩"],
      ["\u200b", "⟨U+200B⟩"], ["\u200f", "⟨U+200F⟩"], ["\u2060", "⟨U+2060⟩"], ["\u2064", "⟨U+2064⟩"],
      ["\ufeff", "⟨U+FEFF⟩"], ["\u00ad", "⟨U+00AD⟩"], ["\u061c", "⟨U+061C⟩"], ["\u{e0041}", "⟨U+E0041⟩"],
      ["\u0000", "⟨U+0000⟩"], ["\u0001", "⟨U+0001⟩"], ["\u001f", "⟨U+001F⟩"], ["\n", "⟨U+000A⟩"], ["\t", "⟨U+0009⟩"],
      ["\r", "⟨U+000D⟩"], ["\u007f", "⟨U+007F⟩"], ["\u0085", "⟨U+0085⟩"], ["\u009f", "⟨U+009F⟩"], ["\u2028", "⟨U+2028⟩"],
      // Drawn as nothing though not format characters: variation selectors (which can carry
      // a whole hidden text), the combining grapheme joiner, Hangul fillers, Mongolian selectors.
      ["\ufe00", "⟨U+FE00⟩"], ["\ufe0f", "⟨U+FE0F⟩"], ["\u{e0100}", "⟨U+E0100⟩"], ["\u034f", "⟨U+034F⟩"],
      ["\u115f", "⟨U+115F⟩"], ["\u3164", "⟨U+3164⟩"], ["\uffa0", "⟨U+FFA0⟩"], ["\u180b", "⟨U+180B⟩"], ["\u17b4", "⟨U+17B4⟩"],
    ];
    for (const [ch, shown] of cases) {
      expect(revealText(`a${ch}b`), JSON.stringify(ch)).toBe(`a${shown}b`);
      expect(hasHidden(`a${ch}b`)).toBe(true);
    }
    expect(revealParts("auth\u202etxt.js")).toEqual([
      { hidden: false, text: "auth" },
      { hidden: true, code: 0x202e, label: "⟨U+202E⟩", name: "RIGHT-TO-LEFT OVERRIDE" },
      { hidden: false, text: "txt.js" },
    ]);
    // What a person sees as it is stays as it is, other scripts and spaces included.
    for (const plain of ["notes.txt", "你好 世界", "café\u00a0au lait", "emoji 🙂", "עברית"]) expect(hasHidden(plain)).toBe(false);
  });

  it("keeps newline, tab and CRLF as layout in content, and marks a lone CR and every other one", () => {
    expect(hasHidden("a\n\tb\r\nc", "text")).toBe(false);
    expect(revealText("a\rb", "text")).toBe("a⟨U+000D⟩b");
    expect(revealText("x = \"\u202e\u2066// ok\u2069\u2066\"", "text")).toBe('x = "⟨U+202E⟩⟨U+2066⟩// ok⟨U+2069⟩⟨U+2066⟩"');
  });

  it("lays out JSON without reparsing a number", () => {
    expect(layoutJson('{"n":12345678901234567891,"z":-0.0,"a":[],"s":"x,{y}"}')).toBe('{\n  "n": 12345678901234567891,\n  "z": -0.0,\n  "a": [],\n  "s": "x,{y}"\n}');
    expect(layoutJson("not json {")).toBe("not json {");
  });
});

describe("the exact arguments on a card", () => {
  const mcp = '{"arguments":{"n1":12345678901234567891,"n2":-0.0,"n3":1.5e+300,"text":"hello from wisp"},"server":"own","serverId":"e4af0bb2","tool":"echo","toolListVersion":1}';

  it("renders the canonical text verbatim: every digit of a big integer, the sign of -0.0", () => {
    render(withT(<ApprovalCard request={fromHost("mcp_0a1b2c3d_echo_55667788", mcp)} onDecide={async () => "approved"} />));
    expect(exactText()).toBe(mcp);
    // What JSON.parse and JSON.stringify would have shown instead.
    expect(JSON.stringify(JSON.parse(mcp))).toContain("12345678901234567000");
    expect(document.body.textContent).not.toContain("12345678901234567000");
    expect(document.body.textContent).not.toContain('"n2":0');
    expect(screen.queryByRole("note")).toBeNull();
  });

  it("shows it under the friendly fields of a file tool too", () => {
    const canonical = '{"content":"a\\tb\\n","creates":true,"path":"notes.txt"}';
    render(withT(<ApprovalCard request={fromHost("files_write", canonical)} onDecide={async () => "approved"} />));
    expect(exactText()).toBe(canonical);
    // A tab and a newline in content are layout, not hidden: no warning.
    expect(screen.queryByText(dictionaries.en.hiddenChars)).toBeNull();
  });
});

describe("hidden characters on the card", () => {
  const bidiPath = '{"content":"x","creates":true,"path":"auth\u202etxt.js"}';

  it("marks a bidi override in the path, the title and the exact text, and warns in English and Chinese", () => {
    const { unmount } = render(withT(<ApprovalCard request={fromHost("files_write", bidiPath)} onDecide={async () => "approved"} />));
    expect(screen.getByText(dictionaries.en.hiddenChars)).toBeTruthy();
    expect(screen.getByRole("note").textContent).toBe(dictionaries.en.hiddenChars);
    const path = document.querySelector(".field code")!;
    expect(path.textContent).toBe("auth⟨U+202E⟩txt.js");
    expect(path.querySelector("mark.hidden-char")?.getAttribute("title")).toBe("RIGHT-TO-LEFT OVERRIDE");
    expect(exactText()).toBe('{"content":"x","creates":true,"path":"auth⟨U+202E⟩txt.js"}');
    // Nowhere on the card is the raw character left to reorder the text.
    expect(document.body.textContent).not.toContain("\u202e");
    unmount();
    render(withT(<ApprovalCard request={{ ...fromHost("files_write", bidiPath), state: "approved" }} callStatus="succeeded" onDecide={async () => "approved"} />, "zh"));
    expect(screen.getByText(dictionaries.zh.hiddenChars)).toBeTruthy();
    expect(screen.getByRole("group", { name: "已批准：写入 auth⟨U+202E⟩txt.js" })).toBeTruthy();
  });

  it("warns about a newline in a new name, which the JSON text shows only as an escape", () => {
    render(withT(<ApprovalCard request={fromHost("files_mkdir", '{"path":"a\\nb"}')} onDecide={async () => "approved"} />));
    expect(screen.getByText(dictionaries.en.hiddenChars)).toBeTruthy();
    expect(document.querySelector(".field code")?.textContent).toBe("a⟨U+000A⟩b");
  });

  it("marks a bidi control hidden inside a string literal of a replace, in its texts and its diff", () => {
    const canonical = JSON.stringify({ line: 1, newText: 'if (role === "user\u202e \u2066// admin\u2069 \u2066") {', oldText: 'if (role === "user") {', path: "auth.js", sha256: "f".repeat(64) });
    render(
      withT(
        <ApprovalCard
          request={fromHost("files_replace", canonical)}
          currentFile={{ state: "loaded", content: 'if (role === "user") {\n', sha256: "f".repeat(64) }}
          onDecide={async () => "approved"}
        />,
      ),
    );
    expect(screen.getByText(dictionaries.en.hiddenChars)).toBeTruthy();
    const diff = screen.getByLabelText("diff");
    expect(marks(diff)).toEqual(["⟨U+202E⟩", "⟨U+2066⟩", "⟨U+2069⟩", "⟨U+2066⟩"]);
    expect(diff.textContent).toContain('+ if (role === "user⟨U+202E⟩ ⟨U+2066⟩// admin⟨U+2069⟩ ⟨U+2066⟩") {');
    expect(marks(document.querySelectorAll("pre.content")[1]!)).toHaveLength(4);
  });

  it("marks zero-width, format and control characters of an MCP call's arguments", () => {
    const canonical = '{"arguments":{"text":"pay\u200bpal\u00ad\u007f\u0085\ufeff"},"server":"own","serverId":"s","tool":"echo","toolListVersion":1}';
    render(withT(<ApprovalCard request={fromHost("mcp_0a1b2c3d_echo_55667788", canonical)} onDecide={async () => "approved"} />));
    expect(screen.getByText(dictionaries.en.hiddenChars)).toBeTruthy();
    expect(marks()).toEqual(["⟨U+200B⟩", "⟨U+00AD⟩", "⟨U+007F⟩", "⟨U+0085⟩", "⟨U+FEFF⟩"]);
  });
});

const run = (argumentsText: string, result: string): Run => ({
  id: "r1", sessionId: "s1", text: "go", status: "completed", mode: "simulation", model: null, finalText: "done", error: null,
  steps: [{ index: 0, partial: false, text: "", toolCalls: [{ callId: "c1", tool: "files_read", arguments: JSON.parse(argumentsText), argumentsText, status: "succeeded", result, approval: null }] }],
  usage: { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0, estimatedCost: null },
  createdAt: 1, endedAt: 2, undoable: 0, undos: [], summaries: [],
});

describe("a tool row", () => {
  it("shows the model's arguments and the result as sent, digits exact and hidden characters marked", () => {
    render(withT(<RunView run={run('{"path":"docs/\u2067x.md","offset":9007199254740993}', '{"content":"a\u200bb","size":18446744073709551615}')} onDecide={async () => "approved"} onPreview={() => {}} currentFile={() => undefined} onLook={() => {}} />));
    fireEvent.click(screen.getByRole("button", { name: /Tool process/ }));
    fireEvent.click(screen.getByRole("button", { name: /c1/ }));
    const args = document.querySelector("pre.call-arguments")!;
    expect(args.textContent).toBe('{\n  "path": "docs/⟨U+2067⟩x.md",\n  "offset": 9007199254740993\n}');
    const result = document.querySelector("pre.call-result")!;
    expect(result.textContent).toBe('{\n  "content": "a⟨U+200B⟩b",\n  "size": 18446744073709551615\n}');
    // The collapsed row names the path too, marked the same way.
    expect(document.querySelector(".call-subject")!.textContent).toBe("docs/⟨U+2067⟩x.md");
    expect(marks()).toEqual(["⟨U+2067⟩", "⟨U+2067⟩", "⟨U+200B⟩"]);
  });
});

describe("a tab title", () => {
  it("marks a page title's direction-changing characters, in the tab and its close button", () => {
    const tab: PreviewTab = { tabId: "tab_" + "a".repeat(32), kind: "web", title: "Bank\u202e nigol", active: false, url: "https://example.com/" };
    const c = { tabs: [tab], dialogs: [], fileVersion: 0, open: async () => null, shown: async () => null, openFile: () => {}, activate: () => {}, navigate: async () => true, move: () => {}, close: () => {}, answer: async () => {}, onLive: () => {} };
    render(withT(<PreviewPanel api={new Api("tok")} sessionId="s1" tabs={c} webTabs="iframe" onHide={() => {}} />));
    const shown = screen.getByRole("tab");
    expect(shown.textContent?.trim()).toBe("Bank⟨U+202E⟩ nigol");
    expect(marks(shown)).toEqual(["⟨U+202E⟩"]);
    expect(shown.getAttribute("title")).toBe("Web page: https://example.com/");
    expect(screen.getByTitle("Close tab Bank⟨U+202E⟩ nigol")).toBeTruthy();
  });
});
