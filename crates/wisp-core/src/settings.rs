//! Settings → Model: which provider, endpoint, model, thinking mode, key and prices
//! the next run uses; where each value comes from; the connection check and its problems.
//!
//! - Precedence per field: a flag (`--simulate` pins the simulator) or an environment variable
//!   (`DEEPSEEK_BASE_URL`, `DEEPSEEK_MODEL`, `DEEPSEEK_API_KEY`) over the stored settings over
//!   Wisp's defaults; [`p::SettingsSources`] says which won.
//! - The Host holds the model in effect as one swappable [`ActiveModel`]: a run takes the one in
//!   effect when it starts and keeps it, so a change applies from the next run, no restart.
//!   It lives in [`ModelSettings`], one handle over one lock that is never held across the
//!   secret store, the database, a model being resolved or a check; changes go one at a time.
//! - The key lives in [`wisp_secrets::Secrets`] (OS keyring or this process only), is read into
//!   memory once, and never leaves the Host but in the `Authorization` header of the endpoint.
//! - The same check ("Test connection": `GET /models` and "is the model offered") runs at
//!   start, after every change and on request; its outcome is the Host's model problem.
//! - A problem and a failed run's error are one [`p::Failure`]: a kind of the closed
//!   [`p::FailureKind`] with the parameters it names (host, port, source, status, the service's
//!   own words), so the UI words it in the person's language; `message` is English for the log
//!   and the command line only. The adapter's kinds map to it with no wildcard arm; the UI's
//!   list (`ui/src/features/settings/failureKinds.ts`) is checked against the enum in the
//!   OpenAPI document by `tests/settings.rs`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use wisp_model::{ApiKey, DeepSeekClient, Dialect, ErrorKind, ModelConfig, ModelError, Thinking};
use wisp_protocol as p;
use wisp_secrets::{MODEL_API_KEY, SecretError, Secrets, Storage};

use crate::{CoreError, CoreErrorKind, fail, lock};

/// The settings' name in the store.
const STORED_NAME: &str = "model";
/// Where the model key was kept (not the key): [`KEY_IN_KEYRING`] when the OS secret store
/// holds it. Only then is the store opened at start (MCP-18: a Host with no key stored there
/// never touches it).
const KEY_PLACE_NAME: &str = "model-api-key-place";
/// [`KEY_PLACE_NAME`]'s value (JSON text) when the key is in the OS secret store.
const KEY_IN_KEYRING: &str = "\"keyring\"";
/// [`KEY_PLACE_NAME`]'s value when it is not (kept for this process, or none).
const KEY_NOT_IN_KEYRING: &str = "null";
/// [`KEY_PLACE_NAME`]'s value in a database an earlier build used, before the place was
/// recorded (store migration 8): the OS store is asked once, and what it says is recorded.
const KEY_PLACE_UNKNOWN: &str = "\"unknown\"";

/// The built-in simulator's address and key, when the binary started one.
#[derive(Clone)]
pub struct SimEndpoint {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The key it accepts.
    pub api_key: String,
}

/// The model variables of the environment (blank ones count as unset).
#[derive(Clone, Default)]
pub struct EnvModel {
    /// `DEEPSEEK_BASE_URL`.
    pub base_url: Option<String>,
    /// `DEEPSEEK_MODEL`.
    pub model: Option<String>,
    /// `DEEPSEEK_API_KEY`.
    pub api_key: Option<String>,
}

impl EnvModel {
    /// Reads the three variables through `var`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let set = |name: &str| {
            var(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        Self {
            base_url: set(wisp_model::ENV_BASE_URL),
            model: set(wisp_model::ENV_MODEL),
            api_key: set(wisp_model::ENV_API_KEY),
        }
    }
}

/// What [`crate::Host::configure_model`] needs.
pub struct ModelSetup {
    /// The simulator, for the `simulation` provider.
    pub simulator: Option<SimEndpoint>,
    /// `--simulate`: the provider is the simulator whatever is stored.
    pub pinned_simulation: bool,
    /// The environment's model variables.
    pub env: EnvModel,
    /// Where keys live.
    pub secrets: Arc<Secrets>,
}

/// The model in effect: what a run takes at its start.
#[derive(Clone)]
pub(crate) struct ActiveModel {
    /// `None` when the configuration cannot work; `problem` says why.
    pub(crate) client: Option<DeepSeekClient>,
    pub(crate) run_model: p::RunModel,
    pub(crate) mode: p::Mode,
    pub(crate) thinking: Thinking,
    /// The price of `run_model.name`, when the table has one.
    pub(crate) price: Option<p::ModelPrice>,
    /// The price table `price` came from (empty for the simulator, which costs nothing), so a
    /// session asking for another model is priced too.
    prices: Arc<BTreeMap<String, p::ModelPrice>>,
    /// What gave the base URL and the key, for messages.
    base_label: String,
    key_label: String,
    /// Stable names of the same, for the UI: a variable's name, `settings`, `default`,
    /// `simulator`, `keyring`, `process`.
    base_code: String,
    key_code: String,
    base_url: String,
    /// Why this model cannot be used, as the Host last found: from its configuration when it
    /// was resolved, then from each connection check. This is the Host's model problem (`/api/health`); no
    /// other copy of it is kept.
    pub(crate) problem: Option<p::Problem>,
}

impl ActiveModel {
    /// The model of a Host started with a fixed client ([`crate::Host::start`]).
    pub(crate) fn fixed(client: Option<DeepSeekClient>, mode: p::Mode) -> Self {
        let name = client
            .as_ref()
            .map(|c| c.model().to_owned())
            .unwrap_or_else(|| wisp_model::DEFAULT_MODEL.to_owned());
        Self {
            client,
            run_model: p::RunModel {
                provider: match mode {
                    p::Mode::Simulation => p::Provider::Simulation,
                    p::Mode::Live => p::Provider::Deepseek,
                },
                name,
            },
            mode,
            thinking: Thinking::Enabled { effort: None },
            price: None,
            prices: Arc::default(),
            base_label: "the command line".into(),
            key_label: wisp_model::ENV_API_KEY.into(),
            base_code: "flag".into(),
            key_code: "flag".into(),
            base_url: String::new(),
            problem: None,
        }
    }

