//! Wisp's local API: the only crate that speaks HTTP. It checks who is asking, turns requests
//! into [`wisp_core::Host`] calls and answers with `wisp-protocol` types.
//!
//! Every request must name the exact Host `127.0.0.1:PORT` or `localhost:PORT` (DNS
//! rebinding), carry no foreign `Origin`, and — for every `/api` path but `/api/health` — the
//! per-launch token as `Authorization: Bearer`, compared in constant time. A write with a body
//! must be `application/json`. There is no CORS at all: the UI is served from the same origin.
//!
//! It never prints, and it never logs tokens, bodies, file contents or reasoning.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use wisp_core::{CoreError, CoreErrorKind, Host};
use wisp_protocol as p;

/// The OpenAPI document of this API.
pub const OPENAPI: &str = include_str!("openapi.json");

/// What the API needs besides the runtime.
#[derive(Clone)]
pub struct ApiConfig {
    /// The per-launch token.
    pub token: String,
    /// The port the listener is bound to (for the Host and Origin checks).
    pub port: u16,
}

#[derive(Clone)]
struct AppState {
    host: Host,
    config: Arc<ApiConfig>,
}

/// The router: `/api/*` and the page at `/`.
pub fn app(host: Host, config: ApiConfig) -> Router {
    let state = AppState {
        host,
        config: Arc::new(config),
    };
    Router::new()
        .route("/", get(index))
        .route("/qa.html", get(qa))
        .route("/assets/{*path}", get(asset))
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi))
        .route("/api/projects", get(list_projects).post(create_project))
        .route("/api/sessions", get(list_sessions).post(create_session))
        .route(
            "/api/sessions/{id}",
            get(get_session)
                .patch(update_session)
                .delete(delete_session),
        )
        .route("/api/sessions/{id}/preview", get(preview))
        .route("/api/sessions/{id}/runs", get(list_runs).post(start_run))
        .route("/api/sessions/{id}/events", get(events))
        .route("/api/sessions/{id}/tools", get(session_tools))
        .route("/api/runs/{id}", get(get_run))
        .route("/api/runs/{id}/cancel", post(cancel_run))
        .route("/api/approvals/{id}", post(decide))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Serves `app` on `listener` until `shutdown` resolves; in-flight requests finish first.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

/// An API error: status and a body that says what to do. Never carries internals.
struct ApiError(StatusCode, &'static str, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = p::ApiError {
            error: self.1.to_owned(),
            message: self.2,
        };
        (self.0, Json(body)).into_response()
    }
}

impl From<CoreError> for ApiError {
    fn from(e: CoreError) -> Self {
        let (status, code) = match e.kind {
            CoreErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            CoreErrorKind::Conflict => (StatusCode::CONFLICT, "conflict"),
            CoreErrorKind::Invalid => (StatusCode::BAD_REQUEST, "invalid"),
            CoreErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        ApiError(status, code, e.message)
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> Self {
        ApiError(StatusCode::BAD_REQUEST, "invalid_body", e.body_text())
    }
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// Host, Origin, token and content-type checks, before any handler runs.
async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let port = state.config.port;
    let headers = request.headers();
    let host_ok = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| h == format!("127.0.0.1:{port}") || h == format!("localhost:{port}"));
    if !host_ok {
        return ApiError(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "this API answers only to 127.0.0.1 and localhost".into(),
        )
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| {
            o == format!("http://127.0.0.1:{port}") || o == format!("http://localhost:{port}")
        });
        if !ok {
            return ApiError(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "requests from other web pages are refused".into(),
            )
            .into_response();
        }
    }
    let path = request.uri().path();
    if path.starts_with("/api/") && path != "/api/health" && !token_ok(headers, &state.config.token)
    {
        return ApiError(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong token: open the URL Wisp printed at start (it carries the token)"
                .into(),
        )
        .into_response();
    }
    let writes = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    if writes && has_body(headers) && !is_json(headers) {
        return ApiError(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as Content-Type: application/json".into(),
        )
        .into_response();
    }
    next.run(request).await
}

fn token_ok(headers: &HeaderMap, token: &str) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| wisp_core::constant_time_eq(given.as_bytes(), token.as_bytes()))
}

fn has_body(headers: &HeaderMap) -> bool {
    headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
            .is_some_and(|n| n > 0)
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

async fn not_found() -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such path; see /api/openapi.json".into(),
    )
}

/// The built UI (`ui/dist`, built by this crate's build script).
#[derive(rust_embed::Embed)]
#[folder = "../../ui/dist"]
struct Ui;

/// Headers of every UI file: nothing from elsewhere may run, frame or be fetched, and no
/// address (with its token fragment) leaks in a referrer.
const UI_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

