//! The HTTP side: one `reqwest` client, requests to `…/chat/completions` and `…/models`,
//! status and transport errors mapped to [`ModelError`], the idle timeout, and cancellation by
//! drop (dropping the future drops the response, which closes its connection at once).
//!
//! The idle timeout's deadline moves only when a *data* event arrives, never for a keep-alive
//! comment: a server that only keeps the connection alive is still stalled.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use reqwest::{Response, Url};
use tokio::time::{Instant, timeout_at};

use crate::config::{ApiKey, Dialect, ModelConfig, shorten};
use crate::decode::{Completion, StreamDecoder, StreamDelta};
use crate::error::{ErrorKind, ModelError};
use crate::request::ChatRequest;
use crate::{StreamLimits, limits, wire};

/// A DeepSeek (or any OpenAI-compatible) chat client. Cheap to clone.
#[derive(Debug, Clone)]
pub struct DeepSeekClient {
    http: reqwest::Client,
    chat_url: Url,
    models_url: Url,
    balance_url: Url,
    model: String,
    key: Option<ApiKey>,
    dialect: Dialect,
    limits: StreamLimits,
}

impl DeepSeekClient {
    /// Validates the configuration. Plain `http://` is accepted only for loopback hosts, so a
    /// key is never sent in clear over a network.
    pub fn new(config: ModelConfig) -> Result<Self, ModelError> {
        let base = Url::parse(config.base_url.trim_end_matches('/')).map_err(|e| {
            ModelError::new(
                ErrorKind::InvalidConfig,
                format!(
                    "The model base URL \"{}\" is not a URL ({e}).",
                    config.base_url
                ),
            )
        })?;
        match base.scheme() {
            "https" => {}
            "http" if is_loopback(&base) => {}
            "http" => {
                return Err(ModelError::new(
                    ErrorKind::InvalidConfig,
                    format!(
                        "The model base URL \"{base}\" uses plain http to a host that is not this machine; use https so the API key is not sent in clear."
                    ),
                ));
            }
            other => {
                return Err(ModelError::new(
                    ErrorKind::InvalidConfig,
                    format!("The model base URL must start with https:// (got \"{other}:\")."),
                ));
            }
        }
        if config.model.trim().is_empty() {
            return Err(ModelError::new(
                ErrorKind::InvalidConfig,
                "No model name is configured.",
            ));
        }
        let join = |tail: &str| {
            Url::parse(&format!("{}/{tail}", base.as_str().trim_end_matches('/'))).map_err(|e| {
                ModelError::new(ErrorKind::InvalidConfig, format!("Bad model URL: {e}"))
            })
        };
        let http = reqwest::Client::builder()
            .connect_timeout(config.limits.connect_timeout)
            .user_agent(concat!("wisp/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                ModelError::new(
                    ErrorKind::InvalidConfig,
                    format!("The HTTP client could not start: {e}"),
                )
            })?;
        Ok(Self {
            http,
            chat_url: join("chat/completions")?,
            models_url: join("models")?,
            balance_url: join("user/balance")?,
            model: config.model,
            key: config.api_key,
            dialect: config.dialect,
            limits: config.limits,
        })
    }

    /// The model every request names.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The same endpoint, key and limits, naming `model` in every request (a session's own
    /// pick of the endpoint's models). The name is sent as given: the endpoint judges it.
    pub fn with_model(&self, model: &str) -> Self {
        Self {
            model: model.to_owned(),
            ..self.clone()
        }
    }

    /// The models the account offers (`GET /models`).
    pub async fn list_models(&self) -> Result<Vec<String>, ModelError> {
        Ok(self
            .model_windows()
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .collect())
    }

    /// The models the account offers, each with its context window in tokens where the listing
    /// says it (OpenRouter, Groq, vLLM, Mistral and others do; DeepSeek does not).
    pub async fn model_windows(&self) -> Result<Vec<(String, Option<u64>)>, ModelError> {
        let deadline = Instant::now() + self.limits.idle_timeout;
        let request = self.http.get(self.models_url.clone());
        let response = self.send(request, deadline).await?;
        let body = read_limited(response, limits::MAX_MODELS_BODY_BYTES, deadline).await?;
        let list: wire::ModelList = serde_json::from_slice(&body)
            .map_err(|e| ModelError::malformed(format_args!("model list: {e}")))?;
        Ok(list
            .data
            .into_iter()
            .map(|m| {
                let window = m.window();
                (m.id, window)
            })
            .collect())
    }

    /// Whether the account has balance left (DeepSeek's `GET /user/balance`); `None` when the
    /// endpoint has no such call (any other OpenAI-compatible service).
    pub async fn balance_available(&self) -> Result<Option<bool>, ModelError> {
        let deadline = Instant::now() + self.limits.idle_timeout;
        let request = self.http.get(self.balance_url.clone());
        let response = match self.send(request, deadline).await {
            Ok(r) => r,
            Err(e) if e.status() == Some(404) => return Ok(None),
            Err(e) => return Err(e),
        };
        let body = read_limited(response, limits::MAX_MODELS_BODY_BYTES, deadline).await?;
        let balance: wire::Balance = serde_json::from_slice(&body)
            .map_err(|e| ModelError::malformed(format_args!("balance: {e}")))?;
        Ok(Some(balance.is_available))
    }

    /// Ok when the account offers the configured model; otherwise a message naming what it
    /// does offer.
    pub async fn check_model(&self) -> Result<(), ModelError> {
        let offered = self.list_models().await?;
        if offered.iter().any(|m| m == &self.model) {
            return Ok(());
        }
        Err(ModelError::new(
            ErrorKind::ModelNotOffered,
            format!(
                "The configured model \"{}\" is not offered by this account. It offers: {}. Set DEEPSEEK_MODEL to one of them.",
                shorten(&self.model),
                if offered.is_empty() {
                    "nothing".to_owned()
                } else {
                    shorten(&offered.join(", "))
                }
            ),
        ))
    }

    /// Streams one chat completion. `on_delta` sees every piece as it lands; the result is the
    /// aggregated answer. Dropping the returned future cancels the request and closes its stream.
    pub async fn stream_chat<F>(
        &self,
        request: &ChatRequest,
        mut on_delta: F,
    ) -> Result<Completion, ModelError>
    where
        F: FnMut(StreamDelta<'_>),
    {
        let body = serde_json::to_vec(&wire::RequestBody::new(&self.model, request, self.dialect))
            .map_err(|e| ModelError::new(ErrorKind::InvalidConfig, format!("request: {e}")))?;
        let idle = self.limits.idle_timeout;
        let mut deadline = Instant::now() + idle;
        let http = self
            .http
            .post(self.chat_url.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        let mut response = self.send(http, deadline).await?;
        let mut decoder = StreamDecoder::new(&self.limits);
        loop {
            let piece = match timeout_at(deadline, response.chunk()).await {
                Err(_) => return Err(ModelError::idle_timeout(idle)),
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "model stream broke");
                    return Err(ModelError::stream_cut());
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(piece))) => piece,
            };
            let before = decoder.data_events();
            decoder.feed(&piece, &mut on_delta)?;
            if decoder.data_events() > before {
                deadline = Instant::now() + idle;
            }
            if decoder.is_done() {
                break;
            }
        }
        let completion = decoder.finish()?;
        tracing::debug!(
            model = %self.model,
            finish = ?completion.finish_reason,
            tool_calls = completion.tool_calls.len(),
            "model answer complete"
        );
        Ok(completion)
    }

    /// Sends with the key, waits for the status line until `deadline`, and turns an error
    /// status into a [`ModelError`].
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        deadline: Instant,
    ) -> Result<Response, ModelError> {
        let request = match &self.key {
            Some(key) => {
                let mut auth =
                    HeaderValue::try_from(format!("Bearer {}", key.expose())).map_err(|_| {
                        ModelError::new(
                            ErrorKind::InvalidConfig,
                            "The API key cannot be sent in a header.",
                        )
                    })?;
                auth.set_sensitive(true);
                request.header(AUTHORIZATION, auth)
            }
            // A local OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp) often
            // needs no key: it is asked without one, and a 401 then says it wants one.
            None if self.dialect == Dialect::OpenAiCompatible => request,
            None => {
                return Err(ModelError::new(
                    ErrorKind::MissingKey,
                    "No API key is set. Enter one in Settings → Model, or set DEEPSEEK_API_KEY, or start Wisp with --simulate.",
                ));
            }
        };
        let response = match timeout_at(deadline, request.send()).await {
            Err(_) => return Err(ModelError::idle_timeout(self.limits.idle_timeout)),
            Ok(Err(e)) => return Err(transport_error(&e)),
            Ok(Ok(r)) => r,
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| Duration::from_secs(s).min(limits::MAX_RETRY_AFTER));
        // The body only explains the status; failing to read it must not hide the status.
        let body = read_limited(response, limits::MAX_ERROR_BODY_BYTES, deadline)
            .await
            .unwrap_or_default();
        let said = match serde_json::from_slice::<wire::ErrorBody<'_>>(&body) {
            Ok(b) => b.error.message.map(|m| m.0.into_owned()),
            Err(_) => Some(String::from_utf8_lossy(&body).into_owned()),
        }
        .map(|m| match &self.key {
            Some(key) => shorten(&key.redact(m.trim())),
            None => shorten(m.trim()),
        });
        tracing::debug!(status, "model request refused");
        if status == 401 && self.key.is_none() {
            return Err(ModelError::key_required(said.as_deref()));
        }
        Err(ModelError::from_status(
            status,
            said.as_deref(),
            retry_after,
        ))
    }
}

