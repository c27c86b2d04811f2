//! What happens to a session's tabs when the session is deleted: they leave the panel state at
//! once, with the session's lists and open dialogs, and its browser pages are closed without
//! their `beforeunload` (nobody is left to answer it), so no page or dialog outlives the session.

use wisp_preview::TabHandle;

use super::{Kind, Tabs};
use crate::lock;

impl Tabs {
    /// Forgets the session's tabs, lists and dialogs, and closes its browser pages (in a task
    /// of the current runtime, returned so a test can wait for it).
    pub(crate) fn close_session(&self, session: &str) -> Option<tokio::task::JoinHandle<()>> {
        let pages: Vec<TabHandle> = {
            let mut state = lock(&self.shared.state);
            let ids = state.order.remove(session).unwrap_or_default();
            state.active.remove(session);
            state.lists.remove(session);
            // A "close this tab?" still waiting gets no answer: it keeps nothing now.
            state.dialogs.retain(|_, d| d.session != session);
            ids.iter()
                .filter_map(|id| state.tabs.remove(id))
                .filter_map(|t| match t.kind {
                    Kind::Web {
                        native: Some(h), ..
                    } => Some(h),
                    _ => None,
                })
                .collect()
        };
        if pages.is_empty() {
            return None;
        }
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let tabs = self.clone();
        Some(runtime.spawn(async move {
            let Some(browser) = tabs.running().await else {
                return;
            };
            for page in pages {
                match browser.discard_tab(page).await {
                    Ok(()) | Err(wisp_preview::PreviewError::TabClosed) => {}
                    Err(e) => tracing::warn!(error = %e, "a deleted session's page did not close"),
                }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    //! Against real headless Chromium and a loopback page with a `beforeunload` handler.

    use std::time::{Duration, Instant};

    use tokio::sync::broadcast;
    use wisp_preview::LoadState;
    use wisp_protocol as p;

    use super::*;
    use crate::tabs::tests::next_dialog;

    const GUARDED: &str = "<title>Guarded</title><p>guarded text</p><script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>";

    /// A loopback site of guarded pages.
    async fn site() -> String {
        crate::tabs::tests::site(&[
            ("/a", GUARDED),
            ("/one", GUARDED),
            ("/two", GUARDED),
            ("/kept", GUARDED),
        ])
        .await
    }

    fn handle(tabs: &Tabs, id: &str) -> TabHandle {
        match &lock(&tabs.shared.state).tabs[id].kind {
            Kind::Web {
                native: Some(h), ..
            } => *h,
            _ => panic!("not a native web tab"),
        }
    }

    /// A guarded page, loaded and clicked (Chromium asks `beforeunload` only after a gesture).
    async fn guarded(tabs: &Tabs, session: &str, url: &str) -> String {
        let id = tabs
            .open(session, p::OpenTab::Web { url: url.into() })
            .await
            .unwrap();
        let browser = tabs.running().await.unwrap();
        let info = browser
            .wait_settled(handle(tabs, &id), Duration::from_secs(20))
            .await
            .unwrap();
        assert_eq!(info.load_state, LoadState::Loaded, "{info:?}");
        browser.click_for_tests(handle(tabs, &id)).await.unwrap();
        id
    }

    /// WEB-36: the person's close and the agent's close both go through the page's
    /// `beforeunload`, answered only by the person: dismissed keeps the tab (the agent's close
    /// returns `cancelled`), accepted closes it; both ask "close this page?" first.
    /// Then a deleted session's pages close without asking, and no dialog is left.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn beforeunload_is_the_persons_and_a_deleted_session_closes_its_pages() {
        let base = site().await;
        let (events, mut live) = broadcast::channel(256);
        let tabs = Tabs::new(events);
        let profile = tempfile::tempdir().unwrap();
        tabs.set_backend(crate::tabs::tests::headless(
            wisp_preview::find_browser().unwrap(),
            profile.path(),
        ));
        let tab = guarded(&tabs, "s1", &format!("{base}/a")).await;

        // The person closes it: "close this page?" agreed, then the page asks; dismissed, it
        // stays.
        assert_eq!(
            tabs.close_by_person(&tab).await.unwrap(),
            p::CloseStatus::Closing
        );
        let d = next_dialog(&mut live).await;
        assert_eq!(
            (d.kind, d.tab_id.as_str()),
            (p::DialogKind::CloseConfirm, tab.as_str())
        );
        tabs.answer(&d.dialog_id, true).await.unwrap();
        let d = next_dialog(&mut live).await;
        assert_eq!(
            (d.kind, d.tab_id.as_str()),
            (p::DialogKind::Beforeunload, tab.as_str())
        );
        tabs.answer(&d.dialog_id, false).await.unwrap();
        let list = tabs.list_for_model("s1", None).await.unwrap();
        assert_eq!(list["tabs"][0]["tabId"], tab.as_str());
        assert_eq!(
            tabs.read_for_model("s1", &tab).await.unwrap()["text"],
            "guarded text"
        );

        // The agent closes it: "close this tab?" accepted, then the page asks; dismissed →
        // cancelled, never a false "closed".
        let browser = tabs.running().await.unwrap();
        browser.click_for_tests(handle(&tabs, &tab)).await.unwrap();
        tabs.list_for_model("s1", None).await.unwrap();
        let closing = tokio::spawn({
            let (tabs, tab) = (tabs.clone(), tab.clone());
            async move { tabs.act_for_model("s1", &tab, "close", None).await }
        });
        let d = next_dialog(&mut live).await;
        assert_eq!(d.kind, p::DialogKind::CloseConfirm);
        tabs.answer(&d.dialog_id, true).await.unwrap();
        let d = next_dialog(&mut live).await;
        assert_eq!(d.kind, p::DialogKind::Beforeunload);
        tabs.answer(&d.dialog_id, false).await.unwrap();
        assert_eq!(closing.await.unwrap().unwrap()["status"], "cancelled");
        assert!(tabs.session_of(&tab).is_some());

        // Again, and the page's question accepted: closed. A fresh click first: Chromium asks
        // `beforeunload` only of a page with a user gesture, and a dismissed question may use
        // it up (seen under load in CI).
        let browser = tabs.running().await.unwrap();
        browser.click_for_tests(handle(&tabs, &tab)).await.unwrap();
        tabs.list_for_model("s1", None).await.unwrap();
        let closing = tokio::spawn({
            let (tabs, tab) = (tabs.clone(), tab.clone());
            async move { tabs.act_for_model("s1", &tab, "close", None).await }
        });
        let d = next_dialog(&mut live).await;
        tabs.answer(&d.dialog_id, true).await.unwrap();
        let d = next_dialog(&mut live).await;
        assert_eq!(d.kind, p::DialogKind::Beforeunload);
        tabs.answer(&d.dialog_id, true).await.unwrap();
        assert_eq!(closing.await.unwrap().unwrap()["status"], "closed");
        assert!(tabs.session_of(&tab).is_none());

        // A deleted session: its guarded pages close without asking, a waiting "close this
        // tab?" goes with them, another session keeps its tab.
        let one = guarded(&tabs, "s2", &format!("{base}/one")).await;
        let two = guarded(&tabs, "s2", &format!("{base}/two")).await;
        let kept = guarded(&tabs, "s3", &format!("{base}/kept")).await;
        let pages = [handle(&tabs, &one), handle(&tabs, &two)];
        tabs.list_for_model("s2", None).await.unwrap();
        let closing = tokio::spawn({
            let (tabs, one) = (tabs.clone(), one.clone());
            async move { tabs.act_for_model("s2", &one, "close", None).await }
        });
        let d = next_dialog(&mut live).await;
        assert_eq!(d.kind, p::DialogKind::CloseConfirm);
        tabs.close_session("s2").unwrap().await.unwrap();
        assert_eq!(closing.await.unwrap().unwrap()["status"], "cancelled");
        assert!(
            tabs.answer(&d.dialog_id, true).await.is_err(),
            "no dialog left"
        );
        assert!(tabs.list_wire("s2").await.is_empty());
        let browser = tabs.running().await.unwrap();
        for page in pages {
            assert!(browser.tab_info(page).unwrap().closed);
        }
        // No page asked anything on its way out.
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(p::Live::Tabs(p::TabLive::Dialog(d))) = live.try_recv() {
                panic!("a dialog was left: {d:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(tabs.list_wire("s3").await[0].tab_id, kept);
        assert!(!browser.tab_info(handle(&tabs, &kept)).unwrap().closed);
        assert!(tabs.close_session("s-none").is_none());

        tabs.shutdown().await;
    }
}
