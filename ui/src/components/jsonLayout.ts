// JSON text laid out on lines with indentation, every token copied as it is: a number keeps
// every digit (JSON.parse and JSON.stringify would turn 12345678901234567891 into
// 12345678901234567000 and -0.0 into 0), a string keeps its escapes. Text that is not JSON is
// returned unchanged.

export function layoutJson(text: string, indent = "  "): string {
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  let out = "";
  let depth = 0;
  let i = 0;
  const newline = () => "\n" + indent.repeat(depth);
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === " " || c === "\n" || c === "\r" || c === "\t") {
      i++;
      continue;
    }
    if (c === "{" || c === "[") {
      // An empty object or array stays on its line.
      let j = i + 1;
      while (j < text.length && " \n\r\t".includes(text.charAt(j))) j++;
      if (text[j] === (c === "{" ? "}" : "]")) {
        out += c + text[j];
        i = j + 1;
        continue;
      }
      depth++;
      out += c + newline();
    } else if (c === "}" || c === "]") {
      depth--;
      out += newline() + c;
    } else if (c === ",") {
      out += "," + newline();
    } else if (c === ":") {
      out += ": ";
    } else {
      out += c;
    }
    i++;
  }
  return out;
}
