//! Wisp's local API: the only crate that speaks HTTP. It checks who is asking, turns requests
//! into [`wisp_core::Host`] calls and answers with `wisp-protocol` types.
//!
//! Every request must name the exact Host `127.0.0.1:PORT` or `localhost:PORT` (DNS
//! rebinding), carry no foreign `Origin`, and — for every `/api` path but `/api/health` — the
//! per-launch token as `Authorization: Bearer`, compared in constant time. A write with a body
//! must be `application/json`. There is no CORS at all: the UI is served from the same origin.
//!
//! Every refusal is one JSON shape with a stable kind (`error.rs`); `/api/openapi.json` is
//! generated from the types the handlers take and return (`openapi.rs`); connections are
//! bounded in number, header time and silence (`conn.rs`).
//!
//! The event stream (`GET /api/sessions/{id}/events`) subscribes before it replays from the
//! store (in pages of [`limits::REPLAY_PAGE`]), then forwards live events with a higher `seq`;
//! a lagging subscriber re-reads from the store. Before that it announces the session's
//! `open_webpage` tickets still waiting for a claim. `after` and `Last-Event-ID` above
//! `MAX_SEQ` (the store's integers) or not a number are 400, never a silent replay from 0.
//!
//! Every answer carries `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`;
//! API answers have `default-src 'none'` as their CSP. The UI (`ui/dist`, embedded by
//! `build.rs`; `WISP_UI_PREBUILT=1` skips its build when it exists) is served with a strict
//! CSP: `script-src 'self'`, nothing may frame the UI, and it may frame http(s) pages (which
//! the UI sandboxes).
//!
//! It never prints, and it never logs tokens, bodies, file contents or reasoning.

use std::convert::Infallible;
use std::sync::{Arc, LazyLock};

use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use futures_util::stream::{self, Stream, StreamExt};
use schemars::JsonSchema;
use serde::Deserialize;
use wisp_core::{CoreError, Host};
use wisp_protocol::{self as p, Check, limits as wire};

mod conn;
mod error;
pub mod limits;
mod openapi;

pub use conn::{ServeConfig, serve_with};
use error::{ApiError, Body, Id, Q};

/// The OpenAPI 3.1 document of this API, built once from the wire types (see `openapi.rs`).
pub static OPENAPI: LazyLock<String> = LazyLock::new(openapi::document);

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
        .route("/api/projects/{id}", axum::routing::delete(revoke_project))
        .route("/api/events", get(host_events))
        .route("/api/sessions", get(list_sessions).post(create_session))
        .route("/api/search", get(search_sessions))
        .route(
            "/api/sessions/{id}",
            get(get_session)
                .patch(update_session)
                .delete(delete_session),
        )
        .route("/api/sessions/{id}/preview", get(preview))
        .route("/api/sessions/{id}/folder", get(folder))
        .route("/api/sessions/{id}/export", get(export_session))
        .route("/api/sessions/{id}/runs", get(list_runs).post(start_run))
        .route("/api/sessions/{id}/events", get(events))
        .route("/api/sessions/{id}/tools", get(session_tools))
        .route("/api/sessions/{id}/tabs", get(list_tabs).post(open_tab))
        .route("/api/tabs/{id}/activate", post(activate_tab))
        .route("/api/tabs/{id}", axum::routing::delete(close_tab))
        .route("/api/tabs/{id}/move", post(move_tab))
        .route("/api/tabs/{id}/navigate", post(navigate_tab))
        .route("/api/tabs/{id}/screen", get(tab_screen))
        .route("/api/tabs/{id}/front", post(tab_front))
        .route("/api/dialogs/{id}", post(answer_dialog))
        .route("/api/tickets/{id}/claim", post(claim_ticket))
        .route("/api/tickets/{id}/ack", post(ack_ticket))
        .route("/api/runs/{id}", get(get_run))
        .route("/api/runs/{id}/cancel", post(cancel_run))
        .route("/api/runs/{id}/undo", get(undo_plan).post(undo_run))
        .route("/api/approvals/{id}", post(decide))
        .route("/api/settings", get(get_settings).put(update_settings))
        .route(
            "/api/settings/api-key",
            put(set_api_key).delete(delete_api_key),
        )
        .route("/api/settings/test", post(test_connection))
        .route(
            "/api/settings/undo",
            get(get_undo_settings).put(update_undo_settings),
        )
        .route(
            "/api/settings/context",
            get(get_context_settings).put(update_context_settings),
        )
        .route("/api/skills", get(get_skills).put(update_skills))
        .route("/api/skills/trust", put(trust_skill))
        .route("/api/skills/enabled", put(enable_skill))
        .route("/api/skills/import", post(import_skills))
        .route("/api/mcp/servers", get(mcp_servers).post(mcp_add))
        .route("/api/mcp/servers/{id}", put(mcp_edit).delete(mcp_delete))
        .route("/api/mcp/servers/{id}/activate", post(mcp_activate))
        .route("/api/mcp/servers/{id}/disable", post(mcp_disable))
        .route("/api/mcp/servers/{id}/refresh", post(mcp_refresh))
        .route("/api/mcp/import", get(mcp_import_list).post(mcp_import))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limits::MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .layer(middleware::map_response(answer_headers))
        .with_state(state)
}

