//! The one-time tickets of `open_webpage` (WEB-02..07): after the person approved a URL, the
//! Host announces a ticket on the session's event stream; the session's UI claims it (the Host
//! then shows the URL in the session's web tab, reused or opened, and makes it active) and
//! acknowledges once the tab is shown. The tool's result is `open_request_accepted` only after
//! that acknowledgement, and it never says the page loaded.
//!
//! A ticket lives in memory only, for as long as its tool call waits: unclaimed within
//! [`TICKET_CLAIM_TIMEOUT`], unacknowledged within [`TICKET_ACK_TIMEOUT`], cancelled, claimed
//! from another session or claimed twice, it opens nothing more, and once the call has ended its
//! ID names nothing (404) — also after a restart, which therefore opens nothing (WEB-06).

use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::{Value, json};
use tokio::sync::watch;
use wisp_protocol as p;

use super::{Kind, PreviewBackend, Tabs};
use crate::limits::{TICKET_ACK_TIMEOUT, TICKET_CLAIM_TIMEOUT};
use crate::tool::BoxFuture;
use crate::{CoreError, CoreErrorKind, fail, lock, new_id};

/// One ticket waiting for its UI.
pub(super) struct Ticket {
    session: String,
    url: String,
    phase: watch::Sender<Phase>,
}

/// Where a ticket is.
#[derive(Clone, Debug)]
enum Phase {
    /// Announced; nobody claimed it yet.
    Pending,
    /// Claimed: the Host is showing the URL.
    Showing,
    /// Shown in this tab; waiting for the acknowledgement.
    Shown(String),
    /// Acknowledged: the open request was accepted in this tab.
    Accepted(String),
    /// Opens nothing more, for this reason (said to the model).
    Void(String),
}

/// Removes the ticket when its call ends, however it ends (a cancelled run drops the future).
struct Issued {
    tabs: Tabs,
    id: String,
}

impl Drop for Issued {
    fn drop(&mut self) {
        lock(&self.tabs.shared.tickets).remove(&self.id);
    }
}

/// What the approval card names about a URL's host (WEB-02): `loopback` (this machine),
/// `private` (a local network) or `public`. Told by the address itself, or for a name by what
/// the name means by definition (`localhost`, a single label, `.local`, `.internal`, …); a name
/// is never resolved here, so a public-looking name is `public` whatever it resolves to.
pub(crate) fn address_kind(url: &url::Url) -> p::AddressKind {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ipv4_kind(ip),
        Some(url::Host::Ipv6(ip)) => ipv6_kind(ip),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                p::AddressKind::Loopback
            } else if !name.contains('.')
                || [
                    ".local",
                    ".lan",
                    ".internal",
                    ".intranet",
                    ".home.arpa",
                    ".corp",
                ]
                .iter()
                .any(|s| name.ends_with(s))
            {
                p::AddressKind::Private
            } else {
                p::AddressKind::Public
            }
        }
        None => p::AddressKind::Public,
    }
}

fn ipv4_kind(ip: Ipv4Addr) -> p::AddressKind {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() || ip.is_unspecified() {
        p::AddressKind::Loopback
    } else if ip.is_private()
        || ip.is_link_local()
        // Shared address space (RFC 6598), used inside providers' and VPN networks.
        || (a == 100 && (64..128).contains(&b))
    {
        p::AddressKind::Private
    } else {
        p::AddressKind::Public
    }
}

fn ipv6_kind(ip: Ipv6Addr) -> p::AddressKind {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return ipv4_kind(v4);
    }
    let first = ip.segments()[0];
    if ip.is_loopback() || ip.is_unspecified() {
        p::AddressKind::Loopback
    } else if (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80 {
        // Unique local (fc00::/7) and link-local (fe80::/10).
        p::AddressKind::Private
    } else {
        p::AddressKind::Public
    }
}

fn gone(id: &str) -> CoreError {
    fail(
        CoreErrorKind::NotFound,
        format!(
            "no open ticket {id}: it was used, expired or cancelled (tickets do not survive a restart)"
        ),
    )
}

