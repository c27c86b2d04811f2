//! Typed errors of the adapter, each with a message a person can act on and a retry verdict.

use std::time::Duration;

/// What went wrong, as a closed set the run loop and the UI can branch on.
///
/// Not `#[non_exhaustive]`: the Host maps each kind to its wire kind with no wildcard arm, so a
/// kind added here fails to compile there until it has its own name and wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No API key is configured.
    MissingKey,
    /// The configuration cannot work (bad base URL, a key that cannot be sent in a header).
    InvalidConfig,
    /// 400: the request was malformed (DeepSeek also uses it for a missing reasoning
    /// continuation and for unknown models).
    BadRequest,
    /// An error answer saying the request is longer than the model's context window (400 from
    /// DeepSeek and OpenAI, any status from a gateway passing it on); see
    /// [`ModelError::context_limit`].
    ContextTooLong,
    /// 401: the key was refused.
    KeyRefused,
    /// 401 to a request sent without a key (an OpenAI-compatible endpoint asked without one):
    /// the endpoint wants a key.
    KeyRequired,
    /// 402: the account has no balance left.
    NoBalance,
    /// 422: a parameter was invalid.
    InvalidParameters,
    /// 429: too many requests; see [`ModelError::retry_after`].
    RateLimited,
    /// 500: the service failed internally.
    ServerError,
    /// 503: the service is overloaded.
    ServerOverloaded,
    /// Any other HTTP status.
    UnexpectedStatus,
    /// The configured model is not among the models the account offers.
    ModelNotOffered,
    /// The connection could not be opened (refused, DNS, connect timeout).
    Connect,
    /// The TLS handshake failed (an untrusted or wrong certificate, a plain-http server).
    Tls,
    /// The connection broke before an answer started.
    ConnectionLost,
    /// The answer stopped before `[DONE]` (connection closed or reset mid-stream).
    StreamCut,
    /// No data event arrived within the idle timeout (keep-alive comments do not count).
    IdleTimeout,
    /// A chunk was not the JSON it should be, or the chunks contradicted each other.
    MalformedStream,
    /// One event was larger than the per-event cap.
    EventTooLarge,
    /// The whole response was larger than the per-response cap.
    ResponseTooLarge,
    /// The provider reported an error inside the stream.
    ProviderError,
}

/// An error of one model request.
///
/// `Display` is the sentence for a person: what happened and what to do. It never contains the
/// API key: provider text is passed through [`crate::ApiKey::redact`] before it is kept.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    kind: ErrorKind,
    status: Option<u16>,
    message: String,
    retry_after: Option<Duration>,
    /// The service's own words, when it gave any (redacted and shortened).
    detail: Option<String>,
}

