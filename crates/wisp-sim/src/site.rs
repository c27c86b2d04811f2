//! A tiny web site on the simulator's own loopback port, so `[demo:openweb]` has a page to open
//! without the network (SIM-08): `/site/` links to `/site/about` and `/site/contact`. Static
//! HTML only, no state, no key needed (a browser loads it as any page); nothing here frames,
//! scripts or sets cookies.

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// Where the site starts on the simulator.
pub const SITE_HOME: &str = "/site/";

/// The site's pages: path, title, body.
const PAGES: &[(&str, &str, &str)] = &[
    (
        "/site/",
        "Wisp test site",
        "<main><h1>Wisp test site 测试网站</h1><p>A local page served by the simulator, for the preview tabs.</p><ul><li><a href=\"/site/about\">About</a></li><li><a href=\"/site/contact\">Contact</a></li></ul></main>",
    ),
    (
        "/site/about",
        "About the test site",
        "<main><h1>About</h1><p>This site lives on the simulator's loopback port; it has three pages and no scripts.</p><p><a href=\"/site/\">Home</a></p></main>",
    ),
    (
        "/site/contact",
        "Contact",
        "<main><h1>Contact</h1><p>Nobody to contact: this is a test page.</p><p><a href=\"/site/\">Home</a></p></main>",
    ),
];

fn page(path: &str) -> Response {
    let Some((_, title, body)) = PAGES.iter().find(|(p, _, _)| *p == path) else {
        return axum::http::StatusCode::NOT_FOUND.into_response();
    };
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body>{body}</body></html>"
    );
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        html,
    )
        .into_response()
}

/// The site's routes, for any router state (the pages need none).
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let mut router = Router::new().route("/site", get(|| async { page("/site/") }));
    for (path, _, _) in PAGES {
        router = router.route(path, get(move || async move { page(path) }));
    }
    router
}
