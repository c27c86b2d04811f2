//! The one error shape of the API, `{"error", "message"}`, and the extractors that turn every
//! rejection — path, query, header, body, size, content type — into it. Handlers take
//! [`Body`], [`Q`] and [`Id`] instead of axum's `Json`, `Query` and `Path`, whose own
//! rejections are plain text.

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use wisp_core::{CoreError, CoreErrorKind};
use wisp_protocol::{self as p, Check};

/// An API error: status, a stable machine-readable kind and a sentence that says what to do.
/// Never carries internals.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) kind: &'static str,
    pub(crate) message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            kind,
            message: message.into(),
        }
    }

    /// The kind every answer with `status` and no more specific kind carries.
    pub(crate) fn for_status(status: StatusCode) -> Self {
        let (kind, message) = match status {
            StatusCode::NOT_FOUND => ("not_found", "no such path; see /api/openapi.json"),
            StatusCode::METHOD_NOT_ALLOWED => (
                "method_not_allowed",
                "this path does not take that method; see /api/openapi.json",
            ),
            StatusCode::PAYLOAD_TOO_LARGE => (
                "payload_too_large",
                "the request body is larger than this API accepts",
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => (
                "unsupported_media_type",
                "send the body as Content-Type: application/json",
            ),
            s if s.is_server_error() => ("internal", "the request failed inside Wisp"),
            _ => ("invalid_request", "the request is not one this API takes"),
        };
        Self::new(status, kind, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = p::ApiError {
            error: self.kind.to_owned(),
            message: self.message,
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<CoreError> for ApiError {
    fn from(e: CoreError) -> Self {
        let (status, kind) = match e.kind {
            CoreErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            CoreErrorKind::Conflict => (StatusCode::CONFLICT, "conflict"),
            CoreErrorKind::Invalid => (StatusCode::BAD_REQUEST, "invalid"),
            CoreErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            CoreErrorKind::SecretStoreUnavailable => {
                (StatusCode::CONFLICT, "secret_store_unavailable")
            }
        };
        Self::new(status, kind, e.message)
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> Self {
        match e {
            JsonRejection::MissingJsonContentType(_) => {
                Self::for_status(StatusCode::UNSUPPORTED_MEDIA_TYPE)
            }
            JsonRejection::BytesRejection(b) if too_large(&b) => {
                Self::for_status(StatusCode::PAYLOAD_TOO_LARGE)
            }
            JsonRejection::JsonSyntaxError(e) => {
                Self::new(StatusCode::BAD_REQUEST, "invalid_json", e.body_text())
            }
            other => Self::new(StatusCode::BAD_REQUEST, "invalid_body", other.body_text()),
        }
    }
}

/// Whether buffering the body failed on the size limit. axum reports that as 413 only when
/// it can see the limit's error through the body's error type, which hyper's bodies hide, so
/// the limit's message is the reliable sign.
fn too_large(e: &axum::extract::rejection::BytesRejection) -> bool {
    e.status() == StatusCode::PAYLOAD_TOO_LARGE || e.body_text().contains("length limit exceeded")
}

/// A JSON object of type `T` that also keeps `T`'s own rules ([`Check`]).
pub(crate) struct Body<T>(pub(crate) T);

impl<T, S> FromRequest<S> for Body<T>
where
    T: DeserializeOwned + Check,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let Json(json) = Json::<serde_json::Value>::from_request(req, state).await?;
        // Every body of this API is an object; serde would also read a struct from an array.
        if !json.is_object() {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_body",
                "the body must be a JSON object",
            ));
        }
        let value = serde_json::from_value::<T>(json)
            .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "invalid_body", e.to_string()))?;
        value
            .check()
            .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, "invalid_body", m))?;
        Ok(Self(value))
    }
}

/// A query string of type `T`, with `T`'s own rules ([`Check`]).
pub(crate) struct Q<T>(pub(crate) T);

impl<T, S> FromRequestParts<S> for Q<T>
where
    T: DeserializeOwned + Check,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(value) =
            Query::<T>::from_request_parts(parts, state)
                .await
                .map_err(|e: QueryRejection| {
                    ApiError::new(StatusCode::BAD_REQUEST, "invalid_query", e.body_text())
                })?;
        value
            .check()
            .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, "invalid_query", m))?;
        Ok(Self(value))
    }
}

/// The `{id}` of a path.
pub(crate) struct Id(pub(crate) String);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e: PathRejection| {
                ApiError::new(StatusCode::BAD_REQUEST, "invalid_path", e.body_text())
            })?;
        Ok(Self(id))
    }
}

/// Turns any error answer that is not yet the JSON shape (axum's own 405, a body-limit 413,
/// anything a layer produced) into it, keeping its status and headers such as `Allow`.
pub(crate) fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let fresh = ApiError::for_status(status).into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    let (fresh_parts, body) = fresh.into_parts();
    for (name, value) in fresh_parts.headers {
        if let Some(name) = name {
            parts.headers.insert(name, value);
        }
    }
    Response::from_parts(parts, body)
}
