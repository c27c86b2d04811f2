// The file preview's code view: highlighted by extension through elements (never HTML), hidden
// characters still marked inside highlighted code, numbered lines that a final newline does
// not add to, one line marked; plain text for an unknown extension or an oversized file.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { CodeView, MAX_HIGHLIGHT_CHARS, languageOfPath } from "./CodeView";

afterEach(cleanup);

const gutter = () => [...document.querySelectorAll(".code-gutter span")].map((s) => s.textContent?.trim());

describe("CodeView", () => {
  it("highlights by the file's extension, numbers its lines and marks the one asked for", () => {
    const text = 'fn main() {\n    let s = "hi\u202e";\n}\n';
    render(<CodeView text={text} path="src/main.RS" line={2} label="Text of src/main.RS" />);
    expect(document.querySelector(".code-text")?.getAttribute("data-language")).toBe("rust");
    expect(document.querySelector(".hljs-keyword")?.textContent).toBe("fn");
    // The string is highlighted and its hidden character is still marked.
    const str = document.querySelector(".hljs-string");
    expect(str?.textContent).toContain("⟨U+202E⟩");
    expect(document.querySelector("script, [dangerouslySetInnerHTML]")).toBeNull();
    expect(gutter()).toEqual(["1", "2", "3"]);
    expect(document.querySelector(".code-gutter .hit")?.textContent?.trim()).toBe("2");
    expect(document.querySelector(".line-mark")?.getAttribute("data-line")).toBe("2");
  });

  it("shows an unknown kind or a huge file as plain text, and marks no line outside the file", () => {
    render(<CodeView text={"a <b>\nc"} path="notes.unknownext" line={9} label="x" />);
    expect(document.querySelector(".code-text")?.getAttribute("data-language")).toBeNull();
    expect(document.querySelector(".code-text code")?.textContent).toBe("a <b>\nc");
    expect(document.querySelector(".line-mark")).toBeNull();
    expect(gutter()).toEqual(["1", "2"]);
    cleanup();
    render(<CodeView text={"let x = 1;\n".repeat(MAX_HIGHLIGHT_CHARS / 10)} path="big.js" label="x" />);
    expect(document.querySelector(".hljs-keyword")).toBeNull();
  });

  it("knows languages by extension only", () => {
    expect([languageOfPath("a/b.tsx"), languageOfPath("Makefile"), languageOfPath(".bashrc"), languageOfPath("x.yml")]).toEqual(["typescript", null, null, "yaml"]);
  });
});
