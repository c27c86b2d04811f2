//! The one fixed extraction (WEB-20..23): a constant function, built from the limits and no
//! input from the model, run in an isolated world of the page. The page's own scripts cannot
//! see it or change the built-ins it uses there; it reads only the DOM.

use serde::Deserialize;

use crate::limits::{
    MAX_LINK_TEXT_CHARS, MAX_LINKS, MAX_TEXT_CHARS, MAX_TEXT_NODES, MAX_URL_CHARS,
};

/// What one read of a page found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageText {
    /// The address of the document the text was read from (its `location.href` as the
    /// isolated world sees it, which the page's scripts cannot change): the caller can check
    /// that what was read is the page it meant to read, whatever events arrived meanwhile.
    pub url: String,
    /// The content root used: `article`, `main` or `body`.
    pub root: String,
    /// Visible text, at most [`MAX_TEXT_CHARS`] characters.
    pub text: String,
    /// There was more visible text than the limit.
    pub text_truncated: bool,
    /// Links (http/https only, query and fragment removed, distinct), at most [`MAX_LINKS`].
    pub links: Vec<Link>,
    /// There were more distinct links than the limit.
    pub links_truncated: bool,
    /// Text nodes visited.
    pub nodes_visited: usize,
    /// The walk stopped at [`MAX_TEXT_NODES`] with text nodes left.
    pub nodes_truncated: bool,
}

/// One link of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The target without query, fragment or credentials.
    pub url: String,
    /// Its visible text, at most [`MAX_LINK_TEXT_CHARS`] characters.
    pub text: String,
}

const SOURCE: &str = r#"(() => {
  const MAX_TEXT = __MAX_TEXT__, MAX_LINKS = __MAX_LINKS__, MAX_NODES = __MAX_NODES__,
    MAX_LINK_TEXT = __MAX_LINK_TEXT__;
  const EXCLUDED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'FRAME',
    'FRAMESET', 'OBJECT', 'EMBED', 'FORM', 'INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'OPTGROUP',
    'BUTTON', 'DATALIST', 'OUTPUT', 'CANVAS', 'SVG', 'MATH', 'VIDEO', 'AUDIO', 'HEAD', 'TITLE',
    'META', 'LINK', 'DIALOG']);
  const EDITABLE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'form']);
  const root = document.querySelector('article') || document.querySelector('main') || document.body;
  let text = '', chars = 0, textTruncated = false;
  let nodes = 0, nodesTruncated = false;
  const links = [], seen = new Set();
  let linksTruncated = false;
  const count = (s) => { let n = 0; for (const _ of s) n++; return n; };
  const cut = (s, max) => { let out = '', n = 0; for (const c of s) { if (n === max) break; out += c; n++; } return out; };
  const breakLine = () => {
    if (text === '' || text.endsWith('\n') || chars >= MAX_TEXT) return;
    if (text.endsWith(' ')) text = text.slice(0, -1) + '\n'; else { text += '\n'; chars++; }
  };
  const addText = (raw) => {
    if (textTruncated) return;
    let s = raw.replace(/\s+/g, ' ');
    if (text === '' || text.endsWith(' ') || text.endsWith('\n')) s = s.replace(/^ /, '');
    if (s === '') return;
    const n = count(s);
    if (chars + n <= MAX_TEXT) { text += s; chars += n; return; }
    const head = cut(s, MAX_TEXT - chars);
    text += head; chars = MAX_TEXT;
    if (s.slice(head.length).trim() !== '') textTruncated = true;
  };
  const addLink = (a) => {
    let u;
    try { u = new URL(a.href); } catch (_) { return; }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
    u.search = ''; u.hash = ''; u.username = ''; u.password = '';
    const href = u.href;
    if (seen.has(href)) return;
    if (links.length >= MAX_LINKS) { linksTruncated = true; return; }
    seen.add(href);
    links.push({ url: href, text: cut((a.innerText || '').replace(/\s+/g, ' ').trim(), MAX_LINK_TEXT) });
  };
  const excluded = (el) => {
    if (EXCLUDED.has(el.tagName.toUpperCase())) return true;
    if (el.isContentEditable || el.hidden || el.inert) return true;
    if (el.getAttribute('aria-hidden') === 'true') return true;
    if (EDITABLE_ROLES.has(el.getAttribute('role'))) return true;
    const style = getComputedStyle(el);
    return style.display === 'none' || style.visibility === 'hidden' ||
      style.visibility === 'collapse' || style.contentVisibility === 'hidden' ||
      style.opacity === '0';
  };
  const END = {};
  const stack = root ? [root] : [];
  while (stack.length) {
    const node = stack.pop();
    if (node === END) { breakLine(); continue; }
    if (node.nodeType === Node.TEXT_NODE) {
      if (nodes >= MAX_NODES) { nodesTruncated = true; break; }
      nodes++;
      addText(node.data);
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || excluded(node)) continue;
    if (node.tagName === 'A' && node.hasAttribute('href')) addLink(node);
    const display = getComputedStyle(node).display;
    if (!display.startsWith('inline') && display !== 'contents') { breakLine(); stack.push(END); }
    for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
  }
  return { url: location.href, root: root ? root.tagName.toLowerCase() : 'none', text: text.trimEnd(), textTruncated,
    links, linksTruncated, nodesVisited: nodes, nodesTruncated };
})()"#;

