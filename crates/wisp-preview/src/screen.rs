//! The live view of a tab (UI-07) and bringing its page to the front of the real browser
//! window. A tab's screencast (`Page.startScreencast`, JPEG) runs only while someone asks for
//! its frames: the first ask starts it, and it stops once nobody asked for
//! [`SCREEN_IDLE`](crate::limits::SCREEN_IDLE). Only the latest frame of a tab is kept, in
//! memory, and frames are kept at most every
//! [`SCREEN_FRAME_INTERVAL`](crate::limits::SCREEN_FRAME_INTERVAL): each frame's
//! `Page.screencastFrameAck` (which the browser needs before it sends more) is sent when the
//! frame is kept, so a busy page cannot make the browser encode faster than that.
//!
//! A frame is routed to its tab by the DevTools session it arrived on, never by anything in it,
//! so a tab's view can only ever show that tab's page.
//!
//! Chromium paints only the front tab of each window, and no minimized window: each tab is
//! therefore a window of its own ([`Browser::create_tab`]); a minimized one sends no frames
//! (its last frame, if any, stays) until it is brought to the front.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::PreviewError;
use crate::browser::{Browser, Inner, TabHandle, browser_err, lock};
use crate::limits::{
    MAX_FRAME_BYTES, SCREEN_FIRST_FRAME_WAIT, SCREEN_FRAME_INTERVAL, SCREEN_JPEG_QUALITY,
    SCREEN_MAX_HEIGHT, SCREEN_MAX_WIDTH, VIEW_MIN_HEIGHT, VIEW_MIN_WIDTH,
};
use crate::process::Display;

/// One frame of a tab's live view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// A JPEG image (it starts with the SOI marker and ends with EOI).
    pub jpeg: Arc<[u8]>,
}

/// A tab's screencast.
#[derive(Debug, Default)]
pub(crate) struct Screen {
    /// Bumped at every start: what an earlier screencast still sends is not kept.
    generation: u64,
    streaming: bool,
    /// When a frame was last asked for.
    asked: Option<Instant>,
    /// The viewport the page was last fitted to ([`Browser::fit_view`]), if it was.
    view: Option<(u32, u32)>,
    /// The earliest time the next frame may be kept.
    next_slot: Option<Instant>,
    frame: Option<Frame>,
}

impl Screen {
    /// Forgets the frame (the tab closed or the screencast stopped).
    pub(crate) fn clear(&mut self) {
        self.streaming = false;
        self.frame = None;
    }
}

/// Whether `bytes` look like a whole JPEG image (SOI at the start, EOI at the end).
pub(crate) fn is_jpeg(bytes: &[u8]) -> bool {
    bytes.len() > 4 && bytes.starts_with(&[0xFF, 0xD8]) && bytes.ends_with(&[0xFF, 0xD9])
}

impl Browser {
    /// The latest frame of the tab's live view, or `None` while there is none yet. Asking
    /// keeps the tab's screencast going (the first ask starts it and waits up to
    /// [`SCREEN_FIRST_FRAME_WAIT`] for a frame).
    pub async fn frame(&self, tab: TabHandle) -> Result<Option<Frame>, PreviewError> {
        let (session, generation) = {
            let mut tabs = lock(&self.inner.tabs);
            let t = tabs
                .get_mut(&tab)
                .filter(|t| !t.info.closed)
                .ok_or(PreviewError::TabClosed)?;
            t.screen.asked = Some(Instant::now());
            if t.screen.streaming {
                return Ok(t.screen.frame.clone());
            }
            t.screen.streaming = true;
            t.screen.generation += 1;
            t.screen.next_slot = None;
            (t.session_id.clone(), t.screen.generation)
        };
        let arrived = self.inner.frame_arrived.notified();
        let started = self
            .inner
            .conn
            .call(
                "Page.startScreencast",
                json!({
                    "format": "jpeg",
                    "quality": SCREEN_JPEG_QUALITY,
                    "maxWidth": SCREEN_MAX_WIDTH,
                    "maxHeight": SCREEN_MAX_HEIGHT,
                }),
                Some(&session),
            )
            .await;
        if let Err(e) = started {
            if let Some(t) = lock(&self.inner.tabs).get_mut(&tab)
                && t.screen.generation == generation
            {
                t.screen.streaming = false;
            }
            return Err(browser_err(e));
        }
        tokio::spawn(stop_when_idle(
            Arc::downgrade(&self.inner),
            tab,
            generation,
            self.inner.screen_idle,
        ));
        let deadline = Instant::now() + SCREEN_FIRST_FRAME_WAIT;
        tokio::pin!(arrived);
        loop {
            if let Some(frame) = self.latest_frame(tab) {
                return Ok(Some(frame));
            }
            if tokio::time::timeout_at(deadline, arrived.as_mut())
                .await
                .is_err()
            {
                return Ok(self.latest_frame(tab));
            }
            arrived.set(self.inner.frame_arrived.notified());
        }
    }

