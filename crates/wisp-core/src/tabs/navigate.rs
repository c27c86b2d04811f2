//! The person takes a tab elsewhere in place (`POST /api/tabs/{id}/navigate`): a folder tab
//! opens another folder, a web tab another address (a blank tab becomes one), and a page of
//! Wisp's browser goes back, forward or loads again.
//!
//! - A tab the person is being asked about (closing it, a page's `beforeunload`) refuses: the
//!   question is answered first.
//! - A new folder or address counts in the tab's `moves`, which a model's list binds: an
//!   action of the model on a file or folder tab listed before the person moved it is refused
//!   (WEB-29), as a page's navigation version already makes it for pages.
//! - A typed address is vouched for by the person, as an opened one is: it becomes the page's
//!   opened address, against which a page that moves itself is judged.

use wisp_preview::TabHandle;
use wisp_protocol as p;

use super::{Kind, PreviewBackend, Tabs, check_url};
use crate::{CoreError, CoreErrorKind, fail, lock};

impl Tabs {
    /// Navigates `tab` as the person asked; a folder's path was checked by the caller and is
    /// the sandbox's form. Returns the tab's session.
    pub(crate) async fn navigate(
        &self,
        tab: &str,
        to: p::NavigateTab,
    ) -> Result<String, CoreError> {
        let (session, kind) = {
            let state = lock(&self.shared.state);
            let t = state
                .tabs
                .get(tab)
                .ok_or_else(|| fail(CoreErrorKind::NotFound, format!("no tab {tab}")))?;
            if state.dialogs.values().any(|d| d.shown.tab_id == tab) {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    format!("a question about tab {tab} waits for an answer; answer it first"),
                ));
            }
            (t.session.clone(), t.kind.clone())
        };
        let refuse = |why: String| Err(fail(CoreErrorKind::Conflict, why));
        match (to, kind) {
            (p::NavigateTab::Folder { path }, Kind::Workspace { .. }) => {
                let path = path.unwrap_or_else(|| ".".into());
                self.replace(tab, |k| match k {
                    Kind::Workspace { .. } => Some(Kind::Workspace { path }),
                    _ => None,
                })?;
            }
            (p::NavigateTab::Folder { .. }, _) => {
                return refuse(format!("tab {tab} is not a folder tab"));
            }
            (p::NavigateTab::Address { url }, Kind::Web { native, .. }) => {
                let url = check_url(&url)
                    .map_err(|m| fail(CoreErrorKind::Invalid, m))?
                    .to_string();
                if let Some(handle) = native {
                    let url = url.clone();
                    self.page_action(|b| async move { b.navigate(handle, url.as_str()).await })
                        .await?;
                }
                self.replace(tab, |k| match k {
                    Kind::Web { native, .. } => Some(Kind::Web {
                        native: *native,
                        url,
                    }),
                    _ => None,
                })?;
            }
            (p::NavigateTab::Address { url }, Kind::New) => {
                let url = check_url(&url).map_err(|m| fail(CoreErrorKind::Invalid, m))?;
                let native = self.new_page(url.as_str()).await?;
                let replaced = self.replace(tab, |k| match k {
                    Kind::New => Some(Kind::Web {
                        native,
                        url: url.to_string(),
                    }),
                    _ => None,
                });
                if replaced.is_err()
                    && let (Some(handle), Some(browser)) = (native, self.running().await)
                {
                    // The blank tab was closed or changed meanwhile: nobody tracks this page.
                    let _ = browser.discard_tab(handle).await;
                }
                replaced?;
            }
            (p::NavigateTab::Address { .. }, _) => {
                return refuse(format!(
                    "tab {tab} shows a file or folder; open a web tab for an address"
                ));
            }
            // Read again by the UI on the `tabs` event; the place, and so a list's binding, stay.
            (p::NavigateTab::Reload {}, Kind::File { .. } | Kind::Workspace { .. }) => {}
            (step, Kind::Web { native, .. }) => {
                let Some(handle) = native else {
                    let why = match self.backend() {
                        PreviewBackend::WebOnly(reason) => reason,
                        PreviewBackend::Native(_) => "it is not a page of Wisp's browser".into(),
                    };
                    return refuse(format!("tab {tab} cannot {} ({why})", verb(&step)));
                };
                self.page_action(|b| async move {
                    match step {
                        p::NavigateTab::Back {} => b.back(handle).await,
                        p::NavigateTab::Forward {} => b.forward(handle).await,
                        _ => b.reload(handle).await,
                    }
                })
                .await?;
            }
            (step, _) => {
                return refuse(format!(
                    "tab {tab} cannot {}: it shows no web page",
                    verb(&step)
                ));
            }
        }
        self.changed(&session);
        Ok(session)
    }

    /// Sets the tab's kind to what `next` makes of it (`None`: it may not change) and counts
    /// the move. `NotFound` if it was closed meanwhile, `Conflict` if it became something else.
    fn replace(
        &self,
        tab: &str,
        next: impl FnOnce(&Kind) -> Option<Kind>,
    ) -> Result<(), CoreError> {
        let mut state = lock(&self.shared.state);
        let t = state
            .tabs
            .get_mut(tab)
            .ok_or_else(|| fail(CoreErrorKind::NotFound, format!("tab {tab} was closed")))?;
        let kind = next(&t.kind).ok_or_else(|| {
            fail(
                CoreErrorKind::Conflict,
                format!("tab {tab} changed meanwhile; look at it again"),
            )
        })?;
        t.kind = kind;
        t.moves += 1;
        Ok(())
    }

    /// A page of the browser showing `url`, or none without one (the UI frames it). A page whose
    /// navigation was refused is closed again: no page is left that no tab tracks.
    pub(super) async fn new_page(&self, url: &str) -> Result<Option<TabHandle>, CoreError> {
        let PreviewBackend::Native(preview) = self.backend() else {
            return Ok(None);
        };
        let unavailable = |m: String| fail(CoreErrorKind::Conflict, m);
        let browser = self.browser(&preview).await.map_err(unavailable)?;
        let handle = browser
            .create_tab()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        if let Err(e) = browser.navigate(handle, url).await {
            let _ = browser.discard_tab(handle).await;
            return Err(unavailable(e.to_string()));
        }
        Ok(Some(handle))
    }

    /// Runs one request on a page of the running browser; its failure is a `Conflict` in the
    /// browser's words (a lost answer says so: the page may still be going).
    async fn page_action<F, Fut>(&self, act: F) -> Result<(), CoreError>
    where
        F: FnOnce(wisp_preview::Browser) -> Fut,
        Fut: Future<Output = Result<u64, wisp_preview::PreviewError>>,
    {
        let browser = self.running().await.ok_or_else(|| {
            fail(
                CoreErrorKind::Conflict,
                "Wisp's browser is not running; the tab is gone",
            )
        })?;
        act(browser).await.map(drop).map_err(|e| {
            fail(
                CoreErrorKind::Conflict,
                match e {
                    wisp_preview::PreviewError::Unanswered(why) => {
                        format!("the browser did not answer ({why}); the page may still change")
                    }
                    e => e.to_string(),
                },
            )
        })
    }
}