/// The extraction's source, with the limits filled in.
pub(crate) fn source() -> String {
    SOURCE
        .replace("__MAX_TEXT__", &MAX_TEXT_CHARS.to_string())
        .replace("__MAX_LINKS__", &MAX_LINKS.to_string())
        .replace("__MAX_NODES__", &MAX_TEXT_NODES.to_string())
        .replace("__MAX_LINK_TEXT__", &MAX_LINK_TEXT_CHARS.to_string())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    url: String,
    root: String,
    text: String,
    text_truncated: bool,
    links: Vec<RawLink>,
    links_truncated: bool,
    nodes_visited: usize,
    nodes_truncated: bool,
}

#[derive(Deserialize)]
struct RawLink {
    url: String,
    text: String,
}

/// Checks the function's answer and enforces every limit again on this side.
pub(crate) fn parse(value: serde_json::Value) -> Option<PageText> {
    let raw: Raw = serde_json::from_value(value).ok()?;
    let (text, cut) = cut_chars(&raw.text, MAX_TEXT_CHARS);
    let mut links: Vec<Link> = raw
        .links
        .into_iter()
        .filter_map(|l| {
            Some(Link {
                url: display_url(&l.url)?,
                text: cut_chars(&l.text, MAX_LINK_TEXT_CHARS).0,
            })
        })
        .collect();
    let links_cut = links.len() > MAX_LINKS;
    links.truncate(MAX_LINKS);
    Some(PageText {
        url: raw.url,
        root: raw.root,
        text,
        text_truncated: raw.text_truncated || cut,
        links,
        links_truncated: raw.links_truncated || links_cut,
        nodes_visited: raw.nodes_visited.min(MAX_TEXT_NODES),
        nodes_truncated: raw.nodes_truncated,
    })
}

/// At most `max` characters of `s`, and whether anything was cut.
pub(crate) fn cut_chars(s: &str, max: usize) -> (String, bool) {
    match s.char_indices().nth(max) {
        Some((at, _)) => (s[..at].to_owned(), true),
        None => (s.to_owned(), false),
    }
}

/// A URL as Wisp shows it to the model (WEB-11, WEB-22): http(s) only, no query, fragment or
/// credentials, at most [`MAX_URL_CHARS`] characters; `None` for anything else.
pub fn display_url(raw: &str) -> Option<String> {
    let mut url = url::Url::parse(raw).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_query(None);
    url.set_fragment(None);
    url.set_username("").ok()?;
    url.set_password(None).ok()?;
    let shown = url.to_string();
    (shown.chars().count() <= MAX_URL_CHARS).then_some(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_url_strips_query_fragment_and_credentials() {
        assert_eq!(
            display_url("https://u:p@example.com/a/b?token=1#frag").as_deref(),
            Some("https://example.com/a/b")
        );
        assert_eq!(display_url("file:///etc/passwd"), None);
        assert_eq!(display_url("javascript:alert(1)"), None);
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert_eq!(display_url(&long), None);
    }

    #[test]
    fn the_source_has_every_limit_filled_in() {
        let s = source();
        assert!(!s.contains("__MAX"));
        assert!(s.contains(&format!("MAX_TEXT = {MAX_TEXT_CHARS}")));
    }

    #[test]
    fn cut_counts_characters_not_bytes() {
        assert_eq!(cut_chars("ééé", 2), ("éé".to_owned(), true));
        assert_eq!(cut_chars("éé", 2), ("éé".to_owned(), false));
    }
}
