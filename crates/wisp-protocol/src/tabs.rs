//! Wire types of the preview tabs (WEB-*, UI-07): the right panel's tabs of a session,
//! what the person asks of them, the dialogs Wisp shows about them and the open tickets.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Check, at_most, limits};

/// Tab IDs the Host gives out (opaque, stable for the Host's lifetime).
pub const TAB_ID: &str = "^tab_[0-9a-f]{32}$";
/// Dialog IDs.
pub const DIALOG_ID: &str = "^dlg_[0-9a-f]{32}$";
/// Open-ticket IDs.
pub const TICKET_ID: &str = "^tk_[0-9a-f]{32}$";

/// A file path relative to the project root (a file tab's, `GET …/preview`'s): an optional
/// lead of `.` and empty segments, a name, then names, `.` or empty segments; a name is
/// anything without `/` or NUL but `.` and `..`. [`relative_file_path`] is the same rule in code.
pub const RELATIVE_FILE_PATH: &str = concat!(
    "^(?:\\.(?:/\\.?)*/)?",
    "(?:[^/.\\u0000][^/\\u0000]*|\\.[^/.\\u0000][^/\\u0000]*|\\.\\.[^/\\u0000]+)",
    "(?:/(?:[^/.\\u0000][^/\\u0000]*|\\.[^/.\\u0000][^/\\u0000]*|\\.\\.[^/\\u0000]+|\\.?))*$"
);

/// Whether `p` is shaped as [`RELATIVE_FILE_PATH`] says.
pub fn relative_file_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.contains('\0')
        && p.split('/').all(|s| s != "..")
        && p.split('/').any(|s| !s.is_empty() && s != ".")
}

/// A web URL Wisp opens (WEB-02): `http` or `https`, a host name whose last label starts with
/// a letter or a dotted IPv4 address, an optional port, no credentials, then printable ASCII
/// only. [`web_url`] is the same rule in code. (Narrower than URLs in general on purpose: every
/// URL this admits parses the same way everywhere; IPv6 literals are not admitted yet.)
pub const WEB_URL: &str = concat!(
    "^https?://",
    "(?:(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])",
    "|(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*)",
    "(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?",
    "(?:[/?#][!-~]*)?$"
);

/// Whether `url` is shaped as [`WEB_URL`] says.
pub fn web_url(url: &str) -> bool {
    let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    else {
        return false;
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if !tail.chars().all(|c| ('!'..='~').contains(&c)) {
        return false;
    }
    let (host, port) = match authority.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    };
    let port_ok = port.is_none_or(|p| {
        p.bytes().all(|b| b.is_ascii_digit())
            && match p.len() {
                1..=4 => true,
                5 => !p.starts_with('0') && p.parse::<u32>().is_ok_and(|n| n <= 65_535),
                _ => false,
            }
    });
    let labels: Vec<&str> = host.split('.').collect();
    let octet = |l: &&str| {
        !l.is_empty()
            && l.len() <= 3
            && l.bytes().all(|b| b.is_ascii_digit())
            && (l.len() == 1 || !l.starts_with('0'))
            && l.parse::<u16>().is_ok_and(|n| n <= 255)
    };
    let ipv4 = labels.len() == 4 && labels.iter().all(octet);
    let domain = labels
        .iter()
        .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        && labels
            .last()
            .is_some_and(|l| l.as_bytes()[0].is_ascii_alphabetic());
    port_ok && (ipv4 || domain)
}

/// What a tab shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TabKind {
    /// A web page.
    Web,
    /// A file of the project.
    File,
    /// A blank tab.
    New,
    /// A folder view of the project.
    Workspace,
}

/// Where a web tab's page is in loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TabLoadState {
    /// Loading.
    Loading,
    /// Loaded.
    Loaded,
    /// The last load failed (see `error`).
    Failed,
}

/// How private a web address is (WEB-02), ordered from the least private to the most:
/// `public` < `private` (a local network) < `loopback` (this computer). Named by the address
/// itself, or for a host name by what the name means by definition; a name is never resolved.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AddressKind {
    /// Anywhere on the internet.
    Public,
    /// A local network (private, link-local and shared ranges, single-label and local names).
    Private,
    /// This computer (loopback, `localhost`, or a page that is no web address at all).
    Loopback,
}