impl ModelError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            status: None,
            message: message.into(),
            retry_after: None,
            detail: None,
        }
    }

    fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// What the service itself said (an error answer's message, an error inside the stream,
    /// what could not be read), redacted and shortened; `None` when it said nothing.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The context window the service named when it refused a request as too long
    /// ("maximum context length is 131072 tokens"), in tokens.
    pub fn context_limit(&self) -> Option<u64> {
        if self.kind != ErrorKind::ContextTooLong {
            return None;
        }
        self.detail.as_deref().and_then(context_limit_in)
    }

    /// Which class of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The HTTP status, when the service answered with one.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// How long the service asked us to wait before trying again (`Retry-After`, capped at
    /// [`crate::limits::MAX_RETRY_AFTER`]).
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// Whether sending the same request again may succeed. Only the request is retried:
    /// the run loop never re-executes a tool because of this.
    pub fn retryable(&self) -> bool {
        match self.kind {
            ErrorKind::RateLimited
            | ErrorKind::ServerError
            | ErrorKind::ServerOverloaded
            | ErrorKind::Connect
            | ErrorKind::ConnectionLost
            | ErrorKind::StreamCut
            | ErrorKind::IdleTimeout => true,
            ErrorKind::UnexpectedStatus => self.status.is_some_and(|s| s >= 500),
            _ => false,
        }
    }

    /// A 401 to a request sent without a key: the endpoint wants one.
    pub(crate) fn key_required(provider_message: Option<&str>) -> Self {
        let said = provider_message
            .filter(|m| !m.is_empty())
            .map(|m| format!(" The service said: \"{m}\""))
            .unwrap_or_default();
        let mut e = Self::new(
            ErrorKind::KeyRequired,
            format!(
                "The endpoint wants an API key (401), and none is set. Enter one in Settings → Model.{said}"
            ),
        );
        e.status = Some(401);
        match provider_message.filter(|m| !m.is_empty()) {
            Some(m) => e.with_detail(m),
            None => e,
        }
    }

    pub(crate) fn event_too_large(cap: usize) -> Self {
        Self::new(
            ErrorKind::EventTooLarge,
            format!(
                "The model service sent one stream event larger than {cap} bytes; the answer was abandoned."
            ),
        )
    }

    pub(crate) fn response_too_large(cap: usize) -> Self {
        Self::new(
            ErrorKind::ResponseTooLarge,
            format!("The model's answer grew past {cap} bytes; it was abandoned."),
        )
    }

    pub(crate) fn malformed(detail: impl std::fmt::Display) -> Self {
        Self::new(
            ErrorKind::MalformedStream,
            format!("The model service sent a stream Wisp cannot read ({detail})."),
        )
        .with_detail(detail.to_string())
    }

    pub(crate) fn provider(message: &str) -> Self {
        let message = crate::config::shorten(message);
        Self::new(
            ErrorKind::ProviderError,
            format!("The model service reported an error while answering: \"{message}\""),
        )
        .with_detail(message)
    }

    pub(crate) fn stream_cut() -> Self {
        Self::new(
            ErrorKind::StreamCut,
            "The model's answer stopped before it was complete (the connection closed early); trying again usually helps.",
        )
    }

    pub(crate) fn idle_timeout(idle: Duration) -> Self {
        Self::new(
            ErrorKind::IdleTimeout,
            format!(
                "The model service stalled: no data for {} s (keep-alives do not count), so the request was given up; trying again usually helps.",
                idle.as_secs_f64()
            ),
        )
    }

    /// An error answer from the service, from its status, its `Retry-After` and its own message
    /// (already redacted and shortened).
    pub fn from_status(
        status: u16,
        provider_message: Option<&str>,
        retry_after: Option<Duration>,
    ) -> Self {
        let said = provider_message
            .filter(|m| !m.is_empty())
            .map(|m| format!(" The service said: \"{m}\""))
            .unwrap_or_default();
        let too_long = provider_message.is_some_and(says_context_too_long);
        let (kind, message) = match status {
            // DeepSeek and OpenAI say it with 400; gateways pass the same words on with other
            // statuses (OpenRouter wraps a DeepInfra refusal in a 502): none of these is helped
            // by sending the same request again.
            _ if too_long => {
                let window = provider_message
                    .and_then(context_limit_in)
                    .map(|n| format!(", {n} tokens"))
                    .unwrap_or_default();
                (
                    ErrorKind::ContextTooLong,
                    format!(
                        "The conversation is longer than the model's context window ({status}{window}). Wisp leaves out older tool results from the next request to make room: send the message again, or start a new session.{said}"
                    ),
                )
            }
            400 => (
                ErrorKind::BadRequest,
                format!("The model service rejected the request as invalid (400).{said}"),
            ),
            401 => (
                ErrorKind::KeyRefused,
                format!(
                    "The API key was refused (401). Replace it in Settings → Model, or check DEEPSEEK_API_KEY if it is set.{said}"
                ),
            ),
            402 => (
                ErrorKind::NoBalance,
                format!(
                    "The DeepSeek account is out of balance (402). Top it up, then send the message again.{said}"
                ),
            ),
            422 => (
                ErrorKind::InvalidParameters,
                format!("The model service rejected a request parameter (422).{said}"),
            ),
            429 => {
                let wait = retry_after
                    .map(|d| format!(" It asked to wait {} s.", d.as_secs()))
                    .unwrap_or_default();
                (
                    ErrorKind::RateLimited,
                    format!("The model service is rate limiting requests (429).{wait}{said}"),
                )
            }
            500 => (
                ErrorKind::ServerError,
                format!(
                    "The model service had an internal error (500); trying again usually helps.{said}"
                ),
            ),
            503 => (
                ErrorKind::ServerOverloaded,
                format!("The model service is overloaded (503); try again shortly.{said}"),
            ),
            other => (
                ErrorKind::UnexpectedStatus,
                format!("The model service answered with HTTP {other}.{said}"),
            ),
        };
        Self {
            kind,
            status: Some(status),
            message,
            retry_after,
            detail: provider_message
                .filter(|m| !m.is_empty())
                .map(str::to_owned),
        }
    }
}

/// Whether a service's error message says the request did not fit the model's context window,
/// in the words DeepSeek (and vLLM) or OpenAI use.
fn says_context_too_long(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "maximum context length",
        "context_length_exceeded",
        "context length exceeded",
        "exceeds the context window",
        "prompt is too long",
    ]
    .iter()
    .any(|p| m.contains(p))
}