    /// The same endpoint and settings asking for the model `name`: what a run of a session
    /// that picked its own model uses. Everything else, the problem too, is the Settings'.
    pub(crate) fn asking_for(&self, name: &str) -> Self {
        Self {
            client: self.client.as_ref().map(|c| c.with_model(name)),
            run_model: p::RunModel {
                provider: self.run_model.provider,
                name: name.to_owned(),
            },
            price: self.prices.get(name).copied(),
            ..self.clone()
        }
    }

    /// The same model with `problem` as what the Host found.
    fn with_problem(&self, problem: Option<p::Problem>) -> Self {
        Self {
            problem,
            ..self.clone()
        }
    }
}

/// The settings machinery of a Host configured by [`crate::Host::configure_model`]. Cheap to
/// clone, so the model is resolved from a copy, outside the lock.
#[derive(Clone)]
pub(crate) struct SettingsState {
    setup: Arc<ModelSetup>,
    stored: Option<p::UpdateSettings>,
    /// The key from the secret store, read once.
    key: Option<(String, Storage)>,
}

/// DeepSeek's published prices (USD per million tokens).
pub fn default_prices() -> p::PriceTable {
    let price = |cache_hit, cache_miss, output| p::ModelPrice {
        cache_hit,
        cache_miss,
        output,
    };
    p::PriceTable {
        currency: "USD".into(),
        // Only the source's name: how far to trust Wisp's copy is worded by the UI, in the
        // person's language.
        source: "DeepSeek Models & Pricing, api-docs.deepseek.com/quick_start/pricing".into(),
        as_of: "2026-06-28".into(),
        models: BTreeMap::from([
            ("deepseek-v4-flash".to_owned(), price(0.0028, 0.14, 0.28)),
            ("deepseek-v4-pro".to_owned(), price(0.003625, 0.435, 0.87)),
        ]),
    }
}

/// What `usage` cost at `price` (reasoning is part of the output tokens).
pub(crate) fn estimate(price: &p::ModelPrice, usage: &p::Usage) -> f64 {
    let per = |tokens: u64, rate: f64| tokens as f64 * rate / 1_000_000.0;
    per(usage.cache_hit_tokens, price.cache_hit)
        + per(usage.cache_miss_tokens, price.cache_miss)
        + per(usage.completion_tokens, price.output)
}

/// The wire's kind of a failed model request. No wildcard arm: a kind the adapter adds fails to
/// compile here until it has a name of its own (and the UI a wording for it).
fn failure_kind(kind: ErrorKind) -> p::FailureKind {
    use p::FailureKind as K;
    match kind {
        ErrorKind::MissingKey => K::MissingKey,
        ErrorKind::InvalidConfig => K::InvalidConfig,
        ErrorKind::BadRequest => K::BadRequest,
        ErrorKind::ContextTooLong => K::ContextTooLong,
        ErrorKind::KeyRefused => K::KeyRefused,
        ErrorKind::KeyRequired => K::KeyRequired,
        ErrorKind::NoBalance => K::NoBalance,
        ErrorKind::InvalidParameters => K::InvalidParameters,
        ErrorKind::RateLimited => K::RateLimited,
        ErrorKind::ServerError => K::ServerError,
        ErrorKind::ServerOverloaded => K::ServerOverloaded,
        ErrorKind::UnexpectedStatus => K::UnexpectedStatus,
        ErrorKind::ModelNotOffered => K::ModelNotOffered,
        ErrorKind::Connect => K::Connect,
        ErrorKind::Tls => K::Tls,
        ErrorKind::ConnectionLost => K::ConnectionLost,
        ErrorKind::StreamCut => K::StreamCut,
        ErrorKind::IdleTimeout => K::IdleTimeout,
        ErrorKind::MalformedStream => K::MalformedStream,
        ErrorKind::EventTooLarge => K::EventTooLarge,
        ErrorKind::ResponseTooLarge => K::ResponseTooLarge,
        ErrorKind::ProviderError => K::ProviderError,
    }
}

/// A failed model request as the wire says it: its kind with the parameters the kind names
/// (the endpoint, the setting or variable that gave the value, the status, the service's own
/// words), and `message`, the English sentence for the log and the command line.
fn failure_of(e: &ModelError, active: &ActiveModel, message: String) -> p::Failure {
    use p::FailureKind as K;
    let kind = failure_kind(e.kind());
    let mut failure = p::Failure::new(kind, message);
    let (host, port) = wisp_model::endpoint_of(&active.base_url)
        .map(|(h, p)| (h, p.to_string()))
        .unwrap_or_default();
    let endpoint = |f: p::Failure| f.with("host", host.as_str()).with("port", port.as_str());
    failure = match kind {
        K::Connect | K::Tls | K::ConnectionLost | K::IdleTimeout | K::StreamCut => {
            endpoint(failure).with("source", active.base_code.as_str())
        }
        K::KeyRefused => endpoint(failure).with("source", active.key_code.as_str()),
        K::KeyRequired => endpoint(failure),
        // No key anywhere: there is no source to name.
        K::MissingKey => failure,
        K::ModelNotOffered => failure.with("model", active.run_model.name.as_str()),
        // The adapter's sentence names the setting that cannot work.
        K::InvalidConfig => failure
            .with("model", active.run_model.name.as_str())
            .with("detail", e.to_string()),
        K::ContextTooLong => {
            let f = endpoint(failure);
            match e.context_limit() {
                Some(window) => f.with("window", window.to_string()),
                None => f,
            }
        }
        K::BadRequest
        | K::NoBalance
        | K::InvalidParameters
        | K::RateLimited
        | K::ServerError
        | K::ServerOverloaded
        | K::UnexpectedStatus
        | K::MalformedStream
        | K::EventTooLarge
        | K::ResponseTooLarge
        | K::ProviderError => endpoint(failure),
        // Never the kind of a model request's error.
        K::BudgetExhausted
        | K::EmptySummary
        | K::SpendingLimit
        | K::Interrupted
        | K::UnfinishedAtStart
        | K::SecretStoreUnavailable
        | K::SecretStoreFailed
        | K::Internal => failure,
    };
    if let Some(status) = e.status() {
        failure = failure.with("status", status.to_string());
    }
    if let Some(said) = e.detail() {
        failure = failure.with("detail", said);
    }
    failure
}