/// Serves `app` on `listener` until `shutdown` resolves, with the production connection bounds
/// ([`ServeConfig::default`]); in-flight requests finish first.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, app, shutdown, ServeConfig::default()).await
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// Host, Origin, token, size and content-type checks, before any handler runs.
async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match admit(&state.config, &request) {
        Ok(()) => next.run(request).await,
        Err(e) => e.into_response(),
    }
}

fn admit(config: &ApiConfig, request: &Request) -> Result<(), ApiError> {
    let port = config.port;
    let headers = request.headers();
    let host_ok = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| h == format!("127.0.0.1:{port}") || h == format!("localhost:{port}"));
    if !host_ok {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "this API answers only to 127.0.0.1 and localhost",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| {
            o == format!("http://127.0.0.1:{port}") || o == format!("http://localhost:{port}")
        });
        if !ok {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "requests from other web pages are refused",
            ));
        }
    }
    let path = request.uri().path();
    if path.starts_with("/api/") && path != "/api/health" && !token_ok(headers, &config.token) {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong token: open the URL Wisp printed at start (it carries the token)",
        ));
    }
    if content_length(headers).is_some_and(|n| n > limits::MAX_BODY_BYTES as u64) {
        return Err(ApiError::for_status(StatusCode::PAYLOAD_TOO_LARGE));
    }
    let writes = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    if writes && has_body(headers) && !is_json(headers) {
        return Err(ApiError::for_status(StatusCode::UNSUPPORTED_MEDIA_TYPE));
    }
    Ok(())
}

/// `Authorization: Bearer TOKEN`; the scheme name is case-insensitive (RFC 9110 §11.1).
fn token_ok(headers: &HeaderMap, token: &str) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .is_some_and(|(_, given)| {
            wisp_core::constant_time_eq(given.trim_start_matches(' ').as_bytes(), token.as_bytes())
        })
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

fn has_body(headers: &HeaderMap) -> bool {
    headers.contains_key(header::TRANSFER_ENCODING)
        || content_length(headers).is_some_and(|n| n > 0)
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// What every answer carries: the one error shape, no MIME sniffing, no referrer, and for API
/// answers a policy that lets nothing run or frame them (UI pages set their own CSP).
async fn answer_headers(response: Response) -> Response {
    let mut response = error::json_errors(response);
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(API_CSP),
        );
    }
    response
}

/// The policy of everything that is not a UI page: JSON and event streams are data, never a
/// document that could run or be framed.
const API_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

async fn not_found() -> ApiError {
    ApiError::for_status(StatusCode::NOT_FOUND)
}

async fn method_not_allowed() -> ApiError {
    ApiError::for_status(StatusCode::METHOD_NOT_ALLOWED)
}

/// The built UI (`ui/dist`, built by this crate's build script).
#[derive(rust_embed::Embed)]
#[folder = "../../ui/dist"]
struct Ui;

/// Headers of every UI file: nothing from elsewhere may run or be fetched, nothing may frame
/// the UI, and no address (with its token fragment) leaks in a referrer. The UI frames web
/// pages (the web-only preview, WEB-05) only in sandboxed iframes; a tab's live view is a
/// `blob:` image fetched with the token.
const UI_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; frame-src http: https:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

fn ui_file(path: &str) -> Response {
    let Some(file) = Ui::get(path) else {
        return ApiError::new(
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
    (
        [(header::CONTENT_TYPE, "application/json")],
        OPENAPI.as_str(),
    )
        .into_response()
}

async fn get_undo_settings(State(s): State<AppState>) -> ApiResult<p::UndoSettings> {
    Ok(Json(s.host.undo_settings()))
}

/// Off the async threads: writes the database, and forgets changes past the new kept time.
async fn update_undo_settings(
    State(s): State<AppState>,
    Body(body): Body<p::UpdateUndoSettings>,
) -> ApiResult<p::UndoSettings> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.set_undo_settings(body)).await?))
}

async fn get_context_settings(State(s): State<AppState>) -> ApiResult<p::ContextSettings> {
    Ok(Json(s.host.context_settings()))
}

/// Off the async threads: writes the database.
async fn update_context_settings(
    State(s): State<AppState>,
    Body(body): Body<p::UpdateContextSettings>,
) -> ApiResult<p::ContextSettings> {
    let host = s.host.clone();
    Ok(Json(
        blocking(move || host.set_context_settings(body)).await?,
    ))
}

async fn get_settings(State(s): State<AppState>) -> ApiResult<p::Settings> {
    Ok(Json(s.host.settings()?))
}

/// Off the async threads: a settings change waits for one under way (a key written to the
/// OS secret store, which may be a D-Bus round trip) and writes the database.
async fn update_settings(
    State(s): State<AppState>,
    Body(body): Body<p::UpdateSettings>,
) -> ApiResult<p::Settings> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.update_settings(body)).await?))
}

/// Off the async threads: reads the skills folders.
async fn get_skills(State(s): State<AppState>) -> ApiResult<p::SkillsView> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.skills()).await?))
}