impl Tabs {
    /// `open_webpage` once approved: announces a ticket to the session's UI and waits for its
    /// claim and acknowledgement (or the timeouts, or `cancelled`). The result never says the
    /// page loaded; an error says why nothing (more) was opened.
    pub(crate) async fn open_for_model(
        &self,
        session: &str,
        url: &str,
        cancelled: BoxFuture<()>,
    ) -> Result<Value, String> {
        let id = new_id("tk");
        let (phase, mut seen) = watch::channel(Phase::Pending);
        lock(&self.shared.tickets).insert(
            id.clone(),
            Ticket {
                session: session.to_owned(),
                url: url.to_owned(),
                phase,
            },
        );
        let _issued = Issued {
            tabs: self.clone(),
            id: id.clone(),
        };
        self.announce(session, &id, url);
        let mut cancelled = cancelled;
        // Biased towards what the preview did: a claim or acknowledgement that arrived together
        // with a cancel or the deadline happened, and the record must say so.
        let claimed = tokio::select! {
            biased;
            p = seen.wait_for(|p| !matches!(p, Phase::Pending)) => p.map(|p| p.clone()),
            _ = &mut cancelled => return Err("cancelled before the preview claimed the request; nothing was opened".into()),
            _ = tokio::time::sleep(TICKET_CLAIM_TIMEOUT) => return Err(format!(
                "not opened: no Wisp window showing this session claimed the request within {} s; nothing was opened (ask the person to open the page, or call open_webpage again)",
                TICKET_CLAIM_TIMEOUT.as_secs()
            )),
        };
        if let Ok(Phase::Void(reason)) = claimed {
            return Err(reason);
        }
        let acked = tokio::select! {
            biased;
            p = seen.wait_for(|p| matches!(p, Phase::Accepted(_) | Phase::Void(_))) => p.ok().map(|p| p.clone()),
            _ = &mut cancelled => return Err("cancelled after the preview was asked to show the page; it may show it, and nothing is undone".into()),
            _ = tokio::time::sleep(TICKET_ACK_TIMEOUT) => None,
        };
        match acked {
            Some(Phase::Accepted(tab)) => Ok(json!({
                "status": "open_request_accepted",
                "tabId": tab,
                "url": url,
                "note": "The preview accepted the request to show this URL; this does not mean the page loaded. Loading and its errors are shown in the tab.",
            })),
            Some(Phase::Void(reason)) => Err(reason),
            _ => {
                let tab = match &*seen.borrow() {
                    Phase::Shown(tab) => format!(" in tab {tab}"),
                    _ => String::new(),
                };
                Err(format!(
                    "status unknown: the preview was asked to show the page{tab} but did not confirm within {} s; nothing is retried",
                    TICKET_ACK_TIMEOUT.as_secs()
                ))
            }
        }
    }

    fn announce(&self, session: &str, id: &str, url: &str) {
        let _ = self
            .shared
            .events
            .send(p::Live::Tabs(p::TabLive::OpenTicket {
                session_id: session.to_owned(),
                ticket: p::OpenTicket {
                    ticket_id: id.to_owned(),
                    url: url.to_owned(),
                },
            }));
    }

    /// The session's tickets still waiting for a claim (announced again to a stream that
    /// connects, so a UI that reloaded can claim them).
    pub(crate) fn pending_tickets(&self, session: &str) -> Vec<p::OpenTicket> {
        lock(&self.shared.tickets)
            .iter()
            .filter(|(_, t)| t.session == session && matches!(*t.phase.borrow(), Phase::Pending))
            .map(|(id, t)| p::OpenTicket {
                ticket_id: id.clone(),
                url: t.url.clone(),
            })
            .collect()
    }

    /// `POST /api/tickets/{id}/claim`: the session's UI claims a ticket; the URL is shown in
    /// the session's web tab, which becomes active. Once only, and only by its own session: a
    /// claim from another session is refused and voids the ticket.
    pub(crate) async fn claim_ticket(
        &self,
        id: &str,
        session: &str,
    ) -> Result<p::TicketClaimed, CoreError> {
        let url = {
            let tickets = lock(&self.shared.tickets);
            let ticket = tickets.get(id).ok_or_else(|| gone(id))?;
            let phase = ticket.phase.borrow().clone();
            match phase {
                Phase::Pending => {}
                Phase::Void(_) => {
                    return Err(fail(
                        CoreErrorKind::Conflict,
                        format!("ticket {id} is void; it opens nothing"),
                    ));
                }
                _ => {
                    return Err(fail(
                        CoreErrorKind::Conflict,
                        format!("ticket {id} was already claimed; a ticket opens once"),
                    ));
                }
            }
            if ticket.session != session {
                ticket.phase.send_replace(Phase::Void(
                    "not opened: the request was claimed from another session's window; the ticket is void and nothing was opened".into(),
                ));
                return Err(fail(
                    CoreErrorKind::Conflict,
                    format!(
                        "ticket {id} belongs to another session; it is now void and nothing was opened"
                    ),
                ));
            }
            ticket.phase.send_replace(Phase::Showing);
            ticket.url.clone()
        };
        let shown = self.show_in_web_tab(session, &url).await;
        let set = |phase: Phase| {
            if let Some(t) = lock(&self.shared.tickets).get(id) {
                t.phase.send_replace(phase);
            }
        };
        match shown {
            Ok(tab_id) => {
                set(Phase::Shown(tab_id.clone()));
                Ok(p::TicketClaimed { tab_id, url })
            }
            Err(e) => {
                set(Phase::Void(format!(
                    "not opened: the preview could not show the page ({})",
                    e.message
                )));
                Err(e)
            }
        }
    }

