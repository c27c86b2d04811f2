//! The browser and its tabs: lazy launch, page targets attached as flattened sessions, the
//! state of each tab (URL, title, load state, last error, navigation version) kept from the
//! page's events, navigation on the person's or an approved request, the fixed read, and
//! closing with the page's `beforeunload` answered only by the caller.
//!
//! Each tab also keeps the address its page was last opened at by its owner
//! ([`TabInfo::opened_url`]): what the caller navigated it to, or what the person typed into
//! the browser window. A page that moves itself (an HTTP redirect, a meta refresh, a script
//! setting `location`, a link) never changes it, so the caller can tell where the page went
//! from where it was sent. Every download is refused, and the tab counts what its pages tried.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::PreviewError;
use crate::cdp::{CdpError, Connection, Event};
use crate::extract::{self, PageText, cut_chars};
use crate::limits::{
    CLOSE_TIMEOUT, COMMAND_TIMEOUT, DIALOG_TIMEOUT, EVENT_BUFFER, HISTORY_RETRY, HISTORY_TRIES,
    LAUNCH_TIMEOUT, MAX_DOWNLOAD_NAME_CHARS, MAX_TITLE_CHARS, SCREEN_IDLE, SHUTDOWN_GRACE,
};
use crate::process::{BrowserProcess, Display, LaunchConfig};
use crate::screen::{self, Screen};

/// A tab of this browser (stable for the browser's lifetime; never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TabHandle(pub u64);

/// Where a tab's page is in loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadState {
    /// Loading the current navigation.
    Loading,
    /// Its load event fired (or it stopped loading).
    Loaded,
    /// The last navigation failed; see [`TabInfo::error`].
    Failed,
}

/// What the Host may know of a tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabInfo {
    /// The page's URL as the browser reports it (full: the Host strips it for the model).
    pub url: String,
    /// The page's title (cut at [`MAX_TITLE_CHARS`]).
    pub title: String,
    /// Loading, loaded or failed.
    pub load_state: LoadState,
    /// The last load error, if the last navigation failed.
    pub error: Option<String>,
    /// Changes on every navigation and reload (WEB-17, WEB-18).
    pub nav_version: u64,
    /// The tab is gone.
    pub closed: bool,
    /// Where this tab's page was last opened by its owner: the URL last given to
    /// [`Browser::navigate`], or what the person typed into the browser window's address bar
    /// (or chose as a bookmark), as the browser recorded it before any redirect. Navigations
    /// the page makes (redirects, refreshes, scripts, links, history moves) leave it as it
    /// is; a navigation the browser started that is not confirmed as the person's clears it.
    /// `None`: nobody vouched for any address of this tab.
    pub opened_url: Option<String>,
    /// Downloads this tab's pages started; every one was refused and nothing was saved.
    pub blocked_downloads: Option<BlockedDownloads>,
}

/// The downloads a tab's pages tried since it was last navigated to an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedDownloads {
    /// How many.
    pub count: u32,
    /// The file name the page suggested for the latest one (the page's own text, cut at
    /// [`MAX_DOWNLOAD_NAME_CHARS`]).
    pub last_file_name: String,
}

/// What happened to a close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseOutcome {
    /// The page is closed.
    Closed,
    /// The person kept the page at its `beforeunload` dialog (or did not answer in time).
    Kept,
}

/// A page's dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogKind {
    /// "Leave site?" before a close, reload or navigation.
    BeforeUnload,
}

/// Something the Host shows the person or reflects in its tab list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrowserEvent {
    /// A tab's state changed (see [`Browser::tab_info`]).
    Changed(TabHandle),
    /// A page asks the person a question; answer with [`Browser::answer_dialog`].
    Dialog {
        /// The tab.
        tab: TabHandle,
        /// Which dialog.
        kind: DialogKind,
        /// The page's message (untrusted text; Chromium shows a fixed one for `beforeunload`).
        message: String,
    },
    /// A tab went away (closed here or by the person in the browser window).
    Closed(TabHandle),
}

/// Why a read was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// No such tab, or it is closed.
    #[error("the tab is closed")]
    Closed,
    /// It navigated or reloaded since it was listed (or during the read).
    #[error("the tab navigated since it was listed; list the tabs again")]
    Changed,
    /// Its page is still loading.
    #[error("the page is still loading; try again when it has loaded")]
    Loading,
    /// Its last navigation failed.
    #[error("the page failed to load: {0}")]
    LoadFailed(String),
    /// The browser failed.
    #[error("{0}")]
    Browser(String),
}

