//! Wisp's preview browser (WEB-*): a Chromium-family browser found on this machine, started
//! lazily with its own profile and driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`, fds 3 and 4) — never a TCP port another local process could
//! reach. It keeps each tab's URL, title, load state, last error and navigation version, and
//! offers exactly what the Host needs: open, navigate, reload, back, forward, close (with the
//! page's `beforeunload` answered by the caller) and one fixed text extraction run in an
//! isolated world; for the person, a throttled live view of each tab (a screencast that runs
//! only while someone watches, [`Browser::frame`]) and bringing a tab to the front of the real
//! window ([`Browser::bring_to_front`]).
//!
//! What it must never do: run script from the model or any argument in a page, read cookies or
//! storage, grant a page bindings, permissions or certificate exemptions, automate a page
//! (no clicks, no typing), or save a download (every one is refused, and the tab counts them).
//! It knows nothing of sessions, runs or approvals: that is the Host's. It does keep, per tab,
//! where its page was last opened by the caller or the person
//! ([`TabInfo::opened_url`]), so that the Host can tell a page that moved itself.
//!
//! ```no_run
//! # async fn demo() -> Result<(), wisp_preview::PreviewError> {
//! use wisp_preview::{Display, LaunchConfig, Preview};
//! let preview = Preview::new(LaunchConfig {
//!     binary: wisp_preview::find_browser()?,
//!     profile_dir: "/tmp/wisp-profile".into(),
//!     display: Display::detect(),
//!     host_map: Vec::new(),
//!     relay: None,
//! });
//! let browser = preview.browser().await?; // launched on first use
//! let tab = browser.create_tab().await?;
//! let version = browser.navigate(tab, "http://127.0.0.1:8080/").await?;
//! browser.wait_settled(tab, std::time::Duration::from_secs(10)).await;
//! let page = browser.read(tab, version).await;
//! preview.shutdown().await;
//! # Ok(()) }
//! ```

mod browser;
mod cdp;
mod discover;
mod extract;
pub mod limits;
mod process;
mod screen;
#[cfg(test)]
mod tests;

pub use browser::{
    BlockedDownloads, Browser, BrowserEvent, CloseOutcome, DialogKind, LoadState, ReadError,
    TabHandle, TabInfo,
};
pub use cdp::CdpError;
pub use discover::{BROWSER_ENV, DiscoverError, find_browser, find_browser_in};
pub use extract::{Link, PageText, display_url};
#[cfg(windows)]
pub use process::relay_browser_pipe;
pub use process::{
    BROWSER_INHERITED_ENV, Display, HEADLESS_ENV, LaunchConfig, PIPE_RELAY_COMMAND,
    browser_environment, same_env_name,
};
pub use screen::Frame;

/// A failure of the preview browser.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PreviewError {
    /// No browser to start.
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    /// It did not start.
    #[error("the browser did not start: {0}")]
    Launch(String),
    /// It failed a command.
    #[error("{0}")]
    Browser(String),
    /// A command that changes a tab was sent but its answer never came (no answer in time, or
    /// the pipe closed): it may have been carried out. Never send it again on this error.
    #[error("sent, but the browser's answer was lost: {0}")]
    Unanswered(String),
    /// It went away.
    #[error("the browser is gone")]
    Gone,
    /// The tab is closed or unknown.
    #[error("the tab is closed")]
    TabClosed,
    /// Back or forward with no entry in that direction.
    #[error("there is no page to go {0} to in this tab's history")]
    NoHistory(&'static str),
}

/// The browser started on first use, and started again if it went away.
pub struct Preview {
    config: LaunchConfig,
    waits: browser::Waits,
    browser: tokio::sync::Mutex<Option<Browser>>,
}

impl Preview {
    /// Nothing starts until [`Preview::browser`] is first called.
    pub fn new(config: LaunchConfig) -> Self {
        Self {
            config,
            waits: browser::Waits::default(),
            browser: tokio::sync::Mutex::new(None),
        }
    }

    /// For other crates' tests (feature `test-support`): how long a command waits for the
    /// browser's answer and a close for its page to go, so a test can make an answer be lost
    /// (a stopped browser answers nothing) without waiting the real limits out.
    #[cfg(feature = "test-support")]
    #[must_use]
    pub fn with_answer_timeouts_for_tests(
        mut self,
        command: std::time::Duration,
        close: std::time::Duration,
    ) -> Self {
        self.waits.command = command;
        self.waits.close = close;
        self
    }

    /// The running browser, started now if need be.
    pub async fn browser(&self) -> Result<Browser, PreviewError> {
        let mut slot = self.browser.lock().await;
        if let Some(browser) = slot.as_ref().filter(|b| b.is_alive()) {
            return Ok(browser.clone());
        }
        if let Some(dead) = slot.take() {
            dead.shutdown().await;
        }
        let browser = Browser::launch_with(&self.config, self.waits).await?;
        *slot = Some(browser.clone());
        Ok(browser)
    }

    /// The browser if it is running (without starting it).
    pub async fn running(&self) -> Option<Browser> {
        self.browser.lock().await.clone()
    }

    /// Stops the browser if it runs.
    pub async fn shutdown(&self) {
        let browser = self.browser.lock().await.take();
        if let Some(browser) = browser {
            browser.shutdown().await;
        }
    }
}