/// Off the async threads: writes the database, then reads the skills folders.
async fn update_skills(
    State(s): State<AppState>,
    Body(body): Body<p::UpdateSkills>,
) -> ApiResult<p::SkillsView> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.update_skills(&body)).await?))
}

/// Off the async threads: copies skill folders.
async fn import_skills(
    State(s): State<AppState>,
    Body(body): Body<p::ImportSkills>,
) -> ApiResult<p::SkillsView> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.import_skills(&body)).await?))
}

/// Off the async threads: reads the skills folders, writes the database.
async fn enable_skill(
    State(s): State<AppState>,
    Body(body): Body<p::EnableSkill>,
) -> ApiResult<p::SkillsView> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.enable_skill(&body)).await?))
}

/// Off the async threads: reads the project's skill folder, writes the database.
async fn trust_skill(
    State(s): State<AppState>,
    Body(body): Body<p::TrustSkill>,
) -> ApiResult<p::SkillsView> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.trust_skill(&body)).await?))
}

/// The key goes to the OS secret store, which may be a D-Bus round trip: off the async threads.
async fn set_api_key(
    State(s): State<AppState>,
    Body(body): Body<p::SetApiKey>,
) -> ApiResult<p::Settings> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.set_api_key(&body)).await?))
}

async fn delete_api_key(State(s): State<AppState>) -> ApiResult<p::Settings> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.delete_api_key()).await?))
}

async fn test_connection(State(s): State<AppState>) -> Json<p::ConnectionTest> {
    Json(s.host.test_connection().await)
}

async fn mcp_servers(State(s): State<AppState>) -> Json<Vec<p::McpServer>> {
    Json(s.host.mcp_servers())
}

async fn mcp_add(
    State(s): State<AppState>,
    Body(body): Body<p::McpServerDraft>,
) -> Result<(StatusCode, Json<p::McpServer>), ApiError> {
    Ok((StatusCode::CREATED, Json(s.host.mcp_add(body).await?)))
}

async fn mcp_edit(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::McpServerDraft>,
) -> ApiResult<p::McpServer> {
    Ok(Json(s.host.mcp_edit(&id, body).await?))
}

async fn mcp_delete(State(s): State<AppState>, Id(id): Id) -> Result<StatusCode, ApiError> {
    s.host.mcp_delete(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn mcp_activate(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::McpServer> {
    Ok(Json(s.host.mcp_activate(&id).await?))
}

async fn mcp_disable(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::McpServer> {
    Ok(Json(s.host.mcp_disable(&id).await?))
}

async fn mcp_refresh(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::McpServer> {
    Ok(Json(s.host.mcp_refresh(&id).await?))
}

/// Reads other hosts' config files: off the async threads.
async fn mcp_import_list(State(s): State<AppState>) -> ApiResult<p::McpImportList> {
    let host = s.host.clone();
    Ok(Json(blocking(move || Ok(host.mcp_import_list())).await?))
}

async fn mcp_import(
    State(s): State<AppState>,
    Body(body): Body<p::McpImport>,
) -> ApiResult<Vec<p::McpServer>> {
    Ok(Json(s.host.mcp_import(body).await?))
}

async fn list_projects(State(s): State<AppState>) -> ApiResult<Vec<p::Project>> {
    Ok(Json(s.host.projects()?))
}

async fn create_project(
    State(s): State<AppState>,
    Body(body): Body<p::CreateProject>,
) -> Result<(StatusCode, Json<p::Project>), ApiError> {
    let host = s.host.clone();
    let project = blocking(move || host.add_project(&body.path)).await?;
    Ok((StatusCode::CREATED, Json(project)))
}

async fn revoke_project(State(s): State<AppState>, Id(id): Id) -> Result<StatusCode, ApiError> {
    s.host.revoke_project(&id)?;
    Ok(StatusCode::NO_CONTENT)
}

async fn list_sessions(State(s): State<AppState>) -> ApiResult<Vec<p::Session>> {
    Ok(Json(s.host.sessions()?))
}

/// The query of `GET /api/search`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct SearchQuery {
    /// The text to find (case folded) in the sessions' titles, messages and answers; white
    /// space around it does not count.
    #[schemars(length(min = 1, max = wire::MAX_SEARCH_CHARS), pattern(p::HAS_VISIBLE_CHAR))]
    q: String,
}

impl Check for SearchQuery {
    fn check(&self) -> Result<(), String> {
        if self.q.trim().is_empty() {
            return Err("q is empty or only white space".into());
        }
        if self.q.chars().count() > wire::MAX_SEARCH_CHARS {
            return Err(format!(
                "q is longer than {} characters",
                wire::MAX_SEARCH_CHARS
            ));
        }
        Ok(())
    }
}

async fn search_sessions(
    State(s): State<AppState>,
    Q(q): Q<SearchQuery>,
) -> ApiResult<p::SearchResults> {
    let host = s.host.clone();
    Ok(Json(blocking(move || host.search_sessions(&q.q)).await?))
}

async fn create_session(
    State(s): State<AppState>,
    Body(body): Body<p::CreateSession>,
) -> Result<(StatusCode, Json<p::Session>), ApiError> {
    Ok((StatusCode::CREATED, Json(s.host.create_session(body)?)))
}

async fn get_session(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::Session> {
    Ok(Json(s.host.session(&id)?))
}

async fn update_session(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::UpdateSession>,
) -> ApiResult<p::Session> {
    Ok(Json(s.host.update_session(&id, &body)?))
}

async fn delete_session(State(s): State<AppState>, Id(id): Id) -> Result<StatusCode, ApiError> {
    s.host.delete_session(&id)?;
    Ok(StatusCode::NO_CONTENT)
}

/// The query of `GET /api/sessions/{id}/preview`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct PreviewQuery {
    /// A file path relative to the project root: `/`-separated names, no `..` among them,
    /// and at least one name besides `.` (the root itself is no file).
    #[schemars(length(min = 1, max = wire::MAX_PREVIEW_PATH_CHARS), pattern(RELATIVE_FILE_PATH))]
    path: String,
}

/// [`PreviewQuery::path`] as a pattern (the same as a file tab's path).
use p::RELATIVE_FILE_PATH;

impl Check for PreviewQuery {
    fn check(&self) -> Result<(), String> {
        let p = &self.path;
        let shaped = !p.is_empty()
            && !p.starts_with('/')
            && !p.contains('\0')
            && p.split('/').all(|s| s != "..")
            && p.split('/').any(|s| !s.is_empty() && s != ".");
        if !shaped {
            return Err(
                "path: a file path relative to the project folder, without `..` and naming a file"
                    .into(),
            );
        }
        if p.chars().count() > wire::MAX_PREVIEW_PATH_CHARS {
            return Err(format!(
                "path is longer than {} characters",
                wire::MAX_PREVIEW_PATH_CHARS
            ));
        }
        Ok(())
    }
}

/// Whether Linux could hold a file at `path` at all (`PATH_MAX`, `NAME_MAX`).
fn nameable(path: &str) -> bool {
    path.len() <= limits::MAX_PATH_BYTES
        && path.split('/').all(|s| s.len() <= limits::MAX_NAME_BYTES)
}

async fn preview(
    State(s): State<AppState>,
    Id(id): Id,
    Q(q): Q<PreviewQuery>,
) -> ApiResult<p::Preview> {
    s.host.session(&id)?;
    if !nameable(&q.path) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such file: the path is longer than a file system allows",
        ));
    }
    let host = s.host.clone();
    Ok(Json(blocking(move || host.preview(&id, &q.path)).await?))
}

/// The query of `GET /api/sessions/{id}/folder`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct FolderQuery {
    /// A folder path relative to the project root: `/`-separated names, no `..` among them;
    /// absent: the root.
    #[serde(default)]
    #[schemars(length(min = 1, max = wire::MAX_PREVIEW_PATH_CHARS), pattern(RELATIVE_FILE_PATH))]
    path: Option<String>,
}

