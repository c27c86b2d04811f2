//! Where the adapter talks to and with which key: base URL, model, key, stream limits.

use std::fmt;
use std::time::Duration;

use crate::error::{ErrorKind, ModelError};
use crate::limits;

/// The public DeepSeek endpoint (OpenAI-compatible format).
pub const DEFAULT_BASE_URL: &str = "https://api.deepseek.com";

/// The model used when none is configured. Model names change often: this is only the
/// documented default (DeepSeek's recommended general model on 2026-11-29). Any other name is
/// sent as configured, and [`crate::DeepSeekClient::check_model`] says when the account does not
/// offer it.
pub const DEFAULT_MODEL: &str = "deepseek-v4-flash";

/// Environment variable holding the base URL.
pub const ENV_BASE_URL: &str = "DEEPSEEK_BASE_URL";
/// Environment variable holding the model name.
pub const ENV_MODEL: &str = "DEEPSEEK_MODEL";
/// Environment variable holding the API key.
pub const ENV_API_KEY: &str = "DEEPSEEK_API_KEY";

/// An API key. It has no `Display`, its `Debug` hides it, and it is only ever put in the
/// `Authorization` header (marked sensitive) of requests to the configured base URL.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key, refusing one that cannot be sent in a header. The error never repeats it.
    pub fn new(key: impl Into<String>) -> Result<Self, ModelError> {
        let key = key.into();
        let key = key.trim().to_owned();
        if key.is_empty() {
            return Err(ModelError::new(
                ErrorKind::MissingKey,
                "The DeepSeek API key is empty.",
            ));
        }
        if !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ModelError::new(
                ErrorKind::InvalidConfig,
                "The DeepSeek API key contains spaces or characters that cannot be sent; paste it again.",
            ));
        }
        Ok(Self(key))
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced, for provider messages that are kept.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.0, "[redacted key]")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Caps and timeouts of one streamed request; defaults from [`crate::limits`].
#[derive(Debug, Clone)]
pub struct StreamLimits {
    /// See [`limits::MAX_EVENT_BYTES`].
    pub max_event_bytes: usize,
    /// See [`limits::MAX_RESPONSE_BYTES`].
    pub max_response_bytes: usize,
    /// See [`limits::IDLE_TIMEOUT`].
    pub idle_timeout: Duration,
    /// See [`limits::CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
}

impl Default for StreamLimits {
    fn default() -> Self {
        Self {
            max_event_bytes: limits::MAX_EVENT_BYTES,
            max_response_bytes: limits::MAX_RESPONSE_BYTES,
            idle_timeout: limits::IDLE_TIMEOUT,
            connect_timeout: limits::CONNECT_TIMEOUT,
        }
    }
}

/// Which request fields the endpoint understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// DeepSeek: `thinking`, `reasoning_effort`, and `reasoning_content` sent back with every
    /// assistant message that made tool calls.
    #[default]
    DeepSeek,
    /// Any other OpenAI-compatible endpoint (Ollama, vLLM, LM Studio): only the standard
    /// chat-completions fields, since some refuse fields they do not know.
    OpenAiCompatible,
}

/// Everything [`crate::DeepSeekClient`] needs.
#[derive(Debug, Clone)]
pub struct ModelConfig {
    /// Base URL of an OpenAI-compatible API (`…/chat/completions` and `…/models` are appended).
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// The key; `None` makes every request fail with [`ErrorKind::MissingKey`], not a crash.
    pub api_key: Option<ApiKey>,
    /// Which fields the endpoint gets.
    pub dialect: Dialect,
    /// Caps and timeouts.
    pub limits: StreamLimits,
}

impl ModelConfig {
    /// The defaults with this key.
    pub fn new(api_key: Option<ApiKey>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            model: DEFAULT_MODEL.to_owned(),
            api_key,
            dialect: Dialect::DeepSeek,
            limits: StreamLimits::default(),
        }
    }

    /// Reads `DEEPSEEK_BASE_URL`, `DEEPSEEK_MODEL` and `DEEPSEEK_API_KEY` from the process
    /// environment. Unset or empty values take the defaults (no key: see [`ModelConfig::api_key`]).
    pub fn from_env() -> Result<Self, ModelError> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// Like [`ModelConfig::from_env`], reading variables through `var`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let api_key = set(ENV_API_KEY).map(ApiKey::new).transpose()?;
        let mut config = Self::new(api_key);
        if let Some(base) = set(ENV_BASE_URL) {
            config.base_url = base.trim().to_owned();
        }
        if let Some(model) = set(ENV_MODEL) {
            config.model = model.trim().to_owned();
        }
        Ok(config)
    }
}

/// A provider message, shortened for keeping.
pub(crate) fn shorten(message: &str) -> String {
    let mut out: String = message
        .chars()
        .filter(|c| !c.is_control())
        .take(limits::MAX_PROVIDER_MESSAGE_CHARS)
        .collect();
    if message.chars().count() > limits::MAX_PROVIDER_MESSAGE_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_values_override_defaults_and_blank_ones_do_not() {
        let c = ModelConfig::from_vars(|n| match n {
            ENV_BASE_URL => Some("http://127.0.0.1:9/v1/".into()),
            ENV_MODEL => Some("  ".into()),
            ENV_API_KEY => Some(" sk-abc ".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.base_url, "http://127.0.0.1:9/v1/");
        assert_eq!(c.model, DEFAULT_MODEL);
        assert_eq!(c.api_key.unwrap().expose(), "sk-abc");
        assert!(ModelConfig::from_vars(|_| None).unwrap().api_key.is_none());
    }

    #[test]
    fn key_is_hidden_from_debug_and_errors() {
        let key = ApiKey::new("sk-secret-123").unwrap();
        assert!(!format!("{key:?}").contains("sk-secret"));
        assert_eq!(
            key.redact("bad key sk-secret-123!"),
            "bad key [redacted key]!"
        );
        let err = ApiKey::new("sk-with space").unwrap_err();
        assert!(!err.to_string().contains("sk-with"));
        assert_eq!(err.kind(), ErrorKind::InvalidConfig);
    }

    #[test]
    fn provider_messages_are_shortened_and_stripped_of_control_characters() {
        let long = "x".repeat(limits::MAX_PROVIDER_MESSAGE_CHARS + 5);
        let short = shorten(&long);
        assert_eq!(
            short.chars().count(),
            limits::MAX_PROVIDER_MESSAGE_CHARS + 1
        );
        assert_eq!(shorten("a\nb\u{1b}[31mc"), "ab[31mc");
    }
}