fn ui_file(path: &str) -> Response {
    let Some(file) = Ui::get(path) else {
        return ApiError(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no UI file {path}"),
        )
        .into_response();
    };
    let cache = if path.starts_with("assets/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    (
        [
            (header::CONTENT_TYPE, file.metadata.mimetype().to_owned()),
            (header::CACHE_CONTROL, cache.to_owned()),
            (header::CONTENT_SECURITY_POLICY, UI_CSP.to_owned()),
            (header::REFERRER_POLICY, "no-referrer".to_owned()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        ],
        file.data.into_owned(),
    )
        .into_response()
}

async fn index() -> Response {
    ui_file("index.html")
}

async fn qa() -> Response {
    ui_file("qa.html")
}

async fn asset(Path(path): Path<String>) -> Response {
    ui_file(&format!("assets/{path}"))
}

async fn health(State(s): State<AppState>) -> Json<p::Health> {
    Json(s.host.health())
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

async fn list_projects(State(s): State<AppState>) -> ApiResult<Vec<p::Project>> {
    Ok(Json(s.host.projects()?))
}

async fn create_project(
    State(s): State<AppState>,
    body: Result<Json<p::CreateProject>, JsonRejection>,
) -> Result<(StatusCode, Json<p::Project>), ApiError> {
    let Json(body) = body?;
    let host = s.host.clone();
    let project = blocking(move || host.add_project(&body.path)).await?;
    Ok((StatusCode::CREATED, Json(project)))
}

async fn list_sessions(State(s): State<AppState>) -> ApiResult<Vec<p::Session>> {
    Ok(Json(s.host.sessions()?))
}

async fn create_session(
    State(s): State<AppState>,
    body: Result<Json<p::CreateSession>, JsonRejection>,
) -> Result<(StatusCode, Json<p::Session>), ApiError> {
    let Json(body) = body?;
    Ok((StatusCode::CREATED, Json(s.host.create_session(body)?)))
}

async fn get_session(State(s): State<AppState>, Path(id): Path<String>) -> ApiResult<p::Session> {
    Ok(Json(s.host.session(&id)?))
}

async fn update_session(
    State(s): State<AppState>,
    Path(id): Path<String>,
    body: Result<Json<p::UpdateSession>, JsonRejection>,
) -> ApiResult<p::Session> {
    let Json(body) = body?;
    Ok(Json(s.host.update_session(&id, &body)?))
}

async fn delete_session(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    s.host.delete_session(&id)?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
struct PreviewQuery {
    path: String,
}

async fn preview(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<PreviewQuery>,
) -> ApiResult<p::Preview> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.preview(&id, &q.path)).await?))
}

/// Runs file-system work of the runtime off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CoreError> + Send + 'static,
) -> Result<T, ApiError> {
    let joined = tokio::task::spawn_blocking(work).await.map_err(|_| {
        ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the request stopped unexpectedly".into(),
        )
    })?;
    Ok(joined?)
}

async fn session_tools(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Vec<p::ToolInfo>> {
    Ok(Json(s.host.session_tools(&id)?))
}

async fn start_run(
    State(s): State<AppState>,
    Path(id): Path<String>,
    body: Result<Json<p::StartRun>, JsonRejection>,
) -> Result<(StatusCode, Json<p::RunStarted>), ApiError> {
    let Json(body) = body?;
    let run_id = s.host.start_run(&id, &body.text)?;
    Ok((StatusCode::ACCEPTED, Json(p::RunStarted { run_id })))
}

#[derive(Deserialize)]
struct PageQuery {
    cursor: Option<String>,
    limit: Option<u32>,
}

async fn list_runs(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> ApiResult<p::RunPage> {
    Ok(Json(s.host.runs_page(&id, q.cursor.as_deref(), q.limit)?))
}

async fn get_run(State(s): State<AppState>, Path(id): Path<String>) -> ApiResult<p::Run> {
    Ok(Json(s.host.run(&id)?))
}

async fn cancel_run(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    s.host.cancel_run(&id)?;
    Ok(StatusCode::ACCEPTED)
}

async fn decide(
    State(s): State<AppState>,
    Path(id): Path<String>,
    body: Result<Json<p::Decide>, JsonRejection>,
) -> Result<StatusCode, ApiError> {
    let Json(body) = body?;
    s.host.decide(&id, &body)?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
struct EventsQuery {
    after: Option<u64>,
}

/// Replay from `after` (or `Last-Event-ID`), then live. Each SSE `id` is the event's sequence
/// number, so a reconnecting client resumes exactly where it stopped.
async fn events(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    s.host.session(&id)?;
    let after = q.after.or_else(|| {
        headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
    });
    // Subscribe before reading the backlog, so nothing falls between the two.
    let live = s.host.subscribe();
    struct St {
        host: Host,
        session: String,
        live: tokio::sync::broadcast::Receiver<p::Live>,
        stop: tokio::sync::watch::Receiver<bool>,
        last: u64,
        replaying: bool,
    }
    let start = St {
        host: s.host.clone(),
        session: id,
        live,
        stop: s.host.stopping(),
        last: after.unwrap_or(0),
        replaying: true,
    };
    let batches = stream::unfold(start, |mut st| async move {
        loop {
            // A shutting-down Host ends every stream, so the server can close its connections.
            if *st.stop.borrow() {
                return None;
            }
            if st.replaying {
                match st.host.events_after(&st.session, st.last, 500) {
                    Ok(batch) if batch.is_empty() => st.replaying = false,
                    Ok(batch) => {
                        st.last = batch.last().map_or(st.last, |e| e.seq);
                        let out: Vec<SseEvent> = batch.iter().map(stored_event).collect();
                        return Some((out, st));
                    }
                    Err(_) => return None,
                }
                continue;
            }
            let received = tokio::select! {
                r = st.live.recv() => r,
                _ = st.stop.wait_for(|s| *s) => return None,
            };
            match received {
                Ok(p::Live::Event(e)) if e.session_id == st.session && e.seq > st.last => {
                    st.last = e.seq;
                    return Some((vec![stored_event(&e)], st));
                }
                Ok(p::Live::Delta(d)) if d.session_id == st.session => {
                    let data = serde_json::to_string(&d).unwrap_or_default();
                    return Some((vec![SseEvent::default().event("delta").data(data)], st));
                }
                Ok(_) => {}
                // Fell behind the broadcast: the store has every event, read them from there
                // (deltas lost meanwhile are covered by the round's stored text).
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => st.replaying = true,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    let events = batches.flat_map(|batch| stream::iter(batch.into_iter().map(Ok)));
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

fn stored_event(e: &p::Event) -> SseEvent {
    let data = serde_json::to_string(e).unwrap_or_default();
    SseEvent::default().id(e.seq.to_string()).data(data)
}