impl Check for FolderQuery {
    fn check(&self) -> Result<(), String> {
        match &self.path {
            None => Ok(()),
            Some(p) if !p::relative_file_path(p) => Err(
                "path: a folder path relative to the project folder, without `..`; leave it out for the root"
                    .into(),
            ),
            Some(p) if p.chars().count() > wire::MAX_PREVIEW_PATH_CHARS => Err(format!(
                "path is longer than {} characters",
                wire::MAX_PREVIEW_PATH_CHARS
            )),
            Some(_) => Ok(()),
        }
    }
}

async fn export_session(State(s): State<AppState>, Id(id): Id) -> Result<Response, ApiError> {
    // The store is read page by page: blocking work, off the async threads.
    let host = s.host.clone();
    let (markdown, id) = tokio::task::spawn_blocking(move || (host.export_session(&id), id))
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the export stopped unexpectedly",
            )
        })?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/markdown; charset=utf-8".to_owned(),
            ),
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"wisp-{id}.md\""),
            ),
        ],
        markdown?,
    )
        .into_response())
}

async fn folder(
    State(s): State<AppState>,
    Id(id): Id,
    Q(q): Q<FolderQuery>,
) -> ApiResult<p::FolderView> {
    s.host.session(&id)?;
    if q.path.as_deref().is_some_and(|p| !nameable(p)) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such folder: the path is longer than a file system allows",
        ));
    }
    let host = s.host.clone();
    Ok(Json(
        blocking(move || host.folder(&id, q.path.as_deref())).await?,
    ))
}

/// Runs file-system work of the runtime off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CoreError> + Send + 'static,
) -> Result<T, ApiError> {
    let joined = tokio::task::spawn_blocking(work).await.map_err(|_| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the request stopped unexpectedly",
        )
    })?;
    Ok(joined?)
}

/// The `{id}` of a tab path must be a tab ID (a 404 otherwise: no tab has another shape).
fn tab_id(id: &str, pattern_prefix: &str) -> Result<(), ApiError> {
    let hex = id.strip_prefix(pattern_prefix).unwrap_or("");
    if hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_path",
            format!("not an ID of the form {pattern_prefix}<32 hex digits>"),
        ))
    }
}

async fn list_tabs(State(s): State<AppState>, Id(id): Id) -> ApiResult<Vec<p::PreviewTab>> {
    Ok(Json(s.host.tabs(&id).await?))
}

