// Model text as markdown. react-markdown never renders raw HTML from the text (no rehype-raw),
// so a model cannot inject markup or script; code blocks are highlighted for a few languages.
import ReactMarkdown from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import bash from "highlight.js/lib/languages/bash";
import json from "highlight.js/lib/languages/json";
import javascript from "highlight.js/lib/languages/javascript";
import typescript from "highlight.js/lib/languages/typescript";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";

const languages = { bash, sh: bash, json, javascript, js: javascript, typescript, ts: typescript, python, py: python, rust, rs: rust };

export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        rehypePlugins={[[rehypeHighlight, { languages, detect: false }]]}
        components={{ a: ({ href, children }) => <a href={href} target="_blank" rel="noreferrer noopener">{children}</a> }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