#[derive(Debug)]
pub(crate) struct TabState {
    pub(crate) target_id: String,
    pub(crate) session_id: String,
    frame_id: String,
    pub(crate) info: TabInfo,
    /// Its live view.
    pub(crate) screen: Screen,
    /// Who is vouching for the next navigation (see [`TabInfo::opened_url`]).
    trust: Trust,
    /// A navigation was asked for and the browser has not yet said it began: the previous
    /// page's own "stopped loading" can still be on its way and must not mark this one loaded.
    awaiting_start: bool,
}

/// What tells the owner's and the person's navigations from the page's own.
#[derive(Debug, Default)]
struct Trust {
    /// The page asked for a navigation of this tab (`Page.frameRequestedNavigation`): the
    /// navigation that starts next is the page's.
    page_requested: bool,
    /// [`Browser::navigate`] sent one: the browser-started navigation that starts next is it.
    own_requested: bool,
    /// Bumped whenever [`TabInfo::opened_url`] is set or cleared by a new navigation, so a
    /// history check begun before it cannot apply an older answer.
    generation: u64,
    /// The newest history entry this tab has had (entry IDs only grow): a navigation back to
    /// an older entry vouches for nothing.
    newest_entry: i64,
    /// The latest download counted, so the page's and the browser's report of one count once.
    last_download: Option<String>,
}

/// History-entry transitions only the browser itself gives, for the person: the address bar,
/// a bookmark, a keyword search (Wisp's own `Page.navigate` is `typed` too). Whatever a page
/// does, its navigations are `link`, `form_submit`, `reload` or a subframe's.
const PERSON_TRANSITIONS: &[&str] = &[
    "typed",
    "address_bar",
    "auto_bookmark",
    "generated",
    "keyword",
    "keyword_generated",
];

pub(crate) struct Inner {
    pub(crate) conn: Arc<Connection>,
    /// Whether its pages have windows a person sees (then their size is the person's).
    pub(crate) display: Display,
    process: Mutex<Option<BrowserProcess>>,
    pid: Option<u32>,
    pub(crate) tabs: Mutex<HashMap<TabHandle, TabState>>,
    events: broadcast::Sender<BrowserEvent>,
    next_tab: AtomicU64,
    /// Woken whenever a tab's live view keeps a new frame.
    pub(crate) frame_arrived: tokio::sync::Notify,
    /// How long an unwatched screencast runs on ([`SCREEN_IDLE`]; shorter in tests).
    pub(crate) screen_idle: Duration,
    /// How long a close waits for its page to go ([`CLOSE_TIMEOUT`]; shorter in tests).
    close_timeout: Duration,
}

/// How long the browser is waited for: the limits of `limits.rs`, shorter in tests.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Waits {
    /// How long an unwatched screencast runs on.
    pub(crate) screen_idle: Duration,
    /// How long a command waits for its answer.
    pub(crate) command: Duration,
    /// How long a close waits for its page to go (no dialog open).
    pub(crate) close: Duration,
}

impl Default for Waits {
    fn default() -> Self {
        Self {
            screen_idle: SCREEN_IDLE,
            command: COMMAND_TIMEOUT,
            close: CLOSE_TIMEOUT,
        }
    }
}

/// A running browser. Cheap to clone; dropping the last clone kills its process group.
#[derive(Clone)]
pub struct Browser {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A command's failure; one that was sent and never answered stays distinguishable
/// ([`PreviewError::Unanswered`]).
pub(crate) fn browser_err(e: CdpError) -> PreviewError {
    if e.answer_lost() {
        PreviewError::Unanswered(e.to_string())
    } else {
        PreviewError::Browser(e.to_string())
    }
}

impl Browser {
    /// Starts the browser and waits until it answers.
    pub async fn launch(config: &LaunchConfig) -> Result<Self, PreviewError> {
        Self::launch_with(config, Waits::default()).await
    }

    /// [`Browser::launch`] with other waits than the limits.
    pub(crate) async fn launch_with(
        config: &LaunchConfig,
        waits: Waits,
    ) -> Result<Self, PreviewError> {
        let (process, to_browser, from_browser) = BrowserProcess::spawn(config)?;
        let conn = Connection::start(to_browser, from_browser, waits.command);
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let pid = process.pid();
        let inner = Arc::new(Inner {
            conn: conn.clone(),
            display: config.display,
            process: Mutex::new(Some(process)),
            pid,
            tabs: Mutex::default(),
            events,
            next_tab: AtomicU64::new(1),
            frame_arrived: tokio::sync::Notify::new(),
            screen_idle: waits.screen_idle,
            close_timeout: waits.close,
        });
        tokio::spawn(monitor(Arc::downgrade(&inner), conn.subscribe()));
        let ready = tokio::time::timeout(
            LAUNCH_TIMEOUT,
            conn.call(
                "Target.setDiscoverTargets",
                json!({ "discover": true }),
                None,
            ),
        )
        .await;
        match ready {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(PreviewError::Launch(e.to_string())),
            Err(_) => {
                return Err(PreviewError::Launch(
                    "the browser did not answer in time".into(),
                ));
            }
        }
        // No page of the preview saves a file on this computer: an approved page could
        // otherwise drop a script into the Downloads folder without anyone asking. The events
        // say which tab tried (`Page.downloadWillBegin`, `Browser.downloadWillBegin`).
        conn.call(
            "Browser.setDownloadBehavior",
            json!({ "behavior": "deny", "eventsEnabled": true }),
            None,
        )
        .await
        .map_err(|e| PreviewError::Launch(format!("the browser cannot refuse downloads: {e}")))?;
        Ok(Self { inner })
    }

