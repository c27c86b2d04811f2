// Characters a person cannot see, shown as marked escapes: bidi controls (U+202A–U+202E,
// U+2066–U+2069, U+200E/U+200F, U+061C), zero-width and other format characters (U+200B–U+200D,
// U+2060–U+2064, U+FEFF, U+00AD, every Unicode Cf), line and paragraph separators, lone
// surrogates, and C0/C1 controls. A path `auth\u202etxt.js` would otherwise read "authsj.txt",
// and a bidi override inside a string literal would make a replace look harmless.
//
// Names and paths ("name") mark every control, tab and newline included. Multi-line content
// ("text": file content, oldText/newText, diff lines, results) keeps the newline, the tab and a
// CRLF line end as layout — they are visible as such — and marks everything else, a lone CR too.

export type RevealMode = "name" | "text";

export type RevealPart = { hidden: false; text: string } | { hidden: true; code: number; label: string; name: string };

const NAMES: Record<number, string> = {
  0x00: "NULL", 0x09: "TAB", 0x0a: "LINE FEED", 0x0d: "CARRIAGE RETURN", 0x1b: "ESCAPE", 0x7f: "DELETE",
  0x00ad: "SOFT HYPHEN", 0x061c: "ARABIC LETTER MARK", 0x180e: "MONGOLIAN VOWEL SEPARATOR",
  0x200b: "ZERO WIDTH SPACE", 0x200c: "ZERO WIDTH NON-JOINER", 0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK", 0x200f: "RIGHT-TO-LEFT MARK",
  0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR",
  0x202a: "LEFT-TO-RIGHT EMBEDDING", 0x202b: "RIGHT-TO-LEFT EMBEDDING", 0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE", 0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER", 0x2061: "FUNCTION APPLICATION", 0x2062: "INVISIBLE TIMES", 0x2063: "INVISIBLE SEPARATOR", 0x2064: "INVISIBLE PLUS",
  0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE (BOM)",
};

/** Controls (Cc), format characters (Cf), separators (Zl, Zp), lone surrogates (Cs), and the
 * other characters Unicode says to draw as nothing (Default_Ignorable_Code_Point: variation
 * selectors, Hangul fillers, U+034F …), which can carry text nobody sees. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
const HIDDEN_ALL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu;

const label = (code: number) => `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;

/** Whether the character at `i` of `s` (one code point, `ch`) is layout in `mode`. */
function isLayout(s: string, i: number, ch: string, mode: RevealMode) {
  if (mode === "name") return false;
  return ch === "\n" || ch === "\t" || (ch === "\r" && s[i + 1] === "\n");
}

/** `text` cut into what is shown as it is and what is shown as a marked escape. */
export function revealParts(text: string, mode: RevealMode = "name"): RevealPart[] {
  const parts: RevealPart[] = [];
  let plain = "";
  let last = 0;
  for (const m of text.matchAll(HIDDEN_ALL)) {
    const i = m.index;
    if (isLayout(text, i, m[0], mode)) continue;
    plain += text.slice(last, i);
    if (plain) parts.push({ hidden: false, text: plain });
    plain = "";
    const code = m[0].codePointAt(0) ?? 0;
    parts.push({ hidden: true, code, label: label(code), name: NAMES[code] ?? (code < 0x20 || (code >= 0x7f && code <= 0x9f) ? "CONTROL CHARACTER" : "FORMAT CHARACTER") });
    last = i + m[0].length;
  }
  plain += text.slice(last);
  if (plain) parts.push({ hidden: false, text: plain });
  return parts;
}

/** Whether `text` holds a character [`Reveal`] marks in `mode`. */
export function hasHidden(text: string, mode: RevealMode = "name"): boolean {
  if (!HIDDEN.test(text)) return false;
  return revealParts(text, mode).some((p) => p.hidden);
}

/** `text` with its hidden characters as escapes, for places that hold plain text only (a
 * tooltip, an accessible name). */
export function revealText(text: string, mode: RevealMode = "name"): string {
  return revealParts(text, mode)
    .map((p) => (p.hidden ? p.label : p.text))
    .join("");
}

/** `text` with every hidden character shown as a marked escape (`⟨U+202E⟩`, its name in the
 * tooltip). */
export function Reveal({ text, mode = "name" }: { text: string; mode?: RevealMode }) {
  const parts = revealParts(text, mode);
  if (parts.every((p) => !p.hidden)) return <>{text}</>;
  return (
    <>
      {parts.map((p, i) =>
        p.hidden ? (
          <mark key={i} className="hidden-char" title={p.name} data-code={p.code}>
            {p.label}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}