/// What a failed model request means for the model settings, with the English sentence the
/// command line prints (naming the setting that gave the value).
pub(crate) fn problem_of(e: &ModelError, active: &ActiveModel) -> p::Problem {
    let (host, port) = wisp_model::endpoint_of(&active.base_url)
        .map(|(h, p)| (h, p.to_string()))
        .unwrap_or_default();
    let base = active.base_label.as_str();
    let key = active.key_label.as_str();
    let message = match e.kind() {
        ErrorKind::Connect | ErrorKind::ConnectionLost | ErrorKind::IdleTimeout => format!(
            "Cannot reach the model service at {host}:{port} (the base URL comes from {base}). Check that the service runs and the address is right, or change the base URL in Settings → Model. ({e})"
        ),
        ErrorKind::Tls => format!(
            "The secure connection to {host}:{port} failed (the base URL comes from {base}): the certificate is not trusted or the address does not speak https. ({e})"
        ),
        ErrorKind::KeyRefused => format!(
            "The model service at {host}:{port} refused the API key (401; the key comes from {key}). Replace it in Settings → Model."
        ),
        ErrorKind::KeyRequired => format!(
            "The model service at {host}:{port} wants an API key (401), and none is set. Enter one in Settings → Model."
        ),
        ErrorKind::NoBalance => "The account has no balance left (402). Top it up with the provider, then test the connection again.".into(),
        ErrorKind::MissingKey
        | ErrorKind::InvalidConfig
        | ErrorKind::BadRequest
        | ErrorKind::ContextTooLong
        | ErrorKind::InvalidParameters
        | ErrorKind::RateLimited
        | ErrorKind::ServerError
        | ErrorKind::ServerOverloaded
        | ErrorKind::UnexpectedStatus
        | ErrorKind::ModelNotOffered
        | ErrorKind::StreamCut
        | ErrorKind::MalformedStream
        | ErrorKind::EventTooLarge
        | ErrorKind::ResponseTooLarge
        | ErrorKind::ProviderError => e.to_string(),
    };
    failure_of(e, active, message)
}

/// Settings that cannot make a model, with the sentence that says which.
pub(crate) fn invalid_config(why: &str) -> p::Problem {
    p::Failure::new(p::FailureKind::InvalidConfig, why).with("detail", why)
}

/// A failed model request of a run.
pub(crate) fn run_error_of(e: &ModelError, active: &ActiveModel) -> p::RunError {
    failure_of(e, active, e.to_string())
}

fn storage_wire(s: Storage) -> p::KeyStorage {
    match s {
        Storage::Keyring => p::KeyStorage::Keyring,
        Storage::Process => p::KeyStorage::Process,
    }
}

fn secret_problem(e: &SecretError) -> p::Problem {
    match e {
        SecretError::Unavailable(_) => {
            p::Failure::new(p::FailureKind::SecretStoreUnavailable, e.to_string())
        }
        SecretError::Failed(why) => {
            p::Failure::new(p::FailureKind::SecretStoreFailed, e.to_string()).with("detail", why)
        }
    }
}

fn secret_error(e: SecretError) -> CoreError {
    match e {
        SecretError::Unavailable(_) => fail(CoreErrorKind::SecretStoreUnavailable, e.to_string()),
        SecretError::Failed(_) => fail(CoreErrorKind::Internal, e.to_string()),
    }
}