    /// The browser's process id (its process group id too).
    pub fn pid(&self) -> Option<u32> {
        self.inner.pid
    }

    /// Whether the browser is still connected.
    pub fn is_alive(&self) -> bool {
        !self.inner.conn.is_closed()
    }

    /// The tabs' events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<BrowserEvent> {
        self.inner.events.subscribe()
    }

    /// Opens a new, blank tab in a window of its own: Chromium paints only the front tab of a
    /// window, so tabs sharing one would leave every live view but one blank (headless too),
    /// and bringing a tab to the front raises exactly its window.
    pub async fn create_tab(&self) -> Result<TabHandle, PreviewError> {
        let conn = &self.inner.conn;
        let created = conn
            .call(
                "Target.createTarget",
                json!({ "url": "about:blank", "newWindow": true }),
                None,
            )
            .await
            .map_err(browser_err)?;
        let target_id = str_field(&created, "targetId")?;
        let attached = conn
            .call(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
                None,
            )
            .await
            .map_err(browser_err)?;
        let session_id = str_field(&attached, "sessionId")?;
        let handle = TabHandle(self.inner.next_tab.fetch_add(1, Ordering::Relaxed));
        lock(&self.inner.tabs).insert(
            handle,
            TabState {
                target_id: target_id.clone(),
                session_id: session_id.clone(),
                frame_id: target_id,
                info: TabInfo {
                    url: "about:blank".into(),
                    title: String::new(),
                    load_state: LoadState::Loaded,
                    error: None,
                    nav_version: 1,
                    closed: false,
                    opened_url: None,
                    blocked_downloads: None,
                },
                screen: Screen::default(),
                trust: Trust::default(),
                awaiting_start: false,
            },
        );
        let session = Some(session_id.as_str());
        conn.call("Page.enable", json!({}), session)
            .await
            .map_err(browser_err)?;
        let tree = conn
            .call("Page.getFrameTree", json!({}), session)
            .await
            .map_err(browser_err)?;
        if let Some(frame) = tree.pointer("/frameTree/frame/id").and_then(Value::as_str)
            && let Some(tab) = lock(&self.inner.tabs).get_mut(&handle)
        {
            tab.frame_id = frame.to_owned();
        }
        Ok(handle)
    }

    /// The tab's state, or `None` for a tab this browser never had.
    pub fn tab_info(&self, tab: TabHandle) -> Option<TabInfo> {
        lock(&self.inner.tabs).get(&tab).map(|t| t.info.clone())
    }

    fn session(&self, tab: TabHandle) -> Result<String, PreviewError> {
        match lock(&self.inner.tabs).get(&tab) {
            Some(t) if !t.info.closed => Ok(t.session_id.clone()),
            _ => Err(PreviewError::TabClosed),
        }
    }

    /// Marks a navigation as requested: the version changes before the page does, so a read
    /// bound to the old page can never see the new one.
    fn begin_navigation(&self, tab: TabHandle) {
        if let Some(t) = lock(&self.inner.tabs).get_mut(&tab) {
            t.info.nav_version += 1;
            t.info.load_state = LoadState::Loading;
            t.info.error = None;
            t.awaiting_start = true;
        }
        let _ = self.inner.events.send(BrowserEvent::Changed(tab));
    }

    fn fail_navigation(&self, tab: TabHandle, error: String) {
        if let Some(t) = lock(&self.inner.tabs).get_mut(&tab) {
            t.info.load_state = LoadState::Failed;
            t.info.error = Some(error);
            // It never started: the next browser-started navigation is not this one.
            t.trust.own_requested = false;
            t.awaiting_start = false;
        }
        let _ = self.inner.events.send(BrowserEvent::Changed(tab));
    }