fn verb(step: &p::NavigateTab) -> &'static str {
    match step {
        p::NavigateTab::Back {} => "go back",
        p::NavigateTab::Forward {} => "go forward",
        p::NavigateTab::Reload {} => "reload",
        p::NavigateTab::Address { .. } => "load an address",
        p::NavigateTab::Folder { .. } => "show a folder",
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::Value;
    use tokio::sync::broadcast;
    use wisp_fs::Sandbox;

    use super::super::tests::{headless, native_handle, settle, site};
    use super::*;

    fn wire(list: &[p::PreviewTab], tab: &str) -> p::PreviewTab {
        list.iter().find(|t| t.tab_id == tab).cloned().unwrap()
    }

    async fn listed(tabs: &Tabs, tab: &str) -> p::PreviewTab {
        wire(&tabs.list_wire("s1").await, tab)
    }

    /// Waits until the web tab has loaded a page titled `title` (20 s at most): a navigation is
    /// a request, and a page's title comes after its load.
    async fn shows(tabs: &Tabs, tab: &str, title: &str) {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            settle(tabs, tab).await;
            let now = listed(tabs, tab).await.title;
            if now == title {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{tab} shows {now:?}, not {title:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn folder(path: &str) -> p::NavigateTab {
        p::NavigateTab::Folder {
            path: Some(path.into()),
        }
    }

    /// A folder tab moves in place; a model's list taken before that no longer names it for a
    /// close or reload (WEB-29), one taken after does; reading it again keeps the list valid;
    /// what a tab cannot do is refused and changes nothing.
    #[tokio::test]
    async fn a_folder_tab_moves_in_place_and_voids_the_list_taken_before() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        let sandbox = Arc::new(Sandbox::open(dir.path()).unwrap());
        let (events, mut live) = broadcast::channel(64);
        let tabs = Tabs::new(events);
        tabs.set_backend(PreviewBackend::WebOnly("test".into()));
        let root = tabs
            .open("s1", p::OpenTab::Workspace { path: None })
            .await
            .unwrap();
        let file = tabs
            .open(
                "s1",
                p::OpenTab::File {
                    path: "a.txt".into(),
                },
            )
            .await
            .unwrap();
        let blank = tabs.open("s1", p::OpenTab::New {}).await.unwrap();
        while live.try_recv().is_ok() {}

        tabs.list_for_model("s1", Some(sandbox.clone()))
            .await
            .unwrap();
        assert_eq!(tabs.navigate(&root, folder("src")).await.unwrap(), "s1");
        assert!(live.try_recv().is_ok(), "a navigation is announced");
        let shown = listed(&tabs, &root).await;
        assert_eq!(shown.path.as_deref(), Some("src"));
        assert_eq!(shown.title, "src/");
        // The same ID in the same place: nothing else moved, and the selection stayed.
        let order: Vec<String> = tabs
            .list_wire("s1")
            .await
            .into_iter()
            .map(|t| t.tab_id)
            .collect();
        assert_eq!(order, [root.clone(), file.clone(), blank.clone()]);
        assert!(listed(&tabs, &blank).await.active);

        for action in ["close", "reload"] {
            let e = tabs
                .act_for_model("s1", &root, action, Some(sandbox.clone()))
                .await
                .unwrap_err();
            assert!(e.contains("changed since it was listed"), "{action}: {e}");
        }
        let list = tabs
            .list_for_model("s1", Some(sandbox.clone()))
            .await
            .unwrap();
        assert_eq!(list["tabs"][0]["path"], "src");
        // The person reading it again is no move.
        tabs.navigate(&root, p::NavigateTab::Reload {})
            .await
            .unwrap();
        let reloaded = tabs
            .act_for_model("s1", &root, "reload", Some(sandbox.clone()))
            .await
            .unwrap();
        assert_eq!(reloaded["status"], "reload_requested");

        // Refusals: each says why, and the tab is as it was.
        let refused: [(&str, p::NavigateTab, &str); 5] = [
            (&file, folder("src"), "not a folder tab"),
            (
                &root,
                p::NavigateTab::Address {
                    url: "http://127.0.0.1/".into(),
                },
                "open a web tab",
            ),
            (
                &root,
                p::NavigateTab::Back {},
                "cannot go back: it shows no web page",
            ),
            (
                &blank,
                p::NavigateTab::Forward {},
                "cannot go forward: it shows no web page",
            ),
            (
                &blank,
                p::NavigateTab::Reload {},
                "cannot reload: it shows no web page",
            ),
        ];
        for (tab, to, why) in refused {
            let e = tabs.navigate(tab, to).await.unwrap_err();
            assert_eq!(e.kind, CoreErrorKind::Conflict, "{why}");
            assert!(e.message.contains(why), "{}", e.message);
        }
        let e = tabs.navigate("tab_missing", folder(".")).await.unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::NotFound);
        assert_eq!(listed(&tabs, &root).await.path.as_deref(), Some("src"));
        assert_eq!(listed(&tabs, &file).await.path.as_deref(), Some("a.txt"));

        // Up to the root, and the list taken then closes it.
        tabs.navigate(&root, p::NavigateTab::Folder { path: None })
            .await
            .unwrap();
        assert_eq!(listed(&tabs, &root).await.path.as_deref(), Some("."));
        tabs.list_for_model("s1", Some(sandbox.clone()))
            .await
            .unwrap();
        let closed = tabs
            .act_for_model("s1", &root, "close", Some(sandbox))
            .await
            .unwrap();
        assert_eq!(closed["status"], "closed");
    }

    /// A framed web tab takes a typed address in place and a blank tab becomes one; back,
    /// forward and reload need a page of Wisp's browser.
    #[tokio::test]
    async fn a_framed_web_tab_takes_an_address_in_place() {
        let (events, _live) = broadcast::channel(64);
        let tabs = Tabs::new(events);
        tabs.set_backend(PreviewBackend::WebOnly("no browser here".into()));
        let web = tabs
            .open(
                "s1",
                p::OpenTab::Web {
                    url: "http://127.0.0.1:9/a".into(),
                },
            )
            .await
            .unwrap();
        let blank = tabs.open("s1", p::OpenTab::New {}).await.unwrap();
        let to = |url: &str| p::NavigateTab::Address { url: url.into() };
        tabs.navigate(&web, to("http://127.0.0.1:9/b"))
            .await
            .unwrap();
        assert_eq!(
            listed(&tabs, &web).await.url.as_deref(),
            Some("http://127.0.0.1:9/b")
        );
        tabs.navigate(&blank, to("https://example.test/"))
            .await
            .unwrap();
        let made = listed(&tabs, &blank).await;
        assert_eq!(
            (made.kind, made.url.as_deref()),
            (p::TabKind::Web, Some("https://example.test/"))
        );
        let e = tabs
            .navigate(&web, to("file:///etc/passwd"))
            .await
            .unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::Invalid);
        assert_eq!(
            listed(&tabs, &web).await.url.as_deref(),
            Some("http://127.0.0.1:9/b")
        );
        let e = tabs
            .navigate(&web, p::NavigateTab::Back {})
            .await
            .unwrap_err();
        assert!(
            e.message.contains("cannot go back (no browser here)"),
            "{}",
            e.message
        );
    }

    /// On the real browser: an address typed into a web tab loads in the same page, a blank tab
    /// becomes a page, and back and forward walk the page's history; a model's list taken
    /// before is void for the navigated tab.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_of_the_browser_goes_to_an_address_back_and_forward() {
        let base = site(&[
            ("/a", "<title>Page A</title><p>alpha</p>"),
            ("/b", "<title>Page B</title><p>beta</p>"),
        ])
        .await;
        let (events, _live) = broadcast::channel(256);
        let tabs = Tabs::new(events);
        let profile = tempfile::tempdir().unwrap();
        tabs.set_backend(headless(
            wisp_preview::find_browser().unwrap(),
            profile.path(),
        ));
        let tab = tabs
            .open(
                "s1",
                p::OpenTab::Web {
                    url: format!("{base}/a"),
                },
            )
            .await
            .unwrap();
        settle(&tabs, &tab).await;
        let page = native_handle(&tabs, &tab);
        tabs.list_for_model("s1", None).await.unwrap();

        tabs.navigate(
            &tab,
            p::NavigateTab::Address {
                url: format!("{base}/b"),
            },
        )
        .await
        .unwrap();
        shows(&tabs, &tab, "Page B").await;
        assert_eq!(
            native_handle(&tabs, &tab),
            page,
            "the same page of the browser"
        );
        let e = tabs.read_for_model("s1", &tab).await.unwrap_err();
        assert!(e.contains("navigated"), "{e}");

        tabs.navigate(&tab, p::NavigateTab::Back {}).await.unwrap();
        shows(&tabs, &tab, "Page A").await;
        tabs.navigate(&tab, p::NavigateTab::Forward {})
            .await
            .unwrap();
        shows(&tabs, &tab, "Page B").await;
        tabs.navigate(&tab, p::NavigateTab::Reload {})
            .await
            .unwrap();
        shows(&tabs, &tab, "Page B").await;

        let blank = tabs.open("s1", p::OpenTab::New {}).await.unwrap();
        tabs.navigate(
            &blank,
            p::NavigateTab::Address {
                url: format!("{base}/a"),
            },
        )
        .await
        .unwrap();
        shows(&tabs, &blank, "Page A").await;
        assert_eq!(listed(&tabs, &blank).await.kind, p::TabKind::Web);
        let list: Value = tabs.list_for_model("s1", None).await.unwrap();
        assert_eq!(list["tabs"].as_array().unwrap().len(), 2);
        tabs.shutdown().await;
    }
}