/// The settings in effect and the model they make.
fn resolve(state: &SettingsState) -> (p::Settings, ActiveModel) {
    use p::SettingSource as Src;
    let stored = state.stored.as_ref();
    let env = &state.setup.env;
    let (provider, provider_src) = if state.setup.pinned_simulation {
        (p::Provider::Simulation, Src::Flag)
    } else if let Some(s) = stored {
        (s.provider, Src::Stored)
    } else {
        (p::Provider::Deepseek, Src::Default)
    };
    let simulated = provider == p::Provider::Simulation;
    let sim = state.setup.simulator.as_ref();
    // The environment's variables name the real endpoint; the simulator has its own.
    let (base_url, base_src, base_label) = if simulated {
        (
            sim.map(|s| s.base_url.clone()).unwrap_or_default(),
            if state.setup.pinned_simulation {
                Src::Flag
            } else {
                Src::Default
            },
            "the built-in simulator".to_owned(),
        )
    } else if let Some(b) = &env.base_url {
        (b.clone(), Src::Env, wisp_model::ENV_BASE_URL.to_owned())
    } else if let Some(b) = stored.and_then(|s| s.base_url.clone()) {
        (b, Src::Stored, "Settings → Model".to_owned())
    } else if provider == p::Provider::Deepseek {
        (
            wisp_model::DEFAULT_BASE_URL.to_owned(),
            Src::Default,
            "Wisp's default".to_owned(),
        )
    } else {
        (String::new(), Src::Default, "Settings → Model".to_owned())
    };
    let (model, model_src) = match (&env.model, stored) {
        (Some(m), _) if !simulated => (m.clone(), Src::Env),
        (_, Some(s)) => (s.model.clone(), Src::Stored),
        _ => (wisp_model::DEFAULT_MODEL.to_owned(), Src::Default),
    };
    let (thinking, thinking_src) = match stored {
        Some(s) => (s.thinking, Src::Stored),
        None => (p::ThinkingMode::Enabled, Src::Default),
    };
    let (effort, effort_src) = match stored {
        Some(s) => (s.reasoning_effort, Src::Stored),
        None => (None, Src::Default),
    };
    let (prices, prices_src) = match stored.and_then(|s| s.prices.clone()) {
        Some(t) => (t, Src::Stored),
        None => (default_prices(), Src::Default),
    };
    let (key_state, key_src, key_value, key_label) = if let Some(k) = &env.api_key {
        (
            p::ApiKeyState {
                set: true,
                storage: Some(p::KeyStorage::Env),
            },
            Src::Env,
            Some(k.clone()),
            wisp_model::ENV_API_KEY.to_owned(),
        )
    } else if let Some((k, storage)) = &state.key {
        (
            p::ApiKeyState {
                set: true,
                storage: Some(storage_wire(*storage)),
            },
            Src::Stored,
            Some(k.clone()),
            match storage {
                Storage::Keyring => "the system keyring".to_owned(),
                Storage::Process => "this Wisp session".to_owned(),
            },
        )
    } else {
        (
            p::ApiKeyState {
                set: false,
                storage: None,
            },
            Src::Default,
            None,
            "nowhere".to_owned(),
        )
    };
    let view = p::Settings {
        provider,
        base_url: base_url.clone(),
        model: model.clone(),
        thinking,
        reasoning_effort: effort,
        api_key: key_state,
        prices: prices.clone(),
        sources: p::SettingsSources {
            provider: provider_src,
            base_url: base_src,
            model: model_src,
            thinking: thinking_src,
            reasoning_effort: effort_src,
            api_key: key_src,
            prices: prices_src,
        },
        keyring_problem: state.setup.secrets.keyring_problem().map(secret_problem),
    };

    let run_model = p::RunModel {
        provider,
        name: model.clone(),
    };
    let mut active = ActiveModel {
        client: None,
        run_model,
        mode: if simulated {
            p::Mode::Simulation
        } else {
            p::Mode::Live
        },
        thinking: match thinking {
            p::ThinkingMode::Disabled => Thinking::Disabled,
            p::ThinkingMode::Enabled => Thinking::Enabled {
                effort: effort.map(|e| match e {
                    p::Effort::High => wisp_model::ReasoningEffort::High,
                    p::Effort::Max => wisp_model::ReasoningEffort::Max,
                }),
            },
        },
        // The simulator costs nothing: no estimate rather than a made-up one.
        price: (!simulated)
            .then(|| prices.models.get(&model).copied())
            .flatten(),
        prices: Arc::new(if simulated {
            BTreeMap::new()
        } else {
            prices.models.clone()
        }),
        base_label,
        base_code: match base_src {
            _ if simulated => "simulator".to_owned(),
            Src::Env => wisp_model::ENV_BASE_URL.to_owned(),
            Src::Stored => "settings".to_owned(),
            Src::Flag | Src::Default => "default".to_owned(),
        },
        key_code: match (key_src, state.key.as_ref().map(|k| k.1)) {
            (Src::Env, _) => wisp_model::ENV_API_KEY.to_owned(),
            (_, Some(Storage::Keyring)) => "keyring".to_owned(),
            (_, Some(Storage::Process)) => "process".to_owned(),
            _ => "none".to_owned(),
        },
        key_label,
        base_url: base_url.clone(),
        problem: None,
    };
    let key = if simulated {
        sim.map(|s| s.api_key.clone())
    } else {
        key_value
    };
    if simulated && sim.is_none() {
        active.problem = Some(invalid_config(
            "The simulator is not running in this Wisp; choose another provider or start Wisp with --simulate.",
        ));
        return (view, active);
    }
    if base_url.is_empty() {
        active.problem = Some(invalid_config(
            "No base URL is set for the OpenAI-compatible endpoint; enter it in Settings → Model.",
        ));
        return (view, active);
    }
    let api_key = match key.map(ApiKey::new).transpose() {
        Ok(k) => k,
        Err(e) => {
            active.problem = Some(problem_of(&e, &active));
            return (view, active);
        }
    };
    let mut config = ModelConfig::new(api_key);
    config.base_url = base_url;
    config.model = model;
    config.dialect = match provider {
        p::Provider::OpenaiCompatible => Dialect::OpenAiCompatible,
        p::Provider::Deepseek | p::Provider::Simulation => Dialect::DeepSeek,
    };
    // An OpenAI-compatible endpoint is asked without a key when none is set (a local server
    // often needs none); DeepSeek always needs one.
    let missing_key = config.api_key.is_none() && config.dialect == Dialect::DeepSeek;
    match DeepSeekClient::new(config) {
        Ok(client) => {
            active.client = Some(client);
            if missing_key {
                active.problem = Some(p::Failure::new(
                    p::FailureKind::MissingKey,
                    "No API key is set. Enter one in Settings → Model, or set DEEPSEEK_API_KEY, or start Wisp with --simulate.",
                ));
            }
        }
        Err(e) => active.problem = Some(problem_of(&e, &active)),
    }
    (view, active)
}

/// "Test connection": `GET /models`, then whether the model is among them.
async fn check(active: &ActiveModel) -> p::ConnectionTest {
    let failed = |problem| p::ConnectionTest {
        ok: false,
        problem: Some(problem),
        models: Vec::new(),
    };
    let Some(client) = &active.client else {
        return failed(
            active
                .problem
                .clone()
                .unwrap_or_else(|| invalid_config("No model is configured.")),
        );
    };
    if let Some(p) = active
        .problem
        .as_ref()
        .filter(|p| p.kind == p::FailureKind::MissingKey)
    {
        return failed(p.clone());
    }
    let models = match client.list_models().await {
        Ok(m) => m,
        Err(e) => return failed(problem_of(&e, active)),
    };
    if active.run_model.provider == p::Provider::Deepseek {
        match client.balance_available().await {
            Ok(Some(false)) => {
                return p::ConnectionTest {
                    ok: false,
                    problem: Some(problem_of(
                        &ModelError::from_status(402, None, None),
                        active,
                    )),
                    models,
                };
            }
            Ok(_) => {}
            Err(e) => tracing::info!(error = %e, "the balance could not be read"),
        }
    }
    if models.iter().any(|m| m == &active.run_model.name) {
        return p::ConnectionTest {
            ok: true,
            problem: None,
            models,
        };
    }
    let offered = models.join(", ");
    let name = &active.run_model.name;
    p::ConnectionTest {
        ok: false,
        problem: Some(
            p::Failure::new(
                p::FailureKind::ModelNotOffered,
                format!(
                    "The model \"{name}\" is not offered by this endpoint. It offers: {}. Pick one in Settings → Model{}.",
                    if offered.is_empty() {
                        "nothing"
                    } else {
                        &offered
                    },
                    if active.base_label == wisp_model::ENV_BASE_URL {
                        " or set DEEPSEEK_MODEL"
                    } else {
                        ""
                    }
                ),
            )
            .with("model", name.as_str())
            .with("offered", offered.as_str())
            .with("source", active.base_code.as_str()),
        ),
        models,
    }
}