/// The host and port a base URL points at (port defaulted by scheme), for messages that must
/// say exactly which service could not be reached.
pub fn endpoint_of(base_url: &str) -> Option<(String, u16)> {
    let url = Url::parse(base_url.trim()).ok()?;
    Some((url.host_str()?.to_owned(), url.port_or_known_default()?))
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn transport_error(e: &reqwest::Error) -> ModelError {
    // The innermost cause is the one a person recognises ("Connection refused").
    let mut cause: &dyn std::error::Error = e;
    let mut tls = false;
    loop {
        let text = cause.to_string().to_ascii_lowercase();
        tls |= ["certificate", "tls", "handshake", "ssl"]
            .iter()
            .any(|w| text.contains(w));
        match cause.source() {
            Some(next) => cause = next,
            None => break,
        }
    }
    // Host and port: "127.0.0.1" alone does not say which of its services is meant.
    let host = e
        .url()
        .map(|u| {
            format!(
                "{}:{}",
                u.host_str().unwrap_or("?"),
                u.port_or_known_default().unwrap_or(0)
            )
        })
        .unwrap_or_default();
    if tls {
        ModelError::new(
            ErrorKind::Tls,
            format!(
                "The secure connection to the model service at {host} failed: {cause}. Check the base URL (https with a valid certificate)."
            ),
        )
    } else if e.is_connect() || e.is_timeout() {
        ModelError::new(
            ErrorKind::Connect,
            format!("Could not connect to the model service at {host}: {cause}."),
        )
    } else {
        ModelError::new(
            ErrorKind::ConnectionLost,
            format!(
                "The connection to the model service at {host} broke before it answered: {cause}."
            ),
        )
    }
}

async fn read_limited(
    mut response: Response,
    cap: usize,
    deadline: Instant,
) -> Result<Vec<u8>, ModelError> {
    let mut body = Vec::new();
    loop {
        match timeout_at(deadline, response.chunk()).await {
            Err(_) => {
                return Err(ModelError::new(
                    ErrorKind::IdleTimeout,
                    "The model service stopped answering.",
                ));
            }
            Ok(Err(_)) => return Err(ModelError::stream_cut()),
            Ok(Ok(None)) => return Ok(body),
            Ok(Ok(Some(piece))) => {
                if body.len() + piece.len() > cap {
                    return Err(ModelError::response_too_large(cap));
                }
                body.extend_from_slice(&piece);
            }
        }
    }
}