    /// Fits a headless tab's viewport to `width` × `height` CSS pixels (the live view's
    /// panel), within [`VIEW_MIN_WIDTH`]..[`SCREEN_MAX_WIDTH`] and
    /// [`VIEW_MIN_HEIGHT`]..[`SCREEN_MAX_HEIGHT`], so that its frames show the page laid out
    /// for the panel at one frame pixel per CSS pixel instead of an 800 px page scaled down.
    /// Whether the page was fitted: a page of a headed browser keeps its window's size, which
    /// is the person's to choose. The browser is asked only when the size changes.
    pub async fn fit_view(
        &self,
        tab: TabHandle,
        width: u32,
        height: u32,
    ) -> Result<bool, PreviewError> {
        if self.inner.display == Display::Headed {
            return Ok(false);
        }
        let view = (
            width.clamp(VIEW_MIN_WIDTH, SCREEN_MAX_WIDTH),
            height.clamp(VIEW_MIN_HEIGHT, SCREEN_MAX_HEIGHT),
        );
        let (session, streaming) = {
            let tabs = lock(&self.inner.tabs);
            let t = tabs
                .get(&tab)
                .filter(|t| !t.info.closed)
                .ok_or(PreviewError::TabClosed)?;
            if t.screen.view == Some(view) {
                return Ok(true);
            }
            (
                t.session_id.clone(),
                t.screen.streaming.then_some(t.screen.generation),
            )
        };
        let conn = &self.inner.conn;
        conn.call(
            "Emulation.setDeviceMetricsOverride",
            json!({
                "width": view.0,
                "height": view.1,
                "deviceScaleFactor": 1,
                "mobile": false,
            }),
            Some(&session),
        )
        .await
        .map_err(browser_err)?;
        if let Some(t) = lock(&self.inner.tabs).get_mut(&tab) {
            t.screen.view = Some(view);
        }
        // A running screencast keeps its size (a still page sends no new frame): it starts
        // again at the next ask, stopped in the browser before the state says so.
        if let Some(generation) = streaming {
            let _ = conn
                .call("Page.stopScreencast", json!({}), Some(&session))
                .await;
            if let Some(t) = lock(&self.inner.tabs).get_mut(&tab)
                && t.screen.generation == generation
            {
                t.screen.clear();
            }
        }
        Ok(true)
    }

    fn latest_frame(&self, tab: TabHandle) -> Option<Frame> {
        lock(&self.inner.tabs)
            .get(&tab)
            .and_then(|t| t.screen.frame.clone())
    }

    /// Whether the tab's screencast is running (tests: it stops when unwatched).
    pub fn is_screencasting(&self, tab: TabHandle) -> bool {
        lock(&self.inner.tabs)
            .get(&tab)
            .is_some_and(|t| t.screen.streaming)
    }

    /// Brings the tab's page to the front of the real browser window (and that window to the
    /// front of the desktop, as far as the window manager allows). It does nothing to the page.
    pub async fn bring_to_front(&self, tab: TabHandle) -> Result<(), PreviewError> {
        let (session, target) = {
            let tabs = lock(&self.inner.tabs);
            let t = tabs
                .get(&tab)
                .filter(|t| !t.info.closed)
                .ok_or(PreviewError::TabClosed)?;
            (t.session_id.clone(), t.target_id.clone())
        };
        let conn = &self.inner.conn;
        conn.call("Page.bringToFront", json!({}), Some(&session))
            .await
            .map_err(browser_err)?;
        // The tab strip's selection too: bringToFront focuses the page's window, and
        // activateTarget makes it the window's selected tab.
        conn.call("Target.activateTarget", json!({ "targetId": target }), None)
            .await
            .map_err(browser_err)?;
        Ok(())
    }
}