    /// `POST /api/tickets/{id}/ack`: the UI shows the claimed tab; the call's result becomes
    /// `open_request_accepted`.
    pub(crate) fn ack_ticket(&self, id: &str) -> Result<p::TicketAcked, CoreError> {
        let tickets = lock(&self.shared.tickets);
        let ticket = tickets.get(id).ok_or_else(|| gone(id))?;
        let phase = ticket.phase.borrow().clone();
        match phase {
            Phase::Shown(tab) => {
                ticket.phase.send_replace(Phase::Accepted(tab));
                Ok(p::TicketAcked {
                    status: p::TicketStatus::Accepted,
                })
            }
            Phase::Pending => Err(fail(
                CoreErrorKind::Conflict,
                format!("ticket {id} is not claimed; claim it first"),
            )),
            Phase::Showing => Err(fail(
                CoreErrorKind::Conflict,
                format!("ticket {id} is still being shown; acknowledge it once its claim answered"),
            )),
            Phase::Accepted(_) => Err(fail(
                CoreErrorKind::Conflict,
                format!("ticket {id} was already acknowledged"),
            )),
            Phase::Void(_) => Err(fail(
                CoreErrorKind::Conflict,
                format!("ticket {id} is void; it opens nothing"),
            )),
        }
    }

    /// Shows `url` in the session's web tab — the active tab if it is a web tab, else the first
    /// web tab in panel order, else a new one — and makes that tab active (UI-07).
    async fn show_in_web_tab(&self, session: &str, url: &str) -> Result<String, CoreError> {
        let reuse = {
            let state = lock(&self.shared.state);
            let web = |id: &&String| {
                state
                    .tabs
                    .get(*id)
                    .is_some_and(|t| matches!(t.kind, Kind::Web { .. }))
            };
            let active = state.active.get(session).filter(web).cloned();
            active.or_else(|| {
                state
                    .order
                    .get(session)
                    .and_then(|o| o.iter().find(web).cloned())
            })
        };
        let Some(tab) = reuse else {
            return self.open_web(session, url).await;
        };
        let native = match lock(&self.shared.state).tabs.get(&tab).map(|t| &t.kind) {
            Some(Kind::Web { native, .. }) => *native,
            _ => None,
        };
        if let (Some(handle), PreviewBackend::Native(_)) = (native, self.backend()) {
            let navigated = match self.running().await {
                Some(browser) => browser.navigate(handle, url).await.is_ok(),
                None => false,
            };
            if !navigated {
                // The page went away meanwhile (closed, browser gone): a new tab instead.
                return self.open_web(session, url).await;
            }
        }
        {
            let mut state = lock(&self.shared.state);
            if let Some(Kind::Web { url: shown, .. }) =
                state.tabs.get_mut(&tab).map(|t| &mut t.kind)
            {
                url.clone_into(shown);
            }
            state.active.insert(session.to_owned(), tab.clone());
        }
        self.changed(session);
        Ok(tab)
    }
}

#[cfg(test)]
mod tests {
    use tokio::sync::broadcast;

    use super::*;