async fn open_tab(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::OpenTab>,
) -> Result<(StatusCode, Json<p::PreviewTab>), ApiError> {
    // A schema-valid path that no file system could hold names nothing (404), as for the
    // preview and folder reads.
    let unnameable = match &body {
        p::OpenTab::File { path } if !nameable(path) => Some("file"),
        p::OpenTab::Workspace { path: Some(path) } if !nameable(path) => Some("folder"),
        _ => None,
    };
    if let Some(what) = unnameable {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no such {what}: the path is longer than a file system allows"),
        ));
    }
    Ok((StatusCode::CREATED, Json(s.host.open_tab(&id, body).await?)))
}

async fn activate_tab(State(s): State<AppState>, Id(id): Id) -> ApiResult<Vec<p::PreviewTab>> {
    tab_id(&id, "tab_")?;
    Ok(Json(s.host.activate_tab(&id).await?))
}

async fn move_tab(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::MoveTab>,
) -> ApiResult<Vec<p::PreviewTab>> {
    tab_id(&id, "tab_")?;
    Ok(Json(s.host.move_tab(&id, body.index).await?))
}

async fn navigate_tab(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::NavigateTab>,
) -> ApiResult<Vec<p::PreviewTab>> {
    tab_id(&id, "tab_")?;
    Ok(Json(s.host.navigate_tab(&id, body).await?))
}

async fn close_tab(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::TabClosed> {
    tab_id(&id, "tab_")?;
    Ok(Json(s.host.close_tab(&id).await?))
}

/// The query of `GET /api/tabs/{id}/screen`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct ScreenQuery {
    /// The width the live view is shown at, in CSS pixels: with `height`, a page of a headless
    /// browser is laid out for it, so a frame pixel is a CSS pixel of the panel.
    #[schemars(range(min = wire::MIN_VIEW_WIDTH, max = wire::MAX_VIEW_WIDTH))]
    width: Option<u32>,
    /// The height the live view has room for, in CSS pixels (see `width`).
    #[schemars(range(min = wire::MIN_VIEW_HEIGHT, max = wire::MAX_VIEW_HEIGHT))]
    height: Option<u32>,
}

impl Check for ScreenQuery {
    fn check(&self) -> Result<(), String> {
        if let Some(w) = self.width
            && !(wire::MIN_VIEW_WIDTH..=wire::MAX_VIEW_WIDTH).contains(&w)
        {
            return Err(format!(
                "width: {} to {} pixels",
                wire::MIN_VIEW_WIDTH,
                wire::MAX_VIEW_WIDTH
            ));
        }
        if let Some(h) = self.height
            && !(wire::MIN_VIEW_HEIGHT..=wire::MAX_VIEW_HEIGHT).contains(&h)
        {
            return Err(format!(
                "height: {} to {} pixels",
                wire::MIN_VIEW_HEIGHT,
                wire::MAX_VIEW_HEIGHT
            ));
        }
        Ok(())
    }
}

/// The live view of a page of Wisp's browser: its latest frame, never cached (UI-07).
async fn tab_screen(
    State(s): State<AppState>,
    Id(id): Id,
    Q(q): Q<ScreenQuery>,
) -> Result<Response, ApiError> {
    tab_id(&id, "tab_")?;
    let view = q.width.zip(q.height);
    let frame = s.host.tab_screen(&id, view).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_frame_yet",
            format!("tab {id} has no frame yet (its page is being painted); ask again shortly"),
        )
    })?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/jpeg"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        frame.jpeg.to_vec(),
    )
        .into_response())
}