    /// Navigates the tab (the request only: loading is reported by the tab's state). The
    /// caller vouches for `url`: it becomes the tab's [`TabInfo::opened_url`], whatever the
    /// page does next, and the tab's count of blocked downloads starts again.
    pub async fn navigate(&self, tab: TabHandle, url: &str) -> Result<u64, PreviewError> {
        let session = self.session(tab)?;
        if let Some(t) = lock(&self.inner.tabs).get_mut(&tab) {
            t.info.opened_url = Some(url.to_owned());
            t.info.blocked_downloads = None;
            t.trust.own_requested = true;
            t.trust.page_requested = false;
            t.trust.generation += 1;
        }
        self.begin_navigation(tab);
        let answer = self
            .inner
            .conn
            .call("Page.navigate", json!({ "url": url }), Some(&session))
            .await
            .map_err(browser_err)?;
        if let Some(error) = answer.get("errorText").and_then(Value::as_str) {
            self.fail_navigation(tab, error.to_owned());
        }
        self.version(tab)
    }

    /// Reloads the tab.
    pub async fn reload(&self, tab: TabHandle) -> Result<u64, PreviewError> {
        let session = self.session(tab)?;
        self.begin_navigation(tab);
        self.inner
            .conn
            .call("Page.reload", json!({}), Some(&session))
            .await
            .map_err(browser_err)?;
        self.version(tab)
    }

    /// Goes one entry back in the page's own history; an error when there is none.
    pub async fn back(&self, tab: TabHandle) -> Result<u64, PreviewError> {
        self.go(tab, -1).await
    }

    /// Goes one entry forward in the page's own history; an error when there is none.
    pub async fn forward(&self, tab: TabHandle) -> Result<u64, PreviewError> {
        self.go(tab, 1).await
    }

    async fn go(&self, tab: TabHandle, delta: i64) -> Result<u64, PreviewError> {
        let session = self.session(tab)?;
        // Only a question: without its answer nothing was asked of the page yet.
        let history = self
            .inner
            .conn
            .call("Page.getNavigationHistory", json!({}), Some(&session))
            .await
            .map_err(|e| PreviewError::Browser(e.to_string()))?;
        let current = history
            .get("currentIndex")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let entries = history
            .get("entries")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let target = usize::try_from(current + delta)
            .ok()
            .and_then(|i| entries.get(i))
            // The blank page every tab starts on is not part of the page's history.
            .filter(|e| e.get("url").and_then(Value::as_str) != Some("about:blank"));
        let entry = target
            .and_then(|e| e.get("id"))
            .and_then(Value::as_i64)
            .ok_or(PreviewError::NoHistory(if delta < 0 {
                "back"
            } else {
                "forward"
            }))?;
        self.begin_navigation(tab);
        self.inner
            .conn
            .call(
                "Page.navigateToHistoryEntry",
                json!({ "entryId": entry }),
                Some(&session),
            )
            .await
            .map_err(browser_err)?;
        self.version(tab)
    }

    fn version(&self, tab: TabHandle) -> Result<u64, PreviewError> {
        self.tab_info(tab)
            .map(|i| i.nav_version)
            .ok_or(PreviewError::TabClosed)
    }

