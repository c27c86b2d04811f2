//! The one fixed extraction (WEB-20..23): a constant function, built from the limits and no
//! input from the model, run in an isolated world of the page. The page's own scripts cannot
//! see it or change the built-ins it uses there; it reads only the DOM and the browser's
//! rendering of it, and returns only text a person can see.
//!
//! "Can see" (WEB-23): `checkVisibility`, its own `visibility`, a font size after transforms
//! and zoom of at least `MIN_FONT_PX`, no transparent mask or heavy blur, the text's rectangles
//! inside every clipping ancestor and the page's scrollable area (text below the fold or inside
//! a scroll box counts; negative offsets and fixed boxes out of view do not), and a contrast of
//! at least `MIN_CONTRAST` against the resolved background (kept when an image makes it
//! unknowable). One capped walk of the body; the root is the visible article with the most
//! visible text, else such a main, else the body (WEB-21). The navigation version is checked
//! before and after the read, and the read returns the document's own `location.href`.

use serde::Deserialize;

use crate::limits::{
    MAX_LINK_TEXT_CHARS, MAX_LINKS, MAX_TEXT_CHARS, MAX_TEXT_NODES, MAX_URL_CHARS, MIN_CONTRAST,
    MIN_FONT_PX,
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

/// The function itself (`extract.js`): what it counts as visible, and why, is said there.
const SOURCE: &str = include_str!("extract.js");

/// The extraction's source, with the limits filled in.
pub(crate) fn source() -> String {
    SOURCE
        .replace("__MAX_TEXT__", &MAX_TEXT_CHARS.to_string())
        .replace("__MAX_LINKS__", &MAX_LINKS.to_string())
        .replace("__MAX_NODES__", &MAX_TEXT_NODES.to_string())
        .replace("__MAX_LINK_TEXT__", &MAX_LINK_TEXT_CHARS.to_string())
        .replace("__MIN_FONT_PX__", &MIN_FONT_PX.to_string())
        .replace("__MIN_CONTRAST__", &MIN_CONTRAST.to_string())
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
        assert!(!s.contains("__MAX") && !s.contains("__MIN"));
        assert!(s.contains(&format!("MAX_TEXT = {MAX_TEXT_CHARS}")));
        assert!(s.contains(&format!("MIN_CONTRAST = {MIN_CONTRAST}")));
    }

    #[test]
    fn cut_counts_characters_not_bytes() {
        assert_eq!(cut_chars("ééé", 2), ("éé".to_owned(), true));
        assert_eq!(cut_chars("éé", 2), ("éé".to_owned(), false));
    }
}