/// The stored settings and the key (blocking: the OS secret store may be a D-Bus call).
fn load_state(
    setup: ModelSetup,
    store: Option<&wisp_store::Store>,
) -> Result<SettingsState, CoreError> {
    let stored = match store.map(|s| s.setting(STORED_NAME)).transpose()?.flatten() {
        Some(json) => serde_json::from_str::<p::UpdateSettings>(&json)
            .map_err(|_| tracing::warn!("stored model settings are unreadable; using defaults"))
            .ok(),
        None => None,
    };
    // A key kept for a process is gone with it; the OS store is asked only when a key was
    // kept there.
    let place = match store {
        Some(s) => s.setting(KEY_PLACE_NAME)?,
        None => None,
    };
    let unknown = place.as_deref() == Some(KEY_PLACE_UNKNOWN);
    let key = if unknown || place.as_deref() == Some(KEY_IN_KEYRING) {
        match setup.secrets.get_in(MODEL_API_KEY, Storage::Keyring) {
            Ok(k) => {
                if unknown && let Some(s) = store {
                    let found = if k.is_some() {
                        KEY_IN_KEYRING
                    } else {
                        KEY_NOT_IN_KEYRING
                    };
                    s.put_setting(KEY_PLACE_NAME, found)?;
                }
                k.map(|k| (k, Storage::Keyring))
            }
            // Unknown stays unknown: the next start asks again.
            Err(e) => {
                tracing::warn!(error = %e, "the stored API key cannot be read");
                None
            }
        }
    } else {
        None
    };
    Ok(SettingsState {
        setup: Arc::new(setup),
        stored,
        key,
    })
}

/// The model a Host on `store` would use, resolved the same way (the environment, then the
/// stored settings and the key in the secret store, then defaults), without a Host: for
/// `wisp models`. `store`: `None` when there is no database yet.
pub struct ModelProbe {
    settings: p::Settings,
    active: ActiveModel,
}

impl ModelProbe {
    /// Reads the settings and the key (blocking).
    pub fn load(setup: ModelSetup, store: Option<&wisp_store::Store>) -> Result<Self, CoreError> {
        let (settings, active) = resolve(&load_state(setup, store)?);
        Ok(Self { settings, active })
    }

    /// The settings in effect and where each came from.
    pub fn settings(&self) -> &p::Settings {
        &self.settings
    }

    /// The provider and model a run would use.
    pub fn model(&self) -> &p::RunModel {
        &self.active.run_model
    }

    /// "Test connection": the models offered, or the problem in the Host's words.
    pub async fn check(&self) -> p::ConnectionTest {
        check(&self.active).await
    }
}

/// The model settings of a Host: one handle over one lock, in the manner of mini-redis's `Db`.
/// The lock guards the model in effect (whose `problem` is the Host's model problem), the
/// settings it was resolved from, the count of connection checks and whether a change is
/// under way. A method takes it only to read or swap those values: resolving a model (which
/// builds an HTTP client), the OS secret store, the database and a check all run outside it,
/// and no method takes it again while it holds it.
#[derive(Clone)]
pub(crate) struct ModelSettings {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Taken by a change for its whole turn (the secret store, the database, then the model
    /// in effect), so changes go one at a time and the three agree. Reads never take it, and it
    /// guards no data: `state` is only locked briefly inside a turn.
    changes: Mutex<()>,
}

struct State {
    /// Replaced whole, never edited: a run keeps the model it took at its start.
    model: Arc<ActiveModel>,
    /// `None` until [`crate::Host::configure_model`]: the model stays the one given to
    /// [`crate::Host::start`].
    settings: Option<SettingsState>,
    /// Connection checks begun, so an older check that ends late does not win.
    checks: u64,
}

/// The turn of the one change under way ([`ModelSettings::change`]); the next change may
/// begin once it is dropped.
struct Change<'a>(
    #[expect(dead_code, reason = "held for its drop: the turn ends with it")] MutexGuard<'a, ()>,
);

fn not_configured() -> CoreError {
    fail(
        CoreErrorKind::Conflict,
        "this Host was started with a fixed model; its settings cannot change",
    )
}