    /// Waits until the tab is no longer loading (at most `timeout`); its state then.
    pub async fn wait_settled(&self, tab: TabHandle, timeout: Duration) -> Option<TabInfo> {
        let mut events = self.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let info = self.tab_info(tab)?;
            if info.closed || info.load_state != LoadState::Loading {
                return Some(info);
            }
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) => return Some(info),
                Ok(Err(broadcast::error::RecvError::Closed)) => return Some(info),
                Ok(_) => {}
            }
        }
    }

    /// Runs the fixed extraction on the tab if its navigation version is still `version`;
    /// a navigation before or during the read refuses it (WEB-18).
    pub async fn read(&self, tab: TabHandle, version: u64) -> Result<PageText, ReadError> {
        let (session, frame) = {
            let tabs = lock(&self.inner.tabs);
            let t = tabs
                .get(&tab)
                .filter(|t| !t.info.closed)
                .ok_or(ReadError::Closed)?;
            if t.info.nav_version != version {
                return Err(ReadError::Changed);
            }
            match t.info.load_state {
                LoadState::Loading => return Err(ReadError::Loading),
                LoadState::Failed => {
                    return Err(ReadError::LoadFailed(
                        t.info.error.clone().unwrap_or_default(),
                    ));
                }
                LoadState::Loaded => {}
            }
            (t.session_id.clone(), t.frame_id.clone())
        };
        let conn = &self.inner.conn;
        let err = |e: CdpError| ReadError::Browser(e.to_string());
        let world = conn
            .call(
                "Page.createIsolatedWorld",
                json!({ "frameId": frame, "worldName": "wisp-read", "grantUniveralAccess": false }),
                Some(&session),
            )
            .await
            .map_err(err)?;
        let context = world
            .get("executionContextId")
            .and_then(Value::as_i64)
            .ok_or_else(|| ReadError::Browser("no isolated world".into()))?;
        let answer = conn
            .call(
                "Runtime.evaluate",
                json!({
                    "expression": extract::source(),
                    "contextId": context,
                    "returnByValue": true,
                    "silent": true,
                }),
                Some(&session),
            )
            .await
            .map_err(err)?;
        if answer.get("exceptionDetails").is_some() {
            return Err(ReadError::Browser(
                "the extraction failed on this page".into(),
            ));
        }
        let still = self.tab_info(tab).ok_or(ReadError::Closed)?;
        if still.closed {
            return Err(ReadError::Closed);
        }
        if still.nav_version != version {
            return Err(ReadError::Changed);
        }
        let value = answer
            .pointer("/result/value")
            .cloned()
            .unwrap_or(Value::Null);
        extract::parse(value)
            .ok_or_else(|| ReadError::Browser("unexpected extraction result".into()))
    }

    /// Closes the tab with the page's `beforeunload`: when the page asks, a
    /// [`BrowserEvent::Dialog`] goes out and the caller's [`Browser::answer_dialog`] decides.
    pub async fn close_tab(&self, tab: TabHandle) -> Result<CloseOutcome, PreviewError> {
        let (session, target) = {
            let tabs = lock(&self.inner.tabs);
            let t = tabs
                .get(&tab)
                .filter(|t| !t.info.closed)
                .ok_or(PreviewError::TabClosed)?;
            (t.session_id.clone(), t.target_id.clone())
        };
        let mut events = self.inner.conn.subscribe();
        let conn = self.inner.conn.clone();
        let close_session = session.clone();
        // Page.close may answer only after the dialog is handled: do not wait for it here.
        tokio::spawn(async move {
            let _ = conn
                .call("Page.close", json!({}), Some(&close_session))
                .await;
        });
        let mut deadline = tokio::time::Instant::now() + self.inner.close_timeout;
        let mut dialog_open = false;
        loop {
            let event = match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Ok(event)) => event,
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) => return Err(PreviewError::Gone),
                Err(_) if dialog_open => {
                    // Nobody answered: keep the page, the safe default.
                    let _ = self.answer_dialog(tab, false).await;
                    return Ok(CloseOutcome::Kept);
                }
                // `Page.close` went out: the page may close yet, or may have closed unseen.
                Err(_) => {
                    return Err(PreviewError::Unanswered(
                        "the page did not close in time".into(),
                    ));
                }
            };
            let ours = event.session.as_deref() == Some(session.as_str());
            match event.method.as_str() {
                "Target.targetDestroyed" | "Target.detachedFromTarget" => {
                    let id = event.params.get("targetId").and_then(Value::as_str);
                    let sid = event.params.get("sessionId").and_then(Value::as_str);
                    if id == Some(target.as_str()) || sid == Some(session.as_str()) {
                        self.mark_closed(tab);
                        return Ok(CloseOutcome::Closed);
                    }
                }
                "Page.javascriptDialogOpening" if ours => {
                    dialog_open = true;
                    deadline = tokio::time::Instant::now() + DIALOG_TIMEOUT;
                }
                "Page.javascriptDialogClosed" if ours => {
                    dialog_open = false;
                    if event.params.get("result").and_then(Value::as_bool) != Some(true) {
                        return Ok(CloseOutcome::Kept);
                    }
                    deadline = tokio::time::Instant::now() + self.inner.close_timeout;
                }
                _ => {}
            }
        }
    }

    /// Answers the tab's open dialog with the person's choice.
    pub async fn answer_dialog(&self, tab: TabHandle, accept: bool) -> Result<(), PreviewError> {
        let session = self.session(tab)?;
        self.inner
            .conn
            .call(
                "Page.handleJavaScriptDialog",
                json!({ "accept": accept }),
                Some(&session),
            )
            .await
            .map(|_| ())
            .map_err(browser_err)
    }

    fn mark_closed(&self, tab: TabHandle) {
        mark_closed(&self.inner, tab);
    }

    /// Closes the browser (asks politely, then kills its process group).
    pub async fn shutdown(&self) {
        let _ = tokio::time::timeout(
            SHUTDOWN_GRACE,
            self.inner.conn.call("Browser.close", json!({}), None),
        )
        .await;
        let process = lock(&self.inner.process).take();
        if let Some(process) = process {
            process.stop(SHUTDOWN_GRACE).await;
        }
        tracing::info!(pid = ?self.inner.pid, "browser stopped");
    }

    /// How many of this browser's tabs are open (created and not closed).
    pub fn open_tabs(&self) -> usize {
        lock(&self.inner.tabs)
            .values()
            .filter(|t| !t.info.closed)
            .count()
    }

    /// Closes the tab without running its `beforeunload` (`Target.closeTarget`): for the pages
    /// of a deleted session, where nobody is left to answer the page's question.
    pub async fn discard_tab(&self, tab: TabHandle) -> Result<(), PreviewError> {
        let target = match lock(&self.inner.tabs).get(&tab) {
            Some(t) if !t.info.closed => t.target_id.clone(),
            _ => return Err(PreviewError::TabClosed),
        };
        self.inner
            .conn
            .call("Target.closeTarget", json!({ "targetId": target }), None)
            .await
            .map_err(browser_err)?;
        self.mark_closed(tab);
        Ok(())
    }

    /// A real click at the page's top-left corner, for other crates' tests only (feature
    /// `test-support`): Chromium runs `beforeunload` only on a page the person interacted with.
    #[cfg(feature = "test-support")]
    pub async fn click_for_tests(&self, tab: TabHandle) -> Result<(), PreviewError> {
        let session = self.session(tab)?;
        for kind in ["mousePressed", "mouseReleased"] {
            let click = json!({ "type": kind, "x": 5, "y": 5, "button": "left", "clickCount": 1 });
            self.inner
                .conn
                .call("Input.dispatchMouseEvent", click, Some(&session))
                .await
                .map_err(browser_err)?;
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) async fn raw_call(
        &self,
        tab: TabHandle,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        let session = self.session(tab).map_err(|_| CdpError::Closed)?;
        self.inner.conn.call(method, params, Some(&session)).await
    }

    /// Applies `method` as if the tab's page had just reported it, about its main frame.
    #[cfg(test)]
    pub(crate) fn inject_main_frame_event(&self, tab: TabHandle, method: &str) {
        let (session, frame) = {
            let tabs = lock(&self.inner.tabs);
            let t = &tabs[&tab];
            (t.session_id.clone(), t.frame_id.clone())
        };
        let event = Event {
            method: method.to_owned(),
            params: json!({ "frameId": frame }),
            session: Some(session),
        };
        apply(&self.inner, &event);
    }

    /// As [`Browser::navigate`] does first, before the browser hears of the navigation.
    #[cfg(test)]
    pub(crate) fn mark_navigation_requested(&self, tab: TabHandle) {
        self.begin_navigation(tab);
    }
}

