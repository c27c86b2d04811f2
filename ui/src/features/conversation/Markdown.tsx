// Model text as markdown: GitHub-flavoured (tables, task lists, strikethrough, autolinks) as
// the tools people use render it. react-markdown never renders raw HTML from the text (no
// rehype-raw), so a model cannot inject markup or script. Code blocks are highlighted for the
// languages the file preview knows (components/CodeView.tsx), named, and copyable.
import { useRef, useState, type ReactNode } from "react";
import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import rehypeHighlight from "rehype-highlight";
import { Copy } from "lucide-react";
import { useT } from "../../i18n";
import { LANGUAGES as languages } from "../../components/CodeView";
import { remarkBareLinkPunctuation } from "./autolinks";

/** The language a fenced block names (`language-rust` on its code element), if any. */
function languageOf(children: ReactNode): string | null {
  const child = Array.isArray(children) ? children[0] : children;
  const className = (child as { props?: { className?: unknown } } | null)?.props?.className;
  const m = typeof className === "string" ? /language-([\w+-]+)/.exec(className) : null;
  return m ? m[1]! : null;
}

function CodeBlock({ children }: { children?: ReactNode }) {
  const t = useT();
  const pre = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState(false);
  const lang = languageOf(children);
  return (
    <div className="codeblock">
      <div className="codeblock-head">
        <span className="muted small mono">{lang ?? t("code")}</span>
        <button
          className="link small"
          onClick={() =>
            void navigator.clipboard?.writeText(pre.current?.textContent ?? "").then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            })
          }
        >
          <Copy size={13} aria-hidden /> {copied ? t("copied") : t("copyCode")}
        </button>
      </div>
      <pre ref={pre}>{children}</pre>
    </div>
  );
}

export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm, remarkBareLinkPunctuation]}
        rehypePlugins={[[rehypeHighlight, { languages, detect: false }]]}
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noreferrer noopener">
              {children}
            </a>
          ),
          pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