async fn tab_front(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::TabFront> {
    tab_id(&id, "tab_")?;
    s.host.bring_tab_to_front(&id).await?;
    Ok(Json(p::TabFront {
        status: p::FrontStatus::Front,
    }))
}

async fn answer_dialog(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::AnswerDialog>,
) -> Result<StatusCode, ApiError> {
    tab_id(&id, "dlg_")?;
    s.host.answer_dialog(&id, body.accept).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn claim_ticket(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::ClaimTicket>,
) -> ApiResult<p::TicketClaimed> {
    tab_id(&id, "tk_")?;
    Ok(Json(s.host.claim_ticket(&id, &body.session_id).await?))
}

async fn ack_ticket(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::TicketAcked> {
    tab_id(&id, "tk_")?;
    Ok(Json(s.host.ack_ticket(&id)?))
}

async fn session_tools(State(s): State<AppState>, Id(id): Id) -> ApiResult<Vec<p::ToolInfo>> {
    Ok(Json(s.host.session_tools(&id)?))
}

async fn start_run(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::StartRun>,
) -> Result<(StatusCode, Json<p::RunStarted>), ApiError> {
    let run_id = s.host.start_run_after_ended(&id, &body.text).await?;
    Ok((StatusCode::ACCEPTED, Json(p::RunStarted { run_id })))
}

/// The query of `GET /api/sessions/{id}/runs`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct PageQuery {
    /// The `nextCursor` of the previous page; absent or empty: the newest runs.
    #[schemars(length(max = wire::MAX_CURSOR_DIGITS), pattern("^[0-9]*$"))]
    cursor: Option<String>,
    /// Runs per page, 1 to 100 (default 20); other values are refused.
    #[schemars(range(min = 1, max = wire::MAX_RUNS_PAGE))]
    limit: Option<u32>,
}

impl Check for PageQuery {
    fn check(&self) -> Result<(), String> {
        if let Some(c) = &self.cursor
            && (c.len() > wire::MAX_CURSOR_DIGITS || !c.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err("cursor: pass the nextCursor of the previous page".into());
        }
        if let Some(l) = self.limit
            && !(1..=wire::MAX_RUNS_PAGE).contains(&l)
        {
            return Err(format!("limit: 1 to {} runs per page", wire::MAX_RUNS_PAGE));
        }
        Ok(())
    }
}

async fn list_runs(
    State(s): State<AppState>,
    Id(id): Id,
    Q(q): Q<PageQuery>,
) -> ApiResult<p::RunPage> {
    Ok(Json(s.host.runs_page(&id, q.cursor.as_deref(), q.limit)?))
}

async fn get_run(State(s): State<AppState>, Id(id): Id) -> ApiResult<p::Run> {
    Ok(Json(s.host.run(&id)?))
}

async fn cancel_run(State(s): State<AppState>, Id(id): Id) -> Result<StatusCode, ApiError> {
    s.host.cancel_run(&id)?;
    Ok(StatusCode::ACCEPTED)
}

/// The query of `GET /api/runs/{id}/undo`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct UndoQuery {
    /// Only this call's changes; absent: the whole run's.
    #[serde(rename = "callId")]
    #[schemars(pattern(p::CALL_ID))]
    call_id: Option<String>,
    /// What this undo of the run did, instead (not with `callId`).
    #[serde(rename = "undoId")]
    #[schemars(pattern(p::UNDO_ID))]
    undo_id: Option<String>,
}

// An ID of another shape names no call or undo of the run, and no plan is about both: 404, as
// for any unknown one.
impl Check for UndoQuery {
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

async fn undo_plan(
    State(s): State<AppState>,
    Id(id): Id,
    Q(q): Q<UndoQuery>,
) -> ApiResult<p::UndoPlan> {
    Ok(Json(
        s.host
            .undo_plan(&id, q.call_id.as_deref(), q.undo_id.as_deref())
            .await?,
    ))
}

async fn undo_run(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::UndoRequest>,
) -> ApiResult<p::UndoResult> {
    Ok(Json(s.host.undo(&id, body).await?))
}

async fn decide(
    State(s): State<AppState>,
    Id(id): Id,
    Body(body): Body<p::Decide>,
) -> Result<StatusCode, ApiError> {
    s.host.decide(&id, &body)?;
    Ok(StatusCode::NO_CONTENT)
}

/// The query of `GET /api/sessions/{id}/events`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct EventsQuery {
    /// Send the stored events with a higher seq, then live ones; absent: from the first
    /// (or after `Last-Event-ID`).
    #[schemars(range(max = wire::MAX_SEQ))]
    after: Option<u64>,
}

impl Check for EventsQuery {
    fn check(&self) -> Result<(), String> {
        match self.after {
            Some(a) if a > wire::MAX_SEQ => Err(format!("after: at most {}", wire::MAX_SEQ)),
            _ => Ok(()),
        }
    }
}

/// `Last-Event-ID`, held to the same rule as `after`.
fn last_event_id(headers: &HeaderMap) -> Result<Option<u64>, ApiError> {
    let Some(value) = headers.get("last-event-id") else {
        return Ok(None);
    };
    let bad = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_header",
            format!("Last-Event-ID: the seq of an event, 0 to {}", wire::MAX_SEQ),
        )
    };
    let text = value.to_str().map_err(|_| bad())?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match text.parse::<u64>() {
        Ok(n) if n <= wire::MAX_SEQ => Ok(Some(n)),
        _ => Err(bad()),
    }
}