    fn kind(raw: &str) -> &'static str {
        match address_kind(&url::Url::parse(raw).unwrap()) {
            p::AddressKind::Loopback => "loopback",
            p::AddressKind::Private => "private",
            p::AddressKind::Public => "public",
        }
    }

    /// WEB-02: loopback and private addresses are named as such.
    #[test]
    fn address_kinds_name_loopback_private_and_public() {
        for (raw, want) in [
            ("http://127.0.0.1:8080/", "loopback"),
            ("http://127.9.9.9/", "loopback"),
            ("http://0.0.0.0/", "loopback"),
            ("http://localhost/", "loopback"),
            ("http://app.localhost./", "loopback"),
            ("http://[::1]/", "loopback"),
            ("http://[::ffff:127.0.0.1]/", "loopback"),
            ("http://10.1.2.3/", "private"),
            ("http://172.16.0.1/", "private"),
            ("http://172.31.255.255/", "private"),
            ("http://192.168.1.1/", "private"),
            ("http://169.254.1.1/", "private"),
            ("http://100.64.0.1/", "private"),
            ("http://100.127.255.255/", "private"),
            ("http://[fd00::1]/", "private"),
            ("http://[fe80::1]/", "private"),
            ("http://router/", "private"),
            ("http://printer.local/", "private"),
            ("http://nas.home.arpa/", "private"),
            ("https://example.com/", "public"),
            ("http://172.32.0.1/", "public"),
            ("http://100.128.0.1/", "public"),
            ("http://8.8.8.8/", "public"),
            ("http://[2001:db8::1]/", "public"),
            ("https://localhost.example.com/", "public"),
        ] {
            assert_eq!(kind(raw), want, "{raw}");
        }
    }

    fn web_only() -> (Tabs, broadcast::Receiver<p::Live>) {
        let (events, live) = broadcast::channel(64);
        let tabs = Tabs::new(events);
        tabs.set_backend(PreviewBackend::WebOnly("Wisp runs with --web-only".into()));
        (tabs, live)
    }

    /// The next ticket announced; a ticket never announced fails the test instead of hanging it.
    async fn announced(live: &mut broadcast::Receiver<p::Live>) -> (String, p::OpenTicket) {
        loop {
            let event = tokio::time::timeout(std::time::Duration::from_secs(10), live.recv())
                .await
                .expect("no ticket was announced within 10 s");
            if let p::Live::Tabs(p::TabLive::OpenTicket { session_id, ticket }) = event.unwrap() {
                return (session_id, ticket);
            }
        }
    }

    fn never() -> BoxFuture<()> {
        Box::pin(std::future::pending())
    }

    /// WEB-03/04, UI-07: claim reuses the session's web tab and makes it active; the ack makes
    /// the result `open_request_accepted`; the used ticket names nothing afterwards.
    #[tokio::test]
    async fn a_claimed_and_acknowledged_ticket_reuses_the_web_tab() {
        let (tabs, mut live) = web_only();
        let web = tabs
            .open(
                "s1",
                p::OpenTab::Web {
                    url: "https://example.com/old".into(),
                },
            )
            .await
            .unwrap();
        let blank = tabs.open("s1", p::OpenTab::New {}).await.unwrap();
        let call = tokio::spawn({
            let tabs = tabs.clone();
            async move {
                tabs.open_for_model("s1", "http://127.0.0.1:9/site/", never())
                    .await
            }
        });
        let (session, ticket) = announced(&mut live).await;
        assert_eq!(session, "s1");
        assert_eq!(ticket.url, "http://127.0.0.1:9/site/");
        assert_eq!(tabs.pending_tickets("s1"), std::slice::from_ref(&ticket));
        assert!(tabs.pending_tickets("s2").is_empty());
        let e = tabs.ack_ticket(&ticket.ticket_id).unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::Conflict, "ack before claim");

        let claimed = tabs.claim_ticket(&ticket.ticket_id, "s1").await.unwrap();
        assert_eq!(
            claimed.tab_id, web,
            "the web tab is reused, not the active blank one"
        );
        assert!(tabs.pending_tickets("s1").is_empty());
        let e = tabs
            .claim_ticket(&ticket.ticket_id, "s1")
            .await
            .unwrap_err();
        assert!(e.message.contains("already claimed"), "{e}");
        let wire = tabs.list_wire("s1").await;
        assert_eq!(wire.len(), 2);
        assert_eq!(
            (
                wire[0].tab_id.as_str(),
                wire[0].active,
                wire[0].url.as_deref()
            ),
            (web.as_str(), true, Some("http://127.0.0.1:9/site/"))
        );
        assert_eq!(
            (wire[1].tab_id.as_str(), wire[1].active),
            (blank.as_str(), false)
        );

        tabs.ack_ticket(&ticket.ticket_id).unwrap();
        let result = call.await.unwrap().unwrap();
        assert_eq!(result["status"], "open_request_accepted");
        assert_eq!(result["tabId"], web);
        assert!(!result.to_string().contains("loaded\""));
        assert_eq!(
            tabs.claim_ticket(&ticket.ticket_id, "s1")
                .await
                .unwrap_err()
                .kind,
            CoreErrorKind::NotFound
        );
        assert_eq!(
            tabs.ack_ticket(&ticket.ticket_id).unwrap_err().kind,
            CoreErrorKind::NotFound
        );
    }

    /// A claim and acknowledgement that are already in when the cancel arrives happened: the
    /// call says the request was accepted, never that it was cancelled before anything opened.
    /// Every round makes both ready before the call is polled again; an unbiased wait would
    /// pick the cancel in about half of them.
    #[tokio::test]
    async fn an_acknowledgement_in_with_a_cancel_is_reported_as_accepted() {
        for round in 0..32 {
            let (tabs, mut live) = web_only();
            let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
            let call = tokio::spawn({
                let tabs = tabs.clone();
                async move {
                    let cancelled: BoxFuture<()> = Box::pin(async move {
                        let _ = cancelled.await;
                    });
                    tabs.open_for_model("s1", "https://example.com/", cancelled)
                        .await
                }
            });
            let (_, ticket) = announced(&mut live).await;
            tabs.claim_ticket(&ticket.ticket_id, "s1").await.unwrap();
            cancel.send(()).unwrap();
            tabs.ack_ticket(&ticket.ticket_id).unwrap();
            let result = call.await.unwrap();
            assert_eq!(
                result.as_ref().map(|r| r["status"].clone()),
                Ok(json!("open_request_accepted")),
                "round {round}: {result:?}"
            );
        }
    }

    /// WEB-06: a claim from another session voids the ticket; nothing opens in either session.
    #[tokio::test]
    async fn a_cross_session_claim_voids_the_ticket() {
        let (tabs, mut live) = web_only();
        let call = tokio::spawn({
            let tabs = tabs.clone();
            async move {
                tabs.open_for_model("s1", "https://example.com/", never())
                    .await
            }
        });
        let (_, ticket) = announced(&mut live).await;
        let e = tabs
            .claim_ticket(&ticket.ticket_id, "s2")
            .await
            .unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::Conflict);
        let e = tabs
            .claim_ticket(&ticket.ticket_id, "s1")
            .await
            .unwrap_err();
        assert!(e.message.contains("void"), "{e}");
        let e = call.await.unwrap().unwrap_err();
        assert!(
            e.contains("another session") && e.contains("nothing was opened"),
            "{e}"
        );
        assert!(tabs.list_wire("s1").await.is_empty());
        assert!(tabs.list_wire("s2").await.is_empty());
    }

    /// WEB-06: unclaimed within the timeout, or claimed but never acknowledged, the call says
    /// so and the ticket is gone; a cancel before the claim opens nothing.
    #[tokio::test(start_paused = true)]
    async fn unclaimed_unacknowledged_and_cancelled_tickets_open_nothing() {
        let (tabs, mut live) = web_only();
        let e = tabs
            .open_for_model("s1", "https://example.com/", never())
            .await
            .unwrap_err();
        assert!(e.contains("not opened") && e.contains("30 s"), "{e}");
        let (_, ticket) = announced(&mut live).await;
        assert_eq!(
            tabs.claim_ticket(&ticket.ticket_id, "s1")
                .await
                .unwrap_err()
                .kind,
            CoreErrorKind::NotFound
        );
        assert!(tabs.list_wire("s1").await.is_empty());

        // Claimed, never acknowledged: status unknown, not accepted.
        let call = tokio::spawn({
            let tabs = tabs.clone();
            async move {
                tabs.open_for_model("s1", "https://example.com/", never())
                    .await
            }
        });
        let (_, ticket) = announced(&mut live).await;
        let claimed = tabs.claim_ticket(&ticket.ticket_id, "s1").await.unwrap();
        let e = call.await.unwrap().unwrap_err();
        assert!(
            e.starts_with("status unknown") && e.contains(&claimed.tab_id),
            "{e}"
        );
        assert_eq!(
            tabs.ack_ticket(&ticket.ticket_id).unwrap_err().kind,
            CoreErrorKind::NotFound
        );

        // Cancelled before the claim.
        let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
        let call = tokio::spawn({
            let tabs = tabs.clone();
            async move {
                tabs.open_for_model(
                    "s1",
                    "https://example.org/",
                    Box::pin(async move {
                        let _ = cancelled.await;
                    }),
                )
                .await
            }
        });
        let (_, ticket) = announced(&mut live).await;
        cancel.send(()).unwrap();
        let e = call.await.unwrap().unwrap_err();
        assert!(e.contains("nothing was opened"), "{e}");
        assert_eq!(
            tabs.claim_ticket(&ticket.ticket_id, "s1")
                .await
                .unwrap_err()
                .kind,
            CoreErrorKind::NotFound
        );
        let wire = tabs.list_wire("s1").await;
        assert_eq!(wire.len(), 1, "only the tab the claimed ticket opened");
    }

    /// WEB-06: a claim the preview cannot carry out (here the browser does not start) voids the
    /// ticket while the call already waits for the acknowledgement: the call says what failed
    /// and that nothing was opened, never "status unknown"; no tab is left behind.
    #[tokio::test]
    async fn a_claim_the_preview_cannot_show_voids_the_ticket() {
        let (events, mut live) = broadcast::channel(64);
        let tabs = Tabs::new(events);
        let profile = tempfile::tempdir().unwrap();
        tabs.set_backend(crate::tabs::tests::headless(
            "/bin/false".into(),
            profile.path(),
        ));
        let call = tokio::spawn({
            let tabs = tabs.clone();
            async move {
                tabs.open_for_model("s1", "http://127.0.0.1:9/", never())
                    .await
            }
        });
        let (_, ticket) = announced(&mut live).await;
        let e = tabs
            .claim_ticket(&ticket.ticket_id, "s1")
            .await
            .unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::Conflict, "{e}");
        let e = tokio::time::timeout(std::time::Duration::from_secs(20), call)
            .await
            .unwrap()
            .unwrap()
            .unwrap_err();
        assert!(
            e.starts_with("not opened: the preview could not show the page ("),
            "{e}"
        );
        assert_eq!(
            tabs.ack_ticket(&ticket.ticket_id).unwrap_err().kind,
            CoreErrorKind::NotFound
        );
        assert!(tabs.list_wire("s1").await.is_empty());
    }

    /// WEB-03, UI-07: with a browser, a claim navigates the session's own native page (the same
    /// tab, not a new one) to the ticket's URL.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_claim_navigates_the_reused_native_page() {
        let base = crate::tabs::tests::site(&[
            ("/old", "<title>Old</title><p>old</p>"),
            ("/new", "<title>New</title><p>new</p>"),
        ])
        .await;
        let (events, mut live) = broadcast::channel(256);
        let tabs = Tabs::new(events);
        let profile = tempfile::tempdir().unwrap();
        tabs.set_backend(crate::tabs::tests::headless(
            wisp_preview::find_browser().unwrap(),
            profile.path(),
        ));
        let web = tabs
            .open(
                "s1",
                p::OpenTab::Web {
                    url: format!("{base}/old"),
                },
            )
            .await
            .unwrap();
        let handle = match &lock(&tabs.shared.state).tabs[&web].kind {
            Kind::Web {
                native: Some(h), ..
            } => *h,
            _ => panic!("not a native web tab"),
        };
        let browser = tabs.running().await.unwrap();
        let settled = std::time::Duration::from_secs(20);
        let info = browser.wait_settled(handle, settled).await.unwrap();
        assert_eq!(info.url, format!("{base}/old"));

        let call = tokio::spawn({
            let tabs = tabs.clone();
            let url = format!("{base}/new");
            async move { tabs.open_for_model("s1", &url, never()).await }
        });
        let (_, ticket) = announced(&mut live).await;
        let claimed = tabs.claim_ticket(&ticket.ticket_id, "s1").await.unwrap();
        assert_eq!(claimed.tab_id, web, "the session's web tab is reused");
        let deadline = std::time::Instant::now() + settled;
        loop {
            let info = browser.wait_settled(handle, settled).await.unwrap();
            // The title may arrive after the URL; both are the new page's once it loaded.
            if info.url == format!("{base}/new") && info.title == "New" {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the page was never navigated: {info:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        tabs.ack_ticket(&ticket.ticket_id).unwrap();
        let result = call.await.unwrap().unwrap();
        assert_eq!(result["tabId"], web);
        assert_eq!(tabs.list_wire("s1").await.len(), 1, "no second tab");
        browser.shutdown().await;
    }
}