/// The window in "maximum context length is 131072 tokens".
fn context_limit_in(message: &str) -> Option<u64> {
    const SAID: &str = "maximum context length is ";
    let m = message.to_ascii_lowercase();
    let rest = &m[m.find(SAID)? + SAID.len()..];
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_kinds_and_retry_verdicts() {
        let cases = [
            (400, ErrorKind::BadRequest, false),
            (401, ErrorKind::KeyRefused, false),
            (402, ErrorKind::NoBalance, false),
            (422, ErrorKind::InvalidParameters, false),
            (429, ErrorKind::RateLimited, true),
            (500, ErrorKind::ServerError, true),
            (503, ErrorKind::ServerOverloaded, true),
            (502, ErrorKind::UnexpectedStatus, true),
            (404, ErrorKind::UnexpectedStatus, false),
        ];
        for (status, kind, retryable) in cases {
            let e = ModelError::from_status(status, Some("why"), None);
            assert_eq!(e.kind(), kind, "{status}");
            assert_eq!(e.retryable(), retryable, "{status}");
            assert_eq!(e.status(), Some(status));
            assert!(e.to_string().contains(&status.to_string()), "{e}");
            assert!(e.to_string().contains("\"why\""), "{e}");
        }
    }

    #[test]
    fn a_request_longer_than_the_window_is_its_own_kind_naming_the_window() {
        let deepseek = "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (140000 in the messages, 0 in the completion). Please reduce the length of the messages or completion.";
        let e = ModelError::from_status(400, Some(deepseek), None);
        assert_eq!(e.kind(), ErrorKind::ContextTooLong);
        assert_eq!(e.context_limit(), Some(131_072));
        assert!(!e.retryable());
        assert!(e.to_string().contains("(400, 131072 tokens)"), "{e}");
        assert!(e.to_string().contains("start a new session"), "{e}");
        let openai = "This model's maximum context length is 128,000 tokens. However, your messages resulted in 130,000 tokens.";
        assert_eq!(
            ModelError::from_status(400, Some(openai), None).context_limit(),
            Some(128_000)
        );
        // Said without a number: the kind, and no window.
        let e = ModelError::from_status(413, Some("context_length_exceeded"), None);
        assert_eq!(
            (e.kind(), e.context_limit()),
            (ErrorKind::ContextTooLong, None)
        );
        assert!(e.to_string().contains("(413)"), "{e}");
        for other in [
            "Prompt is too long: 9000 tokens",
            "input exceeds the context window",
        ] {
            assert_eq!(
                ModelError::from_status(400, Some(other), None).kind(),
                ErrorKind::ContextTooLong,
                "{other}"
            );
        }
        // Other errors keep their kinds.
        assert_eq!(
            ModelError::from_status(400, Some("Model Not Exist"), None).kind(),
            ErrorKind::BadRequest
        );
        assert_eq!(
            ModelError::from_status(400, None, None).context_limit(),
            None
        );
        // Words providers really sent (OpenAI counting functions; OpenRouter passing on
        // DeepInfra's refusal as a 502): the kind and the window, never a retry.
        let openai_functions = "This model's maximum context length is 8192 tokens. However, you requested 8213 tokens (6683 in the messages, 730 in the functions, and 800 in the completion). Please reduce the length of the messages, functions, or completion.";
        let e = ModelError::from_status(400, Some(openai_functions), None);
        assert_eq!(
            (e.kind(), e.context_limit()),
            (ErrorKind::ContextTooLong, Some(8_192))
        );
        let gateway = r#"ConnectionError: {"object": "error", "message": "This model's maximum context length is 16000 tokens. However, you requested 17165 tokens (13069 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.", "type": "BadRequestError", "param": null, "code": 400}"#;
        let e = ModelError::from_status(502, Some(gateway), None);
        assert_eq!(
            (e.kind(), e.context_limit()),
            (ErrorKind::ContextTooLong, Some(16_000))
        );
        assert!(!e.retryable());
        assert_eq!(
            ModelError::from_status(500, Some("internal error"), None).kind(),
            ErrorKind::ServerError
        );
        assert_eq!(
            ModelError::from_status(400, Some("maximum context length is 0 tokens"), None)
                .context_limit(),
            None
        );
    }

    #[test]
    fn rate_limit_message_names_the_wait() {
        let e = ModelError::from_status(429, None, Some(Duration::from_secs(7)));
        assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
        assert!(e.to_string().contains("wait 7 s"), "{e}");
    }
}