/// Keeps (at its slot) and acknowledges one `Page.screencastFrame` of a tab.
pub(crate) fn on_frame(inner: &Arc<Inner>, tab: TabHandle, session: String, params: &Value) {
    let Some(ack_id) = params.get("sessionId").and_then(Value::as_i64) else {
        return;
    };
    let data = params
        .get("data")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let now = Instant::now();
    let slot = {
        let mut tabs = lock(&inner.tabs);
        match tabs.get_mut(&tab) {
            Some(t) if t.screen.streaming && !t.info.closed => {
                let slot = t.screen.next_slot.map_or(now, |s| s.max(now));
                t.screen.next_slot = Some(slot + SCREEN_FRAME_INTERVAL);
                Some((slot, t.screen.generation))
            }
            _ => None,
        }
    };
    let weak = Arc::downgrade(inner);
    tokio::spawn(async move {
        if let Some((slot, generation)) = slot {
            tokio::time::sleep_until(slot).await;
            let Some(inner) = weak.upgrade() else { return };
            keep(&inner, tab, generation, &data);
        }
        // Every frame is acknowledged, kept or not: the browser sends no more until it is.
        let Some(conn) = weak.upgrade().map(|i| i.conn.clone()) else {
            return;
        };
        let _ = conn
            .call(
                "Page.screencastFrameAck",
                json!({ "sessionId": ack_id }),
                Some(&session),
            )
            .await;
    });
}

fn keep(inner: &Inner, tab: TabHandle, generation: u64, data: &str) {
    let Some(jpeg) = decode_base64(data).filter(|b| b.len() <= MAX_FRAME_BYTES && is_jpeg(b))
    else {
        tracing::warn!(
            tab = tab.0,
            "a live-view frame was not a JPEG image; dropped"
        );
        return;
    };
    let kept = match lock(&inner.tabs).get_mut(&tab) {
        Some(t) if t.screen.streaming && t.screen.generation == generation && !t.info.closed => {
            t.screen.frame = Some(Frame {
                jpeg: Arc::from(jpeg),
            });
            true
        }
        _ => false,
    };
    if kept {
        inner.frame_arrived.notify_waiters();
    }
}

/// Stops the tab's screencast (and drops its frame) once nobody asked for a frame for `idle`.
async fn stop_when_idle(
    inner: std::sync::Weak<Inner>,
    tab: TabHandle,
    generation: u64,
    idle: Duration,
) {
    let check = idle / 4;
    loop {
        tokio::time::sleep(check).await;
        let Some(inner) = inner.upgrade() else { return };
        let session = {
            let tabs = lock(&inner.tabs);
            let Some(t) = tabs.get(&tab) else { return };
            if t.info.closed || !t.screen.streaming || t.screen.generation != generation {
                return;
            }
            if t.screen.asked.is_some_and(|a| a.elapsed() < idle) {
                continue;
            }
            t.session_id.clone()
        };
        // Stopped in the browser before the state says so: a new ask then starts a new
        // screencast after this one's stop, never before it.
        let _ = inner
            .conn
            .call("Page.stopScreencast", json!({}), Some(&session))
            .await;
        if let Some(t) = lock(&inner.tabs).get_mut(&tab)
            && t.screen.generation == generation
        {
            t.screen.clear();
        }
        tracing::debug!(tab = tab.0, "live view stopped: nobody watched");
        return;
    }
}

/// Standard base64 (with padding), as the DevTools protocol sends binary data; `None` for
/// anything else.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let last = i + 1 == bytes.len() / 4;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = (n << 6) | value(c)?;
        }
        n <<= 6 * pad as u32;
        let three = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&three[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_the_standard_alphabet_with_padding_and_refuses_the_rest() {
        assert_eq!(decode_base64("").unwrap(), b"");
        assert_eq!(decode_base64("TQ==").unwrap(), b"M");
        assert_eq!(decode_base64("TWE=").unwrap(), b"Ma");
        assert_eq!(decode_base64("TWFu").unwrap(), b"Man");
        assert_eq!(decode_base64("/9j/").unwrap(), [0xFF, 0xD8, 0xFF]);
        assert_eq!(decode_base64("+/+/").unwrap(), [0xFB, 0xFF, 0xBF]);
        for bad in ["TQ", "TQ=", "T===", "TQ==TWFu", "TW-u", "TW_u", "TWFu\n"] {
            assert_eq!(decode_base64(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_jpeg_has_both_markers() {
        assert!(is_jpeg(&[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xD9]));
        assert!(!is_jpeg(&[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0xD9]));
        assert!(!is_jpeg(&[0x89, b'P', b'N', b'G', 0xFF, 0xD9]));
        assert!(!is_jpeg(&[0xFF, 0xD8, 0xFF, 0xD9]));
    }
}
