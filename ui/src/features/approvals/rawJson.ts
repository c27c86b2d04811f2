// The members of a JSON object as the text wrote them, without parsing the values: a card's
// friendly fields must agree with the exact text the digest covers, and JavaScript numbers do
// not (12345678901234567891 would read 12345678901234567000, -0.0 would read 0).

/** The end (exclusive) of the JSON value starting at `i` (after white space), or -1. */
function valueEnd(text: string, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < text.length; j++) {
    const c = text[j]!;
    if (inString) {
      if (c === "\\") j++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return j + 1;
      }
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return j;
      depth--;
      if (depth === 0) return j + 1;
    } else if (depth === 0 && (c === "," || /\s/.test(c))) return j;
  }
  return depth === 0 && !inString ? text.length : -1;
}

const skipSpace = (text: string, i: number) => {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
};

/** `[name, raw value text]` of each member of the object `text` holds, in its order; null when
 * it is not an object this reads. */
export function rawMembers(text: string): [string, string][] | null {
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return null;
  i = skipSpace(text, i + 1);
  const out: [string, string][] = [];
  if (text[i] === "}") return out;
  for (;;) {
    if (text[i] !== '"') return null;
    const keyEnd = valueEnd(text, i);
    if (keyEnd < 0) return null;
    let name: string;
    try {
      name = JSON.parse(text.slice(i, keyEnd)) as string;
    } catch {
      return null;
    }
    i = skipSpace(text, keyEnd);
    if (text[i] !== ":") return null;
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    if (end <= i) return null;
    out.push([name, text.slice(i, end)]);
    i = skipSpace(text, end);
    if (text[i] === "}") return out;
    if (text[i] !== ",") return null;
    i = skipSpace(text, i + 1);
  }
}

/** A raw JSON string literal's value; null for any other raw value. */
export function rawString(raw: string): string | null {
  if (!raw.startsWith('"')) return null;
  try {
    return JSON.parse(raw) as string;
  } catch {
    return null;
  }
}