fn mark_closed(inner: &Inner, tab: TabHandle) {
    let was_open = lock(&inner.tabs)
        .get_mut(&tab)
        .map(|t| {
            t.screen.clear();
            !std::mem::replace(&mut t.info.closed, true)
        })
        .unwrap_or(false);
    if was_open {
        let _ = inner.events.send(BrowserEvent::Closed(tab));
    }
}

fn str_field(value: &Value, name: &str) -> Result<String, PreviewError> {
    value
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| PreviewError::Browser(format!("the browser's answer has no {name}")))
}

/// Reads the page's title from its current history entry: headless Chromium does not always
/// report it in `Target.targetInfoChanged`.
async fn refresh_title(inner: std::sync::Weak<Inner>, tab: TabHandle, session: String) {
    let Some(conn) = inner.upgrade().map(|i| i.conn.clone()) else {
        return;
    };
    let Ok(history) = conn
        .call("Page.getNavigationHistory", json!({}), Some(&session))
        .await
    else {
        return;
    };
    let current = history
        .get("currentIndex")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let title = history
        .pointer(&format!("/entries/{current}/title"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(inner) = inner.upgrade() else { return };
    let changed = match lock(&inner.tabs).get_mut(&tab) {
        Some(t) if !title.is_empty() && !t.info.url.ends_with(title) && t.info.title != title => {
            t.info.title = cut_chars(title, MAX_TITLE_CHARS).0;
            true
        }
        _ => false,
    };
    if changed {
        let _ = inner.events.send(BrowserEvent::Changed(tab));
    }
}

/// After a page of the tab committed: if its history entry is new and of a navigation only the
/// browser starts for the person ([`PERSON_TRANSITIONS`]: Wisp's own `Page.navigate`, or the
/// address bar of the window), what was typed — the entry's `userTypedURL`, kept as it was
/// before any redirect — is where the tab was opened. A page-made entry, an old entry reached
/// through history, or an answer overtaken by a newer navigation changes nothing.
async fn confirm_opened(
    inner: std::sync::Weak<Inner>,
    tab: TabHandle,
    session: String,
    generation: u64,
) {
    let Some(conn) = inner.upgrade().map(|i| i.conn.clone()) else {
        return;
    };
    // Right after a commit that changed the page's process the page is briefly "not attached";
    // asked again a moment later, it answers.
    let mut history = None;
    for _ in 0..HISTORY_TRIES {
        match conn
            .call("Page.getNavigationHistory", json!({}), Some(&session))
            .await
        {
            Ok(h) => {
                history = Some(h);
                break;
            }
            Err(CdpError::Closed | CdpError::Unanswered(_)) => return,
            Err(_) => tokio::time::sleep(HISTORY_RETRY).await,
        }
    }
    let Some(history) = history else { return };
    let current = history
        .get("currentIndex")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let Some(entry) = history.pointer(&format!("/entries/{current}")) else {
        return;
    };
    let id = entry.get("id").and_then(Value::as_i64).unwrap_or(0);
    let transition = entry
        .get("transitionType")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let typed = entry
        .get("userTypedURL")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(inner) = inner.upgrade() else { return };
    let changed = match lock(&inner.tabs).get_mut(&tab) {
        Some(t) if t.trust.generation == generation && id > t.trust.newest_entry => {
            t.trust.newest_entry = id;
            let vouched = PERSON_TRANSITIONS.contains(&transition) && !typed.is_empty();
            if vouched && t.info.opened_url.as_deref() != Some(typed) {
                t.info.opened_url = Some(typed.to_owned());
                true
            } else {
                false
            }
        }
        _ => false,
    };
    if changed {
        let _ = inner.events.send(BrowserEvent::Changed(tab));
    }
}

/// Keeps each tab's state from the browser's events.
async fn monitor(inner: std::sync::Weak<Inner>, mut events: broadcast::Receiver<Event>) {
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(missed = n, "tab monitor fell behind");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => break,
        };
        let Some(inner) = inner.upgrade() else { break };
        apply(&inner, &event);
    }
    if let Some(inner) = inner.upgrade() {
        let tabs: Vec<TabHandle> = lock(&inner.tabs).keys().copied().collect();
        for tab in tabs {
            mark_closed(&inner, tab);
        }
    }
}