/// A web tab whose page moved itself — an HTTP redirect, a refresh, a script, a link, a move
/// through history — to an address more private than the one the person opened or approved
/// in it: the agent can neither read it nor act on it until the person opens that address
/// themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageMoved {
    /// Where the page is now.
    pub address_kind: AddressKind,
    /// What the person opened or approved in this tab.
    pub opened_kind: AddressKind,
}

/// Downloads a web tab's pages started since the tab was last opened at an address: every one
/// was refused, nothing was saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockedDownloads {
    /// How many.
    pub count: u32,
    /// The file name the page suggested for the latest one (the page's own text).
    pub last_file_name: String,
}

/// `GET /api/sessions/{id}/tabs`: one tab, in the panel's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewTab {
    /// Opaque ID.
    #[schemars(pattern(TAB_ID))]
    pub tab_id: String,
    /// What it shows.
    pub kind: TabKind,
    /// Its title (the page's title, the file's name, "New tab").
    pub title: String,
    /// The selected tab of the session.
    pub active: bool,
    /// Web tabs: the page's URL as the panel shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// File and workspace tabs: the project-relative path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Web tabs shown by the Host's browser: loading, loaded or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_state: Option<TabLoadState>,
    /// The last load error of a web tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Web tabs shown by the Host's browser: the page moved itself somewhere more private than
    /// what was opened in the tab, so the agent may not read it or act on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<PageMoved>,
    /// Web tabs shown by the Host's browser: downloads its pages tried, all refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_downloads: Option<BlockedDownloads>,
}

/// `POST /api/sessions/{id}/tabs`: a tab the person opens.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpenTab {
    /// A web page: a full http(s) URL without credentials.
    Web {
        /// The URL.
        #[schemars(length(min = 1, max = limits::MAX_URL_CHARS), pattern(WEB_URL))]
        url: String,
    },
    /// A file of the session's project.
    File {
        /// Project-relative path.
        #[schemars(length(min = 1, max = limits::MAX_TAB_PATH_CHARS), pattern(RELATIVE_FILE_PATH))]
        path: String,
    },
    /// A blank tab.
    New {},
    /// A folder view of the session's project: its root, or the folder at `path`.
    Workspace {
        /// Project-relative folder path; absent: the project's root.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1, max = limits::MAX_TAB_PATH_CHARS), pattern(RELATIVE_FILE_PATH))]
        path: Option<String>,
    },
}

impl Check for OpenTab {
    fn check(&self) -> Result<(), String> {
        match self {
            Self::Web { url } if !web_url(url) => Err(
                "url: a full http(s) URL with a host name or IPv4 address and no credentials"
                    .into(),
            ),
            Self::Web { url } => at_most("url", url, limits::MAX_URL_CHARS),
            Self::File { path } if !relative_file_path(path) => Err(
                "path: a file path relative to the project folder, without `..` and naming a file"
                    .into(),
            ),
            Self::File { path } => at_most("path", path, limits::MAX_TAB_PATH_CHARS),
            Self::New {} | Self::Workspace { path: None } => Ok(()),
            Self::Workspace { path: Some(path) } if !relative_file_path(path) => Err(
                "path: a folder path relative to the project folder, without `..`; leave it out for the project's root"
                    .into(),
            ),
            Self::Workspace { path: Some(path) } => {
                at_most("path", path, limits::MAX_TAB_PATH_CHARS)
            }
        }
    }
}

/// `GET /api/sessions/{id}/folder?path=`: one folder of the session's project, for a
/// workspace tab (the same sandbox and cap as `files_list`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FolderView {
    /// The folder, relative to the project root (`.` for the root).
    pub path: String,
    /// Its entries sorted by name; links are listed, never followed.
    pub entries: Vec<FolderEntry>,
    /// Whether entries were left out because of the cap.
    pub truncated: bool,
}

/// One entry of a [`FolderView`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FolderEntry {
    /// File name.
    pub name: String,
    /// `file`, `dir`, `symlink` or `other`.
    pub kind: String,
    /// Size in bytes (files only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// `POST /api/tabs/{tabId}/move`: the person moves a tab within its session's order (a drag
