//! An approved page stays what was approved: a web tab may be read and acted on by the model
//! only while its page is no more private than the address the person opened or approved in it
//! (public < private < loopback, by the same rules as `open_webpage`'s card, `address_kind`).
//! A page that moved itself further in — an HTTP redirect, a meta refresh, a script setting
//! `location`, a link, a move through history — is shown to the person with a notice, listed
//! with one, and refused by `read_webpage` and `preview_tab_action` with what to do instead.
//!
//! Where the tab was opened comes from the browser ([`wisp_preview::TabInfo::opened_url`]:
//! what Wisp navigated it to on the person's or an approved request, or what the person typed
//! in the browser window), never from the page.

use wisp_preview::{LoadState, TabInfo};
use wisp_protocol as p;

use super::address_kind;

/// How private the page at `raw` is. An http(s) address by its host, as the card names it; a
/// `blob:` or `filesystem:` page by the address inside it (its origin); `about:blank` and
/// `about:srcdoc` as public (they hold nothing from any address); anything else — a file, the
/// browser's own pages, a URL that does not parse — as this computer, the most private.
pub(super) fn page_kind(raw: &str) -> p::AddressKind {
    let Ok(url) = url::Url::parse(raw) else {
        return p::AddressKind::Loopback;
    };
    match url.scheme() {
        "http" | "https" => address_kind(&url),
        "blob" | "filesystem" => url::Url::parse(url.path())
            .ok()
            .filter(|inner| matches!(inner.scheme(), "http" | "https"))
            .map_or(p::AddressKind::Loopback, |inner| address_kind(&inner)),
        "about" if matches!(url.path(), "blank" | "srcdoc") => p::AddressKind::Public,
        _ => p::AddressKind::Loopback,
    }
}

/// Whether the page at `url` is more private than `opened` (nothing opened: public only).
pub(super) fn moved_to(url: &str, opened: Option<&str>) -> Option<p::PageMoved> {
    let now = page_kind(url);
    let opened_kind = opened.map_or(p::AddressKind::Public, page_kind);
    (now > opened_kind).then_some(p::PageMoved {
        address_kind: now,
        opened_kind,
    })
}

/// Whether a tab's page, once it has arrived, moved itself more private than what was opened
/// in it. While a navigation loads, the tab is neither read nor acted on anyway, and the notice
/// waits for the page to arrive.
pub(super) fn moved(info: &TabInfo) -> Option<p::PageMoved> {
    if info.load_state == LoadState::Loading {
        return None;
    }
    moved_to(&info.url, info.opened_url.as_deref())
}

fn where_is(kind: p::AddressKind) -> &'static str {
    match kind {
        p::AddressKind::Loopback => "an address on this computer",
        p::AddressKind::Private => "an address on the local network",
        p::AddressKind::Public => "a public address",
    }
}

/// What `tool` tells the model about a tab whose page moved itself: what happened, and that the
/// person can open the address themselves.
pub(super) fn refusal(tool: &str, url: &str, moved: p::PageMoved) -> String {
    let shown = wisp_preview::display_url(url).unwrap_or_else(|| "that page".into());
    format!(
        "refused: the page in this tab moved itself (by a redirect, a refresh, a script, a link or its history; the person did not open it there) from {} that was opened to {} ({shown}); {tool} does not use pages the person did not open there. If you need it, ask the person to open {shown} themselves in the preview's address field, then list the tabs again.",
        where_is(moved.opened_kind),
        where_is(moved.address_kind)
    )
}

