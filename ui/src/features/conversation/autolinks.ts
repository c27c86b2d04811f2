// GFM's bare-URL autolinks end at white space and leave out trailing . , : ; ! ? * _ ~ and an
// unbalanced ")", but a quote, brace or bracket stays in the link. Model text quotes URLs in
// JSON and code-like prose all the time (`{"url":"https://example.com/a"}`), and the link then
// swallowed `"}` and pointed somewhere else. This remark step gives a bare link's trailing
// quotes, braces and brackets back to the text. Links written as [text](url) or <url> are
// left as written: their end is explicit.
import type { Link, Parent, Root, RootContent, Text } from "mdast";

/** What a bare URL in prose does not end with. */
const TRAILING = /["'}\]>`]+$/;

function isBare(link: Link): boolean {
  const only = link.children.length === 1 ? link.children[0] : undefined;
  if (only?.type !== "text") return false;
  return only.value === link.url || `http://${only.value}` === link.url || `mailto:${only.value}` === link.url;
}

function fix(parent: Parent): void {
  const out: RootContent[] = [];
  for (const child of parent.children as RootContent[]) {
    if (child.type === "link" && isBare(child)) {
      const text = child.children[0] as Text;
      const cut = TRAILING.exec(text.value);
      if (cut && cut.index > 0) {
        const kept = text.value.slice(0, cut.index);
        const url = child.url.slice(0, child.url.length - cut[0].length);
        out.push({ ...child, url, children: [{ ...text, value: kept }] });
        out.push({ type: "text", value: cut[0] });
        continue;
      }
    }
    if ("children" in child) fix(child as Parent);
    out.push(child);
  }
  parent.children = out as Parent["children"];
}

/** The remark plugin. */
export function remarkBareLinkPunctuation() {
  return (tree: Root) => fix(tree);
}