/// in the tab strip, or the keyboard). The active tab does not change.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveTab {
    /// The tab's new place, 0 first. A place past the last one moves it to the end (the
    /// panel's order may have lost a tab since the person started dragging).
    #[schemars(with = "u32", range(max = limits::MAX_TABS_PER_SESSION - 1))]
    #[serde(deserialize_with = "whole_number")]
    pub index: u32,
}

/// What the index must be, said the same way however it is broken.
fn index_rule() -> String {
    format!(
        "index: a place in the session's tabs, a whole number from 0 to {}",
        limits::MAX_TABS_PER_SESSION - 1
    )
}

/// A JSON integer as JSON Schema counts one: `26.0` is `26` (a schema-valid body is not
/// refused for its spelling); a fraction, a negative or a huge number is not.
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let n = f64::deserialize(d)?;
    if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) {
        // Whole and in range: the conversion is exact.
        Ok(n as u32)
    } else {
        Err(serde::de::Error::custom(index_rule()))
    }
}

impl Check for MoveTab {
    fn check(&self) -> Result<(), String> {
        if usize::try_from(self.index).is_ok_and(|i| i < limits::MAX_TABS_PER_SESSION) {
            Ok(())
        } else {
            Err(index_rule())
        }
    }
}

/// `POST /api/tabs/{tabId}/navigate`: the person takes a tab somewhere else in place, as a
/// browser's address box, back, forward and reload do. The tab keeps its ID and its place.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "to", rename_all = "snake_case", deny_unknown_fields)]
pub enum NavigateTab {
    /// A web tab loads this address; a blank tab becomes a web tab showing it.
    Address {
        /// A full http(s) URL without credentials.
        #[schemars(length(min = 1, max = limits::MAX_URL_CHARS), pattern(WEB_URL))]
        url: String,
    },
    /// A folder tab shows another folder of the session's project.
    Folder {
        /// Project-relative folder path; absent: the project's root.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1, max = limits::MAX_TAB_PATH_CHARS), pattern(RELATIVE_FILE_PATH))]
        path: Option<String>,
    },
    /// A page of Wisp's browser goes one entry back in its history.
    Back {},
    /// A page of Wisp's browser goes one entry forward in its history.
    Forward {},
    /// A page of Wisp's browser loads again; a file or folder tab is read again.
    Reload {},
}

impl Check for NavigateTab {
    fn check(&self) -> Result<(), String> {
        match self {
            Self::Address { url } => OpenTab::Web { url: url.clone() }.check(),
            Self::Folder { path } => OpenTab::Workspace { path: path.clone() }.check(),
            Self::Back {} | Self::Forward {} | Self::Reload {} => Ok(()),
        }
    }
}

/// `DELETE /api/tabs/{tabId}`: what happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CloseStatus {
    /// Gone.
    Closed,
    /// The page may ask first (`beforeunload`, a `dialog` event); the tab list says the end.
    Closing,
}

/// `DELETE /api/tabs/{tabId}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabClosed {
    /// Closed at once, or closing.
    pub status: CloseStatus,
}

/// `POST /api/tabs/{tabId}/front`: the page was brought to the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FrontStatus {
    /// The browser was asked to show the page in front of its window (the desktop's window
    /// manager decides whether that window comes up).
    Front,
}

/// `POST /api/tabs/{tabId}/front`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabFront {
    /// Always `front`.
    pub status: FrontStatus,
}

/// What a dialog asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DialogKind {
    /// The agent wants to close a web tab: may it (default: keep)?
    CloseConfirm,
    /// The page asks before it is left (`beforeunload`).
    Beforeunload,
}

/// The SSE event `dialog` of a session: answer with `POST /api/dialogs/{dialogId}`.
/// Announced again when the session's event stream (re)connects while it waits for the
/// answer (a close confirmation keeps the tab after 5 minutes unanswered); never stored.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dialog {
    /// The session.
    pub session_id: String,
    /// Its ID.
    #[schemars(pattern(DIALOG_ID))]
    pub dialog_id: String,
    /// What it asks.
    pub kind: DialogKind,
    /// The tab it is about.
    pub tab_id: String,
    /// What to show (for `beforeunload`, the page's own text: untrusted).
    pub message: String,
}