fn apply(inner: &Arc<Inner>, event: &Event) {
    let p = &event.params;
    let by_session = |session: &str| {
        lock(&inner.tabs)
            .iter()
            .find(|(_, t)| t.session_id == session)
            .map(|(h, _)| *h)
    };
    let by_target = |target: &str| {
        lock(&inner.tabs)
            .iter()
            .find(|(_, t)| t.target_id == target)
            .map(|(h, _)| *h)
    };
    let by_frame = |frame: &str| {
        lock(&inner.tabs)
            .iter()
            .find(|(_, t)| t.frame_id == frame)
            .map(|(h, _)| *h)
    };
    let tab = match (&event.session, event.method.as_str()) {
        (Some(s), _) => by_session(s),
        (None, "Target.targetInfoChanged") => p
            .pointer("/targetInfo/targetId")
            .and_then(Value::as_str)
            .and_then(by_target),
        (None, "Target.targetDestroyed" | "Target.targetCrashed") => p
            .get("targetId")
            .and_then(Value::as_str)
            .and_then(by_target),
        (None, "Target.detachedFromTarget") => p
            .get("sessionId")
            .and_then(Value::as_str)
            .and_then(by_session),
        // The page's own report (`Page.downloadWillBegin`, on its session) names the tab for
        // a download from any of its frames; the browser's names the frame only.
        (None, "Browser.downloadWillBegin") => {
            p.get("frameId").and_then(Value::as_str).and_then(by_frame)
        }
        _ => None,
    };
    let Some(tab) = tab else { return };
    let changed = {
        let mut tabs = lock(&inner.tabs);
        let Some(t) = tabs.get_mut(&tab) else { return };
        let main_frame = t.frame_id.clone();
        let main = |frame: Option<&str>| frame == Some(main_frame.as_str());
        let info = &mut t.info;
        match event.method.as_str() {
            "Target.targetInfoChanged" => {
                if let Some(url) = p.pointer("/targetInfo/url").and_then(Value::as_str) {
                    info.url = url.to_owned();
                }
                // Chromium names an untitled page by its URL (query and all), and sometimes
                // reports that name again after the real title: a title is only what the page
                // itself set.
                if let Some(title) = p.pointer("/targetInfo/title").and_then(Value::as_str)
                    && !title.is_empty()
                    && !info.url.ends_with(title)
                {
                    info.title = cut_chars(title, MAX_TITLE_CHARS).0;
                }
                true
            }
            "Page.frameRequestedNavigation"
                if main(p.get("frameId").and_then(Value::as_str))
                    && p.get("disposition").and_then(Value::as_str) == Some("currentTab") =>
            {
                t.trust.page_requested = true;
                false
            }
            "Page.frameStartedNavigating" if main(p.get("frameId").and_then(Value::as_str)) => {
                t.awaiting_start = false;
                let page_requested = std::mem::take(&mut t.trust.page_requested);
                let new_document =
                    p.get("navigationType").and_then(Value::as_str) == Some("differentDocument");
                if new_document && !page_requested {
                    if std::mem::take(&mut t.trust.own_requested) {
                        // The navigation `navigate` asked for: its URL already stands.
                    } else {
                        // The browser started it and it is not ours: the person's, unless its
                        // history entry says otherwise. Until that is confirmed, nobody vouches
                        // for this tab: a stale address must not cover a new page.
                        t.info.opened_url = None;
                        t.trust.generation += 1;
                    }
                }
                false
            }
            "Page.downloadWillBegin" | "Browser.downloadWillBegin" => {
                let guid = p.get("guid").and_then(Value::as_str).map(str::to_owned);
                if guid.is_some() && guid == t.trust.last_download {
                    false
                } else {
                    t.trust.last_download = guid;
                    let name = p
                        .get("suggestedFilename")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let name = cut_chars(name, MAX_DOWNLOAD_NAME_CHARS).0;
                    let count = info.blocked_downloads.as_ref().map_or(0, |b| b.count);
                    info.blocked_downloads = Some(BlockedDownloads {
                        count: count.saturating_add(1),
                        last_file_name: name,
                    });
                    true
                }
            }
            "Page.frameNavigated" if p.pointer("/frame/parentId").is_none() => {
                t.trust.own_requested = false;
                t.trust.page_requested = false;
                t.awaiting_start = false;
                let frame = &p["frame"];
                if let Some(id) = frame.get("id").and_then(Value::as_str) {
                    t.frame_id = id.to_owned();
                }
                info.nav_version += 1;
                info.title.clear();
                if let Some(unreachable) = frame.get("unreachableUrl").and_then(Value::as_str) {
                    info.url = unreachable.to_owned();
                    info.load_state = LoadState::Failed;
                    info.error
                        .get_or_insert_with(|| "the page could not be loaded".into());
                } else if let Some(url) = frame.get("url").and_then(Value::as_str) {
                    info.url = url.to_owned();
                }
                true
            }
            "Page.navigatedWithinDocument" if main(p.get("frameId").and_then(Value::as_str)) => {
                t.trust.own_requested = false;
                t.awaiting_start = false;
                info.nav_version += 1;
                if let Some(url) = p.get("url").and_then(Value::as_str) {
                    info.url = url.to_owned();
                }
                true
            }
            "Page.frameStartedLoading" if main(p.get("frameId").and_then(Value::as_str)) => {
                t.awaiting_start = false;
                if info.load_state != LoadState::Failed {
                    info.load_state = LoadState::Loading;
                }
                true
            }
            "Page.loadEventFired" => {
                if info.load_state == LoadState::Loading && !t.awaiting_start {
                    info.load_state = LoadState::Loaded;
                }
                true
            }
            "Page.frameStoppedLoading" if main(p.get("frameId").and_then(Value::as_str)) => {
                if info.load_state == LoadState::Loading && !t.awaiting_start {
                    info.load_state = LoadState::Loaded;
                }
                true
            }
            _ => false,
        }
    };
    if changed {
        let _ = inner.events.send(BrowserEvent::Changed(tab));
    }
    match event.method.as_str() {
        "Target.targetDestroyed" | "Target.detachedFromTarget" | "Target.targetCrashed" => {
            mark_closed(inner, tab);
        }
        "Page.loadEventFired" | "Page.navigatedWithinDocument" => {
            if let Some(session) = event.session.clone() {
                tokio::spawn(refresh_title(Arc::downgrade(inner), tab, session));
            }
        }
        "Page.frameNavigated" if p.pointer("/frame/parentId").is_none() => {
            let generation = lock(&inner.tabs).get(&tab).map(|t| t.trust.generation);
            if let (Some(session), Some(generation)) = (event.session.clone(), generation) {
                tokio::spawn(confirm_opened(
                    Arc::downgrade(inner),
                    tab,
                    session,
                    generation,
                ));
            }
        }
        "Page.screencastFrame" => {
            if let Some(session) = event.session.clone() {
                screen::on_frame(inner, tab, session, p);
            }
        }
        "Page.javascriptDialogOpening" => {
            let kind = p.get("type").and_then(Value::as_str).unwrap_or_default();
            if kind == "beforeunload" {
                let message = p.get("message").and_then(Value::as_str).unwrap_or_default();
                let _ = inner.events.send(BrowserEvent::Dialog {
                    tab,
                    kind: DialogKind::BeforeUnload,
                    message: cut_chars(message, MAX_TITLE_CHARS).0,
                });
            } else if let Some(session) = event.session.clone() {
                // alert/confirm/prompt would stall the page with nobody to answer; Wisp never
                // shows a page's own prompts to the person as if they were Wisp's.
                let conn = inner.conn.clone();
                tokio::spawn(async move {
                    let accept = json!({ "accept": false });
                    let _ = conn
                        .call("Page.handleJavaScriptDialog", accept, Some(&session))
                        .await;
                });
            }
        }
        _ => {}
    }
}