/// Replay from `after` (or `Last-Event-ID`), then live. Each SSE `id` is the event's sequence
/// number, so a reconnecting client resumes exactly where it stopped.
async fn events(
    State(s): State<AppState>,
    Id(id): Id,
    Q(q): Q<EventsQuery>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let resume = last_event_id(&headers)?;
    s.host.session(&id)?;
    let after = q.after.or(resume);
    // Subscribe before reading the backlog, so nothing falls between the two.
    let live = s.host.subscribe();
    struct St {
        host: Host,
        session: String,
        live: tokio::sync::broadcast::Receiver<p::Live>,
        stop: tokio::sync::watch::Receiver<bool>,
        last: u64,
        replaying: bool,
        /// Tickets announced at connect, so a live announcement of the same one is not repeated.
        announced: Vec<String>,
        /// The same for dialogs still waiting for the person at connect.
        dialogs: Vec<String>,
        first: Vec<SseEvent>,
    }
    // Tickets still waiting for a claim are announced again to every stream that connects (a
    // UI that reloaded claims them); read after subscribing, so none falls between the two.
    let waiting = s.host.pending_tickets(&id);
    // So are dialogs still waiting for the person (a UI that showed another session, or
    // reloaded, shows them); answered or expired ones are no longer pending.
    let dialogs = s.host.pending_dialogs(&id);
    let start = St {
        host: s.host.clone(),
        session: id,
        live,
        stop: s.host.stopping(),
        last: after.unwrap_or(0),
        replaying: true,
        announced: waiting.iter().map(|t| t.ticket_id.clone()).collect(),
        dialogs: dialogs.iter().map(|d| d.dialog_id.clone()).collect(),
        first: waiting
            .iter()
            .map(ticket_event)
            .chain(dialogs.iter().map(dialog_event))
            .collect(),
    };
    let batches = stream::unfold(start, |mut st| async move {
        if !st.first.is_empty() {
            let first = std::mem::take(&mut st.first);
            return Some((first, st));
        }
        loop {
            // A shutting-down Host ends every stream, so the server can close its connections.
            if *st.stop.borrow() {
                return None;
            }
            if st.replaying {
                match st
                    .host
                    .events_after(&st.session, st.last, limits::REPLAY_PAGE)
                {
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
                Ok(p::Live::ToolOutput(o)) if o.session_id == st.session => {
                    let data = serde_json::to_string(&o).unwrap_or_default();
                    return Some((
                        vec![SseEvent::default().event("tool_output").data(data)],
                        st,
                    ));
                }
                Ok(p::Live::Tabs(p::TabLive::Dialog(d)))
                    if d.session_id == st.session && !st.dialogs.contains(&d.dialog_id) =>
                {
                    return Some((vec![dialog_event(&d)], st));
                }
                Ok(p::Live::Tabs(p::TabLive::OpenTicket { session_id, ticket }))
                    if session_id == st.session && !st.announced.contains(&ticket.ticket_id) =>
                {
                    return Some((vec![ticket_event(&ticket)], st));
                }
                Ok(p::Live::Tabs(p::TabLive::Changed(c))) if c.session_id == st.session => {
                    let data = serde_json::to_string(&c).unwrap_or_default();
                    return Some((vec![SseEvent::default().event("tabs").data(data)], st));
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
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(limits::SSE_KEEP_ALIVE)))
}

/// The Host's own stream: the session list's state at connect, then after every change, so a
/// UI marks the sessions waiting for the person without asking each session's runs.
async fn host_events(
    State(s): State<AppState>,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    struct St {
        changes: tokio::sync::watch::Receiver<p::SessionsChanged>,
        stop: tokio::sync::watch::Receiver<bool>,
        first: bool,
    }
    let start = St {
        changes: s.host.watch_sessions(),
        stop: s.host.stopping(),
        first: true,
    };
    let events = stream::unfold(start, |mut st| async move {
        if !st.first {
            tokio::select! {
                changed = st.changes.changed() => changed.ok()?,
                _ = st.stop.wait_for(|s| *s) => return None,
            }
        }
        // A shutting-down Host ends every stream, so the server can close its connections.
        if *st.stop.borrow() {
            return None;
        }
        st.first = false;
        // The newest state only: changes that came meanwhile are in it.
        let now = st.changes.borrow_and_update().clone();
        let data = serde_json::to_string(&now).unwrap_or_default();
        Some((Ok(SseEvent::default().event("sessions").data(data)), st))
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(limits::SSE_KEEP_ALIVE))
}

fn ticket_event(t: &p::OpenTicket) -> SseEvent {
    let data = serde_json::to_string(t).unwrap_or_default();
    SseEvent::default().event("open_ticket").data(data)
}

fn dialog_event(d: &p::Dialog) -> SseEvent {
    let data = serde_json::to_string(d).unwrap_or_default();
    SseEvent::default().event("dialog").data(data)
}

fn stored_event(e: &p::Event) -> SseEvent {
    let data = serde_json::to_string(e).unwrap_or_default();
    SseEvent::default().id(e.seq.to_string()).data(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn the_token_is_exact_and_the_scheme_case_insensitive() {
        let t = "0123456789abcdef0123456789abcdef";
        assert!(token_ok(&auth(&format!("Bearer {t}")), t));
        assert!(token_ok(&auth(&format!("bEaReR {t}")), t));
        assert!(token_ok(&auth(&format!("Bearer  {t}")), t));
        assert!(!token_ok(&auth(&format!("Bearer {}", &t[..31])), t));
        assert!(!token_ok(&auth(&format!("Bearer {t}0")), t));
        assert!(!token_ok(&auth(&format!("Bearer{t}")), t));
        assert!(!token_ok(&auth(&format!("Bearerx {t}")), t));
        assert!(!token_ok(&auth(&format!("Token {t}")), t));
        assert!(!token_ok(&HeaderMap::new(), t));
    }

    #[test]
    fn last_event_id_is_a_seq_or_refused() {
        let id = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert("last-event-id", HeaderValue::from_str(v).unwrap());
            last_event_id(&h).map_err(|e| e.kind)
        };
        assert_eq!(last_event_id(&HeaderMap::new()).unwrap(), None);
        assert_eq!(id("0"), Ok(Some(0)));
        assert_eq!(id(&wire::MAX_SEQ.to_string()), Ok(Some(wire::MAX_SEQ)));
        for bad in ["", "x", "-1", "+1", " 1", "1.0", "9223372036854775808"] {
            assert_eq!(id(bad), Err("invalid_header"), "{bad:?}");
        }
    }

    #[test]
    fn page_and_event_queries_keep_their_documented_ranges() {
        let page = |cursor: Option<&str>, limit: Option<u32>| {
            PageQuery {
                cursor: cursor.map(str::to_owned),
                limit,
            }
            .check()
        };
        assert!(page(None, None).is_ok());
        assert!(page(Some(""), Some(1)).is_ok());
        assert!(
            page(
                Some(&"9".repeat(wire::MAX_CURSOR_DIGITS)),
                Some(wire::MAX_RUNS_PAGE)
            )
            .is_ok()
        );
        assert!(page(Some(&"9".repeat(wire::MAX_CURSOR_DIGITS + 1)), None).is_err());
        assert!(page(Some("-1"), None).is_err());
        assert!(page(None, Some(0)).is_err());
        assert!(page(None, Some(wire::MAX_RUNS_PAGE + 1)).is_err());
        let after = |a| EventsQuery { after: Some(a) }.check();
        assert!(after(wire::MAX_SEQ).is_ok());
        assert!(after(wire::MAX_SEQ + 1).is_err());
    }

    #[test]
    fn preview_paths_are_relative_file_paths_and_unnameable_ones_name_nothing() {
        let ok = |p: &str| PreviewQuery { path: p.into() }.check().is_ok();
        for good in ["a", "./a", ".//a/", "a/./b", "...", "..a", ".a/b", "a//b"] {
            assert!(ok(good), "{good:?}");
        }
        for bad in [
            "", ".", "./", "/a", "..", "a/..", "../a", "a/../b", "a\0b", "./.",
        ] {
            assert!(!ok(bad), "{bad:?}");
        }
        assert!(ok(&"a".repeat(wire::MAX_PREVIEW_PATH_CHARS)));
        assert!(!ok(&"a".repeat(wire::MAX_PREVIEW_PATH_CHARS + 1)));
        assert!(nameable(&"n".repeat(limits::MAX_NAME_BYTES)));
        assert!(!nameable(&"n".repeat(limits::MAX_NAME_BYTES + 1)));
        let deep = ["n"; limits::MAX_PATH_BYTES / 2].join("/");
        assert!(nameable(&deep[..limits::MAX_PATH_BYTES - 1]));
        assert!(!nameable(&format!("{deep}/nn")));
        // The schema's pattern is the same rule (checked against Python's `re` over every
        // string of up to 8 characters from {a, b, ., /, NUL} when it was written).
        let doc: serde_json::Value = serde_json::from_str(&OPENAPI).unwrap();
        let param = doc["paths"]["/api/sessions/{id}/preview"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "path")
            .unwrap()
            .clone();
        assert_eq!(param["schema"]["pattern"], RELATIVE_FILE_PATH);
        assert_eq!(param["required"], true);
        // The answer's digest is documented as a hex digest or null (a partial preview).
        let sha = &doc["components"]["schemas"]["Preview"]["properties"]["sha256"];
        assert_eq!(sha["type"], serde_json::json!(["string", "null"]));
        assert_eq!(sha["pattern"], "^[0-9a-f]{64}$");
    }

    #[test]
    fn plain_error_answers_become_the_json_shape_and_keep_their_headers() {
        let plain = Response::builder()
            .status(StatusCode::METHOD_NOT_ALLOWED)
            .header(header::ALLOW, "GET,HEAD")
            .header(header::CONTENT_TYPE, "text/plain")
            .body(axum::body::Body::from("Method Not Allowed"))
            .unwrap();
        let fixed = error::json_errors(plain);
        assert_eq!(fixed.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(fixed.headers()[header::ALLOW], "GET,HEAD");
        assert_eq!(fixed.headers()[header::CONTENT_TYPE], "application/json");
        let ok = Response::builder()
            .status(StatusCode::OK)
            .body(axum::body::Body::from("x"))
            .unwrap();
        assert!(
            error::json_errors(ok)
                .headers()
                .get(header::CONTENT_TYPE)
                .is_none()
        );
    }

    #[test]
    fn an_open_event_stream_is_never_idle_long_enough_to_be_closed() {
        assert!(limits::SSE_KEEP_ALIVE * 2 <= limits::IDLE_TIMEOUT);
        assert!(limits::HEADER_READ_TIMEOUT < limits::IDLE_TIMEOUT);
    }

    #[test]
    fn the_document_is_openapi_3_1_with_one_definition_per_type() {
        let doc: serde_json::Value = serde_json::from_str(&OPENAPI).unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        // Types read and types written are described apart; none may be both, or one of the
        // two descriptions would be silently dropped.
        let (reads, writes) = openapi::definition_names();
        let both: Vec<&String> = reads.iter().filter(|n| writes.contains(n)).collect();
        assert!(both.is_empty(), "{both:?}");
        // Every $ref points at a definition.
        let text = OPENAPI.as_str();
        for part in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
            let name = &part[..part.find('"').unwrap()];
            assert!(doc["components"]["schemas"].get(name).is_some(), "{name}");
        }
    }
}