/// The note `list_preview_tabs` gives a tab whose page moved itself.
pub(super) fn list_note(moved: p::PageMoved) -> String {
    format!(
        "This page moved itself to {} (more private than {} that was opened); read_webpage and preview_tab_action refuse it. Ask the person to open its address themselves if it should be read.",
        where_is(moved.address_kind),
        where_is(moved.opened_kind)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's class is the card's class of its address; non-web pages are the most
    /// private, blank ones the least.
    #[test]
    fn a_page_is_as_private_as_its_address() {
        use p::AddressKind::{Loopback, Private, Public};
        for (raw, want) in [
            ("https://example.com/a?b#c", Public),
            ("http://public.test:8080/", Public),
            ("http://192.168.1.20/admin", Private),
            ("http://router/", Private),
            ("http://127.0.0.1:9/secret", Loopback),
            ("http://[::1]/", Loopback),
            ("http://localhost:3000/", Loopback),
            // Another spelling of 127.0.0.1 is 127.0.0.1.
            ("http://2130706433/", Loopback),
            ("http://0x7f.1/", Loopback),
            ("blob:https://example.com/0b7c", Public),
            ("blob:http://127.0.0.1:9/0b7c", Loopback),
            ("about:blank", Public),
            ("about:srcdoc", Public),
            ("about:settings", Loopback),
            ("file:///etc/passwd", Loopback),
            ("chrome://settings/", Loopback),
            ("data:text/html,hi", Loopback),
            ("not a url", Loopback),
        ] {
            assert_eq!(page_kind(raw), want, "{raw}");
        }
        assert!(Public < Private && Private < Loopback);
    }

    /// More private than what was opened is moved; as private or less is not.
    #[test]
    fn only_a_page_more_private_than_what_was_opened_has_moved() {
        let public = Some("http://public.test/");
        let lan = Some("http://192.168.0.2/");
        let local = Some("http://127.0.0.1:3000/");
        assert_eq!(
            moved_to("http://127.0.0.1:9/secret", public),
            Some(p::PageMoved {
                address_kind: p::AddressKind::Loopback,
                opened_kind: p::AddressKind::Public
            })
        );
        assert!(moved_to("http://10.0.0.1/", public).is_some());
        assert!(moved_to("http://127.0.0.1:9/", lan).is_some());
        assert!(moved_to("https://example.org/", public).is_none());
        assert!(moved_to("https://example.org/", local).is_none());
        assert!(moved_to("http://127.0.0.1:9/other", local).is_none());
        assert!(moved_to("http://192.168.0.9/", lan).is_none());
        // Nobody vouched for any address: only public pages.
        assert!(moved_to("https://example.org/", None).is_none());
        assert!(moved_to("http://127.0.0.1:9/", None).is_some());
        let said = refusal(
            "read_webpage",
            "http://127.0.0.1:9/secret?token=1",
            p::PageMoved {
                address_kind: p::AddressKind::Loopback,
                opened_kind: p::AddressKind::Public,
            },
        );
        assert!(
            said.starts_with("refused: the page in this tab moved itself")
                && said.contains("from a public address that was opened to an address on this computer (http://127.0.0.1:9/secret)")
                && said.contains("ask the person to open http://127.0.0.1:9/secret themselves")
                && !said.contains("token"),
            "{said}"
        );
    }
}

#[cfg(test)]
mod browser_tests {
    //! Against real headless Chromium: a site on loopback opened under a name that counts as
    //! public, which redirects, refreshes and scripts its way to another loopback port.

    use std::time::{Duration, Instant};

    use serde_json::{Value, json};
    use tokio::sync::broadcast;
    use wisp_protocol as p;
    use wisp_test_support::{attachment, redirect};

    use super::super::tests::{PUBLIC_NAME, headless_public, html, raw_site};
    use super::super::{Kind, Tabs};
    use crate::lock;

    fn page(body: &str) -> String {
        html(&format!("<!doctype html><title>t</title>{body}"))
    }

    /// `open_webpage` once approved, as the UI carries it out: the ticket claimed by the
    /// session and acknowledged; the tab it was shown in.
    async fn approved(
        tabs: &Tabs,
        live: &mut broadcast::Receiver<p::Live>,
        session: &str,
        url: &str,
    ) -> String {
        let call = tokio::spawn({
            let (tabs, session, url) = (tabs.clone(), session.to_owned(), url.to_owned());
            async move {
                tabs.open_for_model(&session, &url, Box::pin(std::future::pending()))
                    .await
            }
        });
        let ticket = loop {
            let event = tokio::time::timeout(Duration::from_secs(10), live.recv())
                .await
                .expect("no ticket was announced")
                .unwrap();
            if let p::Live::Tabs(p::TabLive::OpenTicket { ticket, .. }) = event {
                break ticket;
            }
        };
        let claimed = tabs.claim_ticket(&ticket.ticket_id, session).await.unwrap();
        tabs.ack_ticket(&ticket.ticket_id).unwrap();
        assert_eq!(
            call.await.unwrap().unwrap()["status"],
            "open_request_accepted"
        );
        claimed.tab_id
    }

    /// Waits until the tab shows `url`, loaded (20 s at most).
    async fn arrives(tabs: &Tabs, tab: &str, url: &str) {
        let handle = match &lock(&tabs.shared.state).tabs[tab].kind {
            Kind::Web {
                native: Some(h), ..
            } => *h,
            _ => panic!("not a native web tab"),
        };
        let browser = tabs.running().await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let info = browser.tab_info(handle).unwrap();
            if info.url == url && info.load_state == wisp_preview::LoadState::Loaded {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "never arrived at {url}: {info:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The listed entry of `tab` (listing binds the model's next read and action).
    async fn listed(tabs: &Tabs, session: &str, tab: &str) -> Value {
        let list = tabs.list_for_model(session, None).await.unwrap();
        list["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["tabId"] == tab)
            .cloned()
            .unwrap()
    }

    async fn wire(tabs: &Tabs, session: &str, tab: &str) -> p::PreviewTab {
        tabs.list_wire(session)
            .await
            .into_iter()
            .find(|t| t.tab_id == tab)
            .unwrap()
    }

    /// An approved public page that redirects, refreshes or scripts itself to a loopback port
    /// is neither read nor acted on, and its tab says so to the person and the model; what the
    /// person opens themselves, an approved loopback address, and a page that moves between
    /// public addresses stay readable; a download the page starts is refused and shown.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_that_moved_itself_is_neither_read_nor_acted_on() {
        let local = raw_site(vec![("/secret", page("<p>admin password 1234</p>"))]).await;
        let secret = format!("http://127.0.0.1:{local}/secret");
        let elsewhere = raw_site(vec![("/plain", page("<p>another public page</p>"))]).await;
        let plain = format!("http://{PUBLIC_NAME}:{elsewhere}/plain");
        let site = raw_site(vec![
            ("/redirect", redirect(&secret)),
            (
                "/refresh",
                page(&format!(
                    "<meta http-equiv=refresh content='0;url={secret}'><p>moving</p>"
                )),
            ),
            (
                "/script",
                page(&format!(
                    "<p>moving</p><script>setTimeout(() => {{ location = '{secret}'; }}, 200)</script>"
                )),
            ),
            ("/hop", redirect(&plain)),
            (
                "/download",
                page(
                    "<a id=a href='/evil.sh'>x</a><script>setTimeout(() => document.getElementById('a').click(), 200)</script><p>a page</p>",
                ),
            ),
            ("/evil.sh", attachment("evil.sh", "echo hi")),
        ])
        .await;
        let public = |path: &str| format!("http://{PUBLIC_NAME}:{site}{path}");
        let (events, mut live) = broadcast::channel(256);
        let tabs = Tabs::new(events);
        let profile = tempfile::tempdir().unwrap();
        tabs.set_backend(headless_public(profile.path()));

        let moved = json!({"addressKind": "loopback", "openedKind": "public"});
        let mut tab = String::new();
        for how in ["/redirect", "/refresh", "/script"] {
            // The session's web tab is reused: each approval is what the tab was opened at.
            tab = approved(&tabs, &mut live, "s1", &public(how)).await;
            arrives(&tabs, &tab, &secret).await;
            let entry = listed(&tabs, "s1", &tab).await;
            assert_eq!(entry["moved"], moved, "{how}: {entry}");
            // Its title is the moved page's own text: not given either.
            assert_eq!(entry["title"], "", "{how}: {entry}");
            assert!(
                entry["note"]
                    .as_str()
                    .unwrap()
                    .starts_with("This page moved itself to an address on this computer"),
                "{entry}"
            );
            let e = tabs.read_for_model("s1", &tab).await.unwrap_err();
            assert!(
                e.starts_with("refused: the page in this tab moved itself")
                    && e.contains(&format!("ask the person to open {secret} themselves"))
                    && !e.contains("admin password"),
                "{how}: {e}"
            );
            for action in ["reload", "back"] {
                listed(&tabs, "s1", &tab).await;
                let e = tabs
                    .act_for_model("s1", &tab, action, None)
                    .await
                    .unwrap_err();
                assert!(
                    e.starts_with("refused: the page in this tab moved itself")
                        && e.contains("preview_tab_action does not use"),
                    "{how} {action}: {e}"
                );
            }
            assert_eq!(
                wire(&tabs, "s1", &tab).await.moved,
                Some(p::PageMoved {
                    address_kind: p::AddressKind::Loopback,
                    opened_kind: p::AddressKind::Public
                }),
                "{how}"
            );
        }

        // The person opens that address themselves: a tab of its own, read.
        let mine = tabs
            .open(
                "s1",
                p::OpenTab::Web {
                    url: secret.clone(),
                },
            )
            .await
            .unwrap();
        arrives(&tabs, &mine, &secret).await;
        assert!(listed(&tabs, "s1", &mine).await.get("moved").is_none());
        let read = tabs.read_for_model("s1", &mine).await.unwrap();
        assert_eq!(read["text"], "admin password 1234");
        assert_eq!(wire(&tabs, "s1", &mine).await.moved, None);
        // The moved tab, approved again at that loopback address: read too.
        let again = approved(&tabs, &mut live, "s1", &secret).await;
        assert_eq!(again, mine, "the active web tab is reused");
        arrives(&tabs, &again, &secret).await;
        listed(&tabs, "s1", &again).await;
        assert_eq!(
            tabs.read_for_model("s1", &again).await.unwrap()["text"],
            "admin password 1234"
        );
        assert!(
            wire(&tabs, "s1", &tab).await.moved.is_some(),
            "the other tab still moved"
        );

        // A public page that moves to another public address stays readable.
        let hop = approved(&tabs, &mut live, "s2", &public("/hop")).await;
        arrives(&tabs, &hop, &plain).await;
        assert!(listed(&tabs, "s2", &hop).await.get("moved").is_none());
        assert_eq!(
            tabs.read_for_model("s2", &hop).await.unwrap()["text"],
            "another public page"
        );

        // A download the approved page starts is refused; the tab says so.
        let dl = approved(&tabs, &mut live, "s3", &public("/download")).await;
        let deadline = Instant::now() + Duration::from_secs(20);
        while wire(&tabs, "s3", &dl).await.blocked_downloads.is_none() {
            assert!(Instant::now() < deadline, "no download was blocked");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            wire(&tabs, "s3", &dl).await.blocked_downloads,
            Some(p::BlockedDownloads {
                count: 1,
                last_file_name: "evil.sh".into()
            })
        );
        assert_eq!(listed(&tabs, "s3", &dl).await["downloadsBlocked"], 1);
        tabs.shutdown().await;
    }
}
