// A file's text as code: highlighted by its extension (a fixed set of grammars, so nothing is
// guessed), line numbers in a gutter, long lines scrolled rather than wrapped, and one line
// marked and scrolled to (a search hit). Highlighting builds elements from lowlight's tree,
// never HTML, and every text piece goes through Reveal, so hidden and direction-changing
// characters stay marked inside highlighted code too.
import { useLayoutEffect, useMemo, useRef, type ReactNode } from "react";
import { createLowlight } from "lowlight";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Reveal } from "./Reveal";

/** The grammars code is highlighted with, by the names fenced blocks use. */
export const LANGUAGES = {
  bash,
  sh: bash,
  c,
  cpp,
  css,
  go,
  ini,
  toml: ini,
  java,
  javascript,
  js: javascript,
  json,
  markdown,
  python,
  py: python,
  rust,
  rs: rust,
  sql,
  typescript,
  ts: typescript,
  xml,
  html: xml,
  yaml,
};

const lowlight = createLowlight(LANGUAGES);

/** File extensions (lower case) and the grammar each is read with. */
const BY_EXTENSION: Record<string, keyof typeof LANGUAGES> = {
  sh: "bash", bash: "bash", c: "c", h: "c", cc: "cpp", cpp: "cpp", hpp: "cpp", css: "css", go: "go",
  ini: "ini", toml: "ini", cfg: "ini", java: "java", js: "javascript", mjs: "javascript", cjs: "javascript",
  jsx: "javascript", json: "json", md: "markdown", markdown: "markdown", py: "python", rs: "rust",
  sql: "sql", ts: "typescript", tsx: "typescript", mts: "typescript", xml: "xml", html: "xml",
  htm: "xml", svg: "xml", yaml: "yaml", yml: "yaml",
};

/** Above this many characters a file is shown plain: highlighting it would hold the page up. */
export const MAX_HIGHLIGHT_CHARS = 200_000;

/** The grammar a file is highlighted with, by its name; null: plain text. */
export function languageOfPath(path: string): keyof typeof LANGUAGES | null {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? (BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null) : null;
}

type Tree = ReturnType<typeof lowlight.highlight>;
type Node = Tree["children"][number];

function render(nodes: Node[], key: string): ReactNode[] {
  return nodes.map((n, i) => {
    const k = `${key}.${i}`;
    if (n.type === "text") return <Reveal key={k} text={n.value} mode="text" />;
    if (n.type === "element") {
      const cls = n.properties?.className;
      return (
        <span key={k} className={Array.isArray(cls) ? cls.join(" ") : undefined}>
          {render(n.children as Node[], k)}
        </span>
      );
    }
    return null;
  });
}

/** `text` numbered and highlighted as `path` says; `line` (from 1) is marked and scrolled to. */
export function CodeView({ text, path, line, label }: { text: string; path: string; line?: number | null; label: string }) {
  const lang = languageOfPath(path);
  const body = useMemo(() => (lang && text.length <= MAX_HIGHLIGHT_CHARS ? render(lowlight.highlight(lang, text).children, "n") : <Reveal text={text} mode="text" />), [lang, text]);
  // A final newline ends the last line; it does not start another.
  const count = Math.max(1, text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
  const marked = line && line >= 1 && line <= count ? line : null;
  const mark = useRef<HTMLDivElement>(null);
  const view = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (!mark.current) return;
    mark.current.scrollIntoView?.({ block: "center", inline: "nearest" });
    // The band is as wide as the longest line: scrolling it into view sideways would hide the
    // start of every line under the gutter.
    if (view.current) view.current.scrollLeft = 0;
  }, [marked, text]);
  return (
    // Focusable, so the keyboard scrolls it (long lines go sideways).
    <div className="code-view" ref={view} tabIndex={0} role="region" aria-label={label}>
      <pre className="code-gutter" aria-hidden>
        {Array.from({ length: count }, (_, i) => (
          <span key={i} className={i + 1 === marked ? "hit" : undefined}>
            {i + 1}
            {"\n"}
          </span>
        ))}
      </pre>
      <pre className={lang ? `code-text hljs language-${lang}` : "code-text"} data-language={lang ?? undefined}>
        {marked && <div ref={mark} className="line-mark" style={{ top: `calc(var(--code-pad) + ${marked - 1} * var(--code-line))` }} data-line={marked} />}
        <code>{body}</code>
      </pre>
    </div>
  );
}