impl ModelSettings {
    /// Settings holding `model` until they are configured.
    pub(crate) fn new(model: ActiveModel) -> Self {
        Self {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    model: Arc::new(model),
                    settings: None,
                    checks: 0,
                }),
                changes: Mutex::new(()),
            }),
        }
    }

    /// The model in effect, with the Host's problem with it.
    pub(crate) fn model(&self) -> Arc<ActiveModel> {
        lock(&self.shared.state).model.clone()
    }

    /// Records (or clears) the Host's model problem: tests only; the Host's own come from
    /// each configuration and check.
    #[cfg(test)]
    pub(crate) fn set_problem(&self, problem: Option<p::Problem>) {
        let mut state = lock(&self.shared.state);
        state.model = Arc::new(state.model.with_problem(problem));
    }

    /// Reads the stored settings and the key, applies them and checks them in the background.
    pub(crate) fn configure(
        &self,
        store: &wisp_store::Store,
        setup: ModelSetup,
    ) -> Result<(), CoreError> {
        let turn = self.change();
        let settings = load_state(setup, Some(store))?;
        lock(&self.shared.state).settings = Some(settings);
        self.apply(&turn)?;
        Ok(())
    }

    /// The currency of cost estimates (USD for a Host with a fixed model).
    pub(crate) fn currency(&self) -> String {
        self.view()
            .map_or_else(|_| default_prices().currency, |s| s.prices.currency)
    }

    /// The settings in effect and where each came from.
    pub(crate) fn view(&self) -> Result<p::Settings, CoreError> {
        Ok(resolve(&self.snapshot()?).0)
    }

    /// Stores `update` and applies it.
    pub(crate) fn update(
        &self,
        store: &wisp_store::Store,
        update: p::UpdateSettings,
    ) -> Result<p::Settings, CoreError> {
        let json = serde_json::to_string(&update)
            .map_err(|_| fail(CoreErrorKind::Internal, "settings cannot be saved"))?;
        let turn = self.change();
        self.configured()?;
        store.put_setting(STORED_NAME, &json)?;
        self.settings_mut(&turn, |s| s.stored = Some(update));
        self.apply(&turn)
    }

    /// Keeps the key where the person chose (blocking), then applies it.
    pub(crate) fn set_api_key(
        &self,
        store: &wisp_store::Store,
        request: &p::SetApiKey,
    ) -> Result<p::Settings, CoreError> {
        ApiKey::new(request.value.as_str())
            .map_err(|e| fail(CoreErrorKind::Invalid, e.to_string()))?;
        let value = request.value.trim().to_owned();
        let storage = match request.storage {
            p::KeyChoice::Keyring => Storage::Keyring,
            p::KeyChoice::Process => Storage::Process,
        };
        let turn = self.change();
        let (setup, _) = self.configured()?;
        setup
            .secrets
            .set(MODEL_API_KEY, &value, storage)
            .map_err(secret_error)?;
        let place = match storage {
            Storage::Keyring => KEY_IN_KEYRING,
            Storage::Process => KEY_NOT_IN_KEYRING,
        };
        store.put_setting(KEY_PLACE_NAME, place)?;
        self.settings_mut(&turn, |s| s.key = Some((value, storage)));
        tracing::info!(?storage, "API key replaced");
        self.apply(&turn)
    }

    /// Removes the key wherever it is kept (blocking), then applies its absence.
    pub(crate) fn delete_api_key(
        &self,
        store: &wisp_store::Store,
    ) -> Result<p::Settings, CoreError> {
        let turn = self.change();
        let (setup, kept) = self.configured()?;
        // A key kept for this process is removed without opening the OS store.
        let in_keyring = matches!(
            store.setting(KEY_PLACE_NAME)?.as_deref(),
            Some(KEY_IN_KEYRING | KEY_PLACE_UNKNOWN)
        );
        let secrets = &setup.secrets;
        match kept {
            Some(Storage::Process) if !in_keyring => {
                secrets.delete_in(MODEL_API_KEY, Storage::Process)
            }
            None if !in_keyring => Ok(()),
            _ => secrets.delete(MODEL_API_KEY),
        }
        .map_err(secret_error)?;
        store.put_setting(KEY_PLACE_NAME, KEY_NOT_IN_KEYRING)?;
        self.settings_mut(&turn, |s| s.key = None);
        tracing::info!("API key removed");
        self.apply(&turn)
    }

    /// The check, now; its outcome becomes the Host's model problem.
    pub(crate) async fn test_connection(&self) -> p::ConnectionTest {
        let (model, generation) = self.begin_check();
        let outcome = check(&model).await;
        self.record_check(generation, &outcome);
        outcome
    }

    /// Waits until no other change is under way, and takes the turn.
    fn change(&self) -> Change<'_> {
        Change(lock(&self.shared.changes))
    }

    /// The setup and where the key is kept now, or why the settings cannot change.
    fn configured(&self) -> Result<(Arc<ModelSetup>, Option<Storage>), CoreError> {
        let state = lock(&self.shared.state);
        let settings = state.settings.as_ref().ok_or_else(not_configured)?;
        Ok((settings.setup.clone(), settings.key.as_ref().map(|k| k.1)))
    }

    /// A copy of the settings, to resolve outside the lock.
    fn snapshot(&self) -> Result<SettingsState, CoreError> {
        lock(&self.shared.state)
            .settings
            .clone()
            .ok_or_else(not_configured)
    }

    /// Edits the settings in memory, during the change's turn; `edit` only assigns.
    fn settings_mut(&self, _turn: &Change<'_>, edit: impl FnOnce(&mut SettingsState)) {
        if let Some(settings) = lock(&self.shared.state).settings.as_mut() {
            edit(settings);
        }
    }

    /// Makes the settings the model in effect and starts a check of it. During a change's
    /// turn, so models are put in effect in the order of the changes.
    fn apply(&self, _turn: &Change<'_>) -> Result<p::Settings, CoreError> {
        let (view, model) = resolve(&self.snapshot()?);
        let model = Arc::new(model);
        let generation = {
            let mut state = lock(&self.shared.state);
            state.model = model.clone();
            state.checks += 1;
            state.checks
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            let settings = self.clone();
            tokio::spawn(async move {
                let outcome = check(&model).await;
                settings.record_check(generation, &outcome);
            });
        }
        Ok(view)
    }

    /// The model to check and the check's number.
    fn begin_check(&self) -> (Arc<ActiveModel>, u64) {
        let mut state = lock(&self.shared.state);
        state.checks += 1;
        (state.model.clone(), state.checks)
    }

    /// Keeps a check's outcome as the Host's model problem, unless a newer check (or a newer
    /// model, which starts one) has begun since.
    fn record_check(&self, generation: u64, outcome: &p::ConnectionTest) {
        let mut state = lock(&self.shared.state);
        if state.checks == generation {
            state.model = Arc::new(state.model.with_problem(outcome.problem.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Host;

    #[test]
    fn cost_counts_cache_hits_misses_and_output_at_their_prices() {
        let price = p::ModelPrice {
            cache_hit: 0.1,
            cache_miss: 1.0,
            output: 2.0,
        };
        let usage = p::Usage {
            prompt_tokens: 3_000_000,
            completion_tokens: 1_000_000,
            reasoning_tokens: 400_000,
            cache_hit_tokens: 1_000_000,
            cache_miss_tokens: 2_000_000,
            ..Default::default()
        };
        assert!((estimate(&price, &usage) - 4.1).abs() < 1e-9);
        let prices = default_prices();
        assert!(prices.models.contains_key(wisp_model::DEFAULT_MODEL));
    }

    fn state(env: EnvModel, stored: Option<p::UpdateSettings>, pinned: bool) -> SettingsState {
        SettingsState {
            setup: Arc::new(ModelSetup {
                simulator: Some(SimEndpoint {
                    base_url: "http://127.0.0.1:9".into(),
                    api_key: "sk-sim".into(),
                }),
                pinned_simulation: pinned,
                env,
                secrets: Arc::new(Secrets::new(Ok(wisp_secrets::Keyring::mock()))),
            }),
            stored,
            key: None,
        }
    }

    /// A Host on the database at `db` whose model is under Settings, its OS secret store
    /// `keyring`, opened only when needed.
    fn host_on(db: &std::path::Path, keyring: wisp_secrets::Keyring) -> (Host, Arc<Secrets>) {
        let host = crate::test_support::host_on(wisp_store::Store::open(db).unwrap());
        let secrets = Arc::new(Secrets::lazy(move || Ok(keyring.clone())));
        let setup = ModelSetup {
            simulator: None,
            pinned_simulation: false,
            // Nothing answers there: the background check fails at once, offline.
            env: EnvModel {
                base_url: Some("http://127.0.0.1:9".into()),
                ..EnvModel::default()
            },
            secrets: secrets.clone(),
        };
        host.configure_model(setup).unwrap();
        (host, secrets)
    }

    /// MCP-18 for the model key: a Host with no key kept in the OS secret store never opens
    /// it (start, settings, a key kept for the session, removing it); keeping the key there
    /// does, and records only where it is, so the next start reads it from there.
    #[tokio::test]
    async fn mcp_18_the_os_store_is_opened_for_the_key_only_when_it_is_kept_there() {
        use wisp_secrets::SecretStore;
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("wisp.db");
        let keyring = wisp_secrets::Keyring::mock();
        let key = |storage| p::SetApiKey {
            value: "sk-test-0123456789abcdef".into(),
            storage,
        };
        let (host, secrets) = host_on(&db, keyring.clone());
        assert!(!host.settings().unwrap().api_key.set);
        host.set_api_key(&key(p::KeyChoice::Process)).unwrap();
        assert!(host.settings().unwrap().api_key.set);
        host.delete_api_key().unwrap();
        host.set_api_key(&key(p::KeyChoice::Process)).unwrap();
        assert_eq!(
            secrets.keyring_accesses(),
            0,
            "opened with nothing kept there"
        );
        drop(host);

        // A key kept for a session is gone after a restart, and nothing was asked for it.
        let (host, secrets) = host_on(&db, keyring.clone());
        assert!(!host.settings().unwrap().api_key.set);
        assert_eq!(secrets.keyring_accesses(), 0);
        host.set_api_key(&key(p::KeyChoice::Keyring)).unwrap();
        assert!(
            secrets.keyring_accesses() >= 1,
            "the save did not reach the OS store"
        );
        drop(host);

        // Kept in the OS store: the next start reads it from there.
        let (host, secrets) = host_on(&db, keyring.clone());
        assert!(secrets.keyring_accesses() >= 1);
        let view = host.settings().unwrap();
        assert!(view.api_key.set);
        assert_eq!(view.api_key.storage, Some(p::KeyStorage::Keyring));
        // Removed, it is gone from the OS store and the next start asks nothing.
        host.delete_api_key().unwrap();
        assert!(keyring.get(MODEL_API_KEY).unwrap().is_none());
        drop(host);
        let (host, secrets) = host_on(&db, keyring);
        assert!(!host.settings().unwrap().api_key.set);
        assert_eq!(secrets.keyring_accesses(), 0);
    }

    /// A key an earlier build kept in the OS store, before its place was recorded (the store
    /// marks such a database "unknown"): the first start finds it and records the place; with
    /// none there, it records that, and later starts ask nothing.
    #[tokio::test]
    async fn a_key_kept_before_its_place_was_recorded_is_found_once_and_recorded() {
        use wisp_secrets::SecretStore;
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("wisp.db");
        let keyring = wisp_secrets::Keyring::mock();
        keyring
            .set(MODEL_API_KEY, "sk-earlier-0123456789abcdef")
            .unwrap();
        wisp_store::Store::open(&db)
            .unwrap()
            .put_setting(KEY_PLACE_NAME, KEY_PLACE_UNKNOWN)
            .unwrap();
        let (host, _) = host_on(&db, keyring.clone());
        let view = host.settings().unwrap();
        assert!(view.api_key.set, "the earlier key was not found");
        assert_eq!(view.api_key.storage, Some(p::KeyStorage::Keyring));
        drop(host);
        let store = wisp_store::Store::open(&db).unwrap();
        assert_eq!(
            store.setting(KEY_PLACE_NAME).unwrap().as_deref(),
            Some(KEY_IN_KEYRING)
        );

        // Nothing there: recorded as such, and the next start does not open the store.
        store
            .put_setting(KEY_PLACE_NAME, KEY_PLACE_UNKNOWN)
            .unwrap();
        drop(store);
        let empty = wisp_secrets::Keyring::mock();
        let (host, _) = host_on(&db, empty.clone());
        assert!(!host.settings().unwrap().api_key.set);
        drop(host);
        let (host, secrets) = host_on(&db, empty);
        assert!(!host.settings().unwrap().api_key.set);
        assert_eq!(secrets.keyring_accesses(), 0);
    }

    fn stored(provider: p::Provider, base: Option<&str>, model: &str) -> p::UpdateSettings {
        p::UpdateSettings {
            provider,
            base_url: base.map(str::to_owned),
            model: model.into(),
            thinking: p::ThinkingMode::Disabled,
            reasoning_effort: None,
            prices: None,
        }
    }

    #[test]
    fn the_environment_and_the_flag_win_over_stored_settings_and_say_so() {
        let env = EnvModel {
            base_url: Some("http://127.0.0.1:7".into()),
            model: Some("env-model".into()),
            api_key: Some("sk-env".into()),
        };
        let s = state(
            env.clone(),
            Some(stored(
                p::Provider::Deepseek,
                Some("https://stored.example"),
                "stored-model",
            )),
            false,
        );
        let (view, active) = resolve(&s);
        assert_eq!(view.base_url, "http://127.0.0.1:7");
        assert_eq!(view.sources.base_url, p::SettingSource::Env);
        assert_eq!(view.model, "env-model");
        assert_eq!(view.sources.model, p::SettingSource::Env);
        assert_eq!(view.api_key.storage, Some(p::KeyStorage::Env));
        assert_eq!(view.sources.thinking, p::SettingSource::Stored);
        assert_eq!(view.sources.provider, p::SettingSource::Stored);
        assert_eq!(active.mode, p::Mode::Live);
        assert!(active.problem.is_none());
        // No price for a model the table does not know.
        assert!(active.price.is_none());

        let pinned = state(
            env,
            Some(stored(
                p::Provider::OpenaiCompatible,
                Some("https://x.example"),
                "deepseek-v4-pro",
            )),
            true,
        );
        let (view, active) = resolve(&pinned);
        assert_eq!(view.provider, p::Provider::Simulation);
        assert_eq!(view.sources.provider, p::SettingSource::Flag);
        assert_eq!(view.base_url, "http://127.0.0.1:9");
        assert_eq!(view.model, "deepseek-v4-pro");
        assert_eq!(active.mode, p::Mode::Simulation);
        assert!(active.price.is_none(), "the simulator costs nothing");
    }

    #[test]
    fn defaults_are_deepseek_with_thinking_and_no_key() {
        let (view, active) = resolve(&state(EnvModel::default(), None, false));
        assert_eq!(view.provider, p::Provider::Deepseek);
        assert_eq!(view.base_url, wisp_model::DEFAULT_BASE_URL);
        assert_eq!(view.model, "deepseek-v4-flash");
        assert_eq!(view.thinking, p::ThinkingMode::Enabled);
        assert!(!view.api_key.set);
        assert_eq!(active.problem.unwrap().kind, p::FailureKind::MissingKey);
        assert!(active.price.is_some());
    }

    /// A session's own model keeps Settings' endpoint, key and thinking, and is priced by the
    /// same table; the simulator stays free whatever is asked of it.
    #[test]
    fn a_session_asking_for_another_model_keeps_the_endpoint_and_takes_its_price() {
        let env = EnvModel {
            api_key: Some("sk-env".into()),
            ..EnvModel::default()
        };
        let (_, active) = resolve(&state(env.clone(), None, false));
        let pro = active.asking_for("deepseek-v4-pro");
        assert_eq!(pro.run_model.name, "deepseek-v4-pro");
        assert_eq!(pro.run_model.provider, active.run_model.provider);
        assert_eq!(pro.client.as_ref().unwrap().model(), "deepseek-v4-pro");
        assert_eq!(active.client.as_ref().unwrap().model(), "deepseek-v4-flash");
        assert_eq!(
            pro.price,
            default_prices().models.get("deepseek-v4-pro").copied()
        );
        assert_ne!(pro.price, active.price);
        assert_eq!(pro.base_url, active.base_url);
        assert_eq!(pro.thinking, active.thinking);
        assert!(active.asking_for("local-llama").price.is_none());
        let (_, simulated) = resolve(&state(env, None, true));
        assert!(simulated.asking_for("deepseek-v4-pro").price.is_none());
    }

    #[test]
    fn an_openai_compatible_endpoint_without_a_base_url_is_a_problem_not_a_crash() {
        let (_, active) = resolve(&state(
            EnvModel::default(),
            Some(stored(p::Provider::OpenaiCompatible, None, "llama")),
            false,
        ));
        assert!(active.client.is_none());
        assert_eq!(active.problem.unwrap().kind, p::FailureKind::InvalidConfig);
    }

    fn tested(problem: Option<p::Problem>) -> p::ConnectionTest {
        p::ConnectionTest {
            ok: problem.is_none(),
            problem,
            models: Vec::new(),
        }
    }

    /// The Host's model problem has one place: the check's outcome is what health reports and
    /// what the model a run takes next carries.
    #[tokio::test]
    async fn a_checks_outcome_is_the_problem_health_reports_and_the_next_run_takes() {
        let host = crate::test_support::host_on(wisp_store::Store::open_in_memory().unwrap());
        assert!(host.health().problem.is_none());
        let outcome = host.test_connection().await;
        let found = outcome.problem.expect("a Host with no model has a problem");
        assert_eq!(host.health().problem.as_ref(), Some(&found));
        assert_eq!(host.inner.settings.model().problem.as_ref(), Some(&found));
        host.inner.settings.set_problem(None);
        assert!(host.health().problem.is_none());
        assert!(host.inner.settings.model().problem.is_none());
    }

    #[test]
    fn a_check_that_ends_after_a_newer_one_began_does_not_win() {
        let settings = ModelSettings::new(ActiveModel::fixed(None, p::Mode::Simulation));
        let (_, older) = settings.begin_check();
        let (_, newer) = settings.begin_check();
        settings.record_check(newer, &tested(None));
        let late = p::Failure::new(p::FailureKind::Connect, "late");
        settings.record_check(older, &tested(Some(late)));
        assert!(settings.model().problem.is_none());
    }

    /// Changes go one at a time, and reading the settings' model never waits for one.
    #[test]
    fn a_change_waits_for_the_one_under_way_and_reads_do_not() {
        let settings = ModelSettings::new(ActiveModel::fixed(None, p::Mode::Simulation));
        let turn = settings.change();
        let (began, next) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| {
                let _turn = settings.change();
                began.send(()).unwrap();
            });
            assert_eq!(settings.model().run_model.provider, p::Provider::Simulation);
            settings.set_problem(None);
            assert!(
                next.recv_timeout(std::time::Duration::from_millis(100))
                    .is_err(),
                "a second change began while the first was under way"
            );
            drop(turn);
            next.recv().unwrap();
        });
    }
}
