//! Every limit of the preview browser, each with the requirement it serves.

use std::time::Duration;

/// WEB-22: visible text returned by one read, in characters (Unicode scalar values).
pub const MAX_TEXT_CHARS: usize = 24_000;
/// WEB-22: links returned by one read (distinct URLs, query and fragment removed).
pub const MAX_LINKS: usize = 60;
/// WEB-22: text nodes the extraction visits before it stops.
pub const MAX_TEXT_NODES: usize = 20_000;
/// WEB-23: the smallest text, in CSS pixels after transforms and zoom, the extraction counts
/// as visible. Below 4 px a line of text is a smudge no one can read, and honest pages do not
/// set body text under about 8 px; `font-size: 0` and `1px` are ways of hiding text.
pub const MIN_FONT_PX: f64 = 4.0;
/// WEB-23: the least contrast ratio (WCAG's relative luminance, 1 to 21) between text and
/// what is painted behind it for the text to count as visible. 1.5:1 is about `#d0d0d0` on
/// white: faint, but a person can read it; white on white is 1:1. Behind a background image
/// the contrast cannot be known and the text is kept.
pub const MIN_CONTRAST: f64 = 1.5;
/// A link's own text, in characters; longer text is cut (a link is a pointer, not content).
pub const MAX_LINK_TEXT_CHARS: usize = 200;
/// A URL the preview accepts or returns, in characters (WEB-02 allows 2,048 for open_webpage).
pub const MAX_URL_CHARS: usize = 2_048;
/// A page title as reported, in characters.
pub const MAX_TITLE_CHARS: usize = 300;
/// The file name a page suggested for a download it started (every one is refused), as the
/// tab reports it, in characters: enough for any real file name, and the page's own text.
pub const MAX_DOWNLOAD_NAME_CHARS: usize = 255;

/// One DevTools message from the browser, in bytes. A page can make the browser send large
/// messages (a huge title, an event with a big payload); past this the connection is dropped
/// rather than buffering without bound.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// Events buffered for a slow subscriber before it starts missing them.
pub const EVENT_BUFFER: usize = 1_024;

/// How long the browser may take to start and answer its first command.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one DevTools command may take before it fails (a hung renderer must not hang a run).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `Browser.close` may take before the process group is killed.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// How often a tab's history is asked for after a commit before giving up (right after a commit
/// that changed the page's process the page is briefly "not attached"), and how far apart.
pub const HISTORY_TRIES: u32 = 20;
/// See [`HISTORY_TRIES`].
pub const HISTORY_RETRY: Duration = Duration::from_millis(50);
/// How long a close waits for the page's `beforeunload` dialog to appear or the page to go.
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a `beforeunload` dialog waits for the person's answer; then the page is kept.
pub const DIALOG_TIMEOUT: Duration = Duration::from_secs(300);

/// UI-07: the live view's JPEG quality (0..100): legible in a side panel, a few dozen KB.
pub const SCREEN_JPEG_QUALITY: u8 = 60;
/// UI-07: the live view's largest frame, in pixels (Chromium scales the page down to fit).
pub const SCREEN_MAX_WIDTH: u32 = 1_024;
/// UI-07: see [`SCREEN_MAX_WIDTH`].
pub const SCREEN_MAX_HEIGHT: u32 = 768;
/// UI-07: the smallest viewport a headless page is fitted to (the live view's panel, in CSS
/// pixels); a smaller panel shows the page scaled down. The largest is the frame's
/// ([`SCREEN_MAX_WIDTH`], [`SCREEN_MAX_HEIGHT`]), which a panel larger than that scales up.
pub const VIEW_MIN_WIDTH: u32 = 320;
/// UI-07: see [`VIEW_MIN_WIDTH`].
pub const VIEW_MIN_HEIGHT: u32 = 200;
/// UI-07: at most two frames a second are kept per tab: the least time between two kept
/// frames. The browser's acknowledgement is held back as long, which is what throttles it
/// (it sends a new frame only for an acknowledged one).
pub const SCREEN_FRAME_INTERVAL: Duration = Duration::from_millis(500);
/// A tab's screencast stops when nobody asked for a frame this long, and its frame is
/// dropped: an unwatched tab costs nothing.
pub const SCREEN_IDLE: Duration = Duration::from_secs(15);
/// How long the request that starts a tab's screencast waits for its first frame.
pub const SCREEN_FIRST_FRAME_WAIT: Duration = Duration::from_secs(3);
/// The largest frame kept, in bytes; a larger one is dropped (a frame of at most
/// 1,024 × 768 pixels at quality 60 is far smaller).
pub const MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;