/// `POST /api/dialogs/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerDialog {
    /// The person's choice: true closes or leaves, false keeps.
    pub accept: bool,
}

impl Check for AnswerDialog {
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// The SSE event `tabs` of a session: its tab list changed; read it again.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabsChanged {
    /// The session.
    pub session_id: String,
}

/// The SSE event `open_ticket` of a session (WEB-03): the person approved `open_webpage`;
/// claim the ticket with `POST /api/tickets/{ticketId}/claim`, then acknowledge it once the
/// tab is shown. Announced again when the session's event stream (re)connects while the
/// ticket waits for its claim; never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenTicket {
    /// The one-time ticket.
    #[schemars(pattern(TICKET_ID))]
    pub ticket_id: String,
    /// The approved URL.
    pub url: String,
}

/// `POST /api/tickets/{id}/claim`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimTicket {
    /// The session the claiming UI shows; a ticket of another session is refused and void.
    #[schemars(pattern(crate::SESSION_ID))]
    pub session_id: String,
}

impl Check for ClaimTicket {
    fn check(&self) -> Result<(), String> {
        let hex = self.session_id.strip_prefix("s_").unwrap_or("");
        if hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(())
        } else {
            Err("sessionId: a session ID (s_ and 32 hex digits)".into())
        }
    }
}

/// `POST /api/tickets/{id}/claim`: the tab that now shows the URL (active in its session).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketClaimed {
    /// The session's web tab, reused or opened.
    #[schemars(pattern(TAB_ID))]
    pub tab_id: String,
    /// The URL it was asked to show.
    pub url: String,
}

/// What an acknowledged ticket became.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    /// The open request was accepted by the UI (not: the page loaded).
    Accepted,
}

/// `POST /api/tickets/{id}/ack`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketAcked {
    /// Always `accepted`.
    pub status: TicketStatus,
}

/// What live subscribers receive about tabs (never stored: tickets and dialogs live in
/// memory only, WEB-06).
#[derive(Debug, Clone)]
pub enum TabLive {
    /// A dialog for the person.
    Dialog(Dialog),
    /// A session's tabs changed.
    Changed(TabsChanged),
    /// An approved `open_webpage` for the session's UI to claim.
    OpenTicket {
        /// The session.
        session_id: String,
        /// The event's data.
        ticket: OpenTicket,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_index_is_a_whole_number_in_range_however_spelled() {
        let index = |body: &str| serde_json::from_str::<MoveTab>(body).map(|m| m.index);
        assert_eq!(index(r#"{"index": 26}"#).unwrap(), 26);
        assert_eq!(index(r#"{"index": 26.0}"#).unwrap(), 26);
        assert_eq!(index(r#"{"index": 0}"#).unwrap(), 0);
        for bad in [
            r#"{"index": 1.5}"#,
            r#"{"index": -1}"#,
            r#"{"index": 1e300}"#,
            r#"{"index": "1"}"#,
            r#"{"index": null}"#,
            r#"{}"#,
            r#"{"index": 1, "before": null}"#,
        ] {
            assert!(index(bad).is_err(), "{bad}");
        }
        assert!(MoveTab { index: 49 }.check().is_ok());
        let e = MoveTab { index: 50 }.check().unwrap_err();
        assert!(e.contains("0 to 49"), "{e}");
    }

    #[test]
    fn web_urls_are_shaped_as_the_pattern_says() {
        for good in [
            "http://127.0.0.1:8080/a?b#c",
            "https://example.com",
            "https://a-b.example.org:65535/x",
            "http://localhost:1",
            "http://0.0.0.0/",
        ] {
            assert!(web_url(good), "{good}");
        }
        for bad in [
            "ftp://example.com",
            "http://",
            "http://u:p@example.com/",
            "http://1.2.3.4.5/",
            "http://256.1.1.1/",
            "http://01.1.1.1/",
            "http://a..b/",
            "http://example.com:65536/",
            "http://example.com:01234/",
            "http://[::1]/",
            "http://example.com/a b",
            "http://exa_mple.com/",
            "http://99999/",
            "HTTP://example.com",
        ] {
            assert!(!web_url(bad), "{bad}");
        }
    }
}
