//! Settings → Model on the wire: `GET/PUT /api/settings`, the API key's own calls, "Test
//! connection", the problems the Host reports about the model (a stable `kind` plus
//! parameters, so the UI words them in its own language), and the price table.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Check, Problem, at_most, limits};

/// Which model service answers runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
// Read (PUT) and written (GET) alike: described inline so each side has its own.
#[schemars(inline)]
pub enum Provider {
    /// The built-in scripted simulator on loopback: no key, no cost, labelled everywhere.
    Simulation,
    /// DeepSeek's API (`thinking`, `reasoning_effort` and reasoning sent back).
    Deepseek,
    /// Any other OpenAI-compatible endpoint (Ollama, vLLM, LM Studio): standard fields only.
    OpenaiCompatible,
}

/// DeepSeek's thinking mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
// Read (PUT) and written (GET) alike: described inline so each side has its own.
#[schemars(inline)]
pub enum ThinkingMode {
    /// Reasoning before the answer (DeepSeek's default).
    Enabled,
    /// No reasoning.
    Disabled,
}

/// DeepSeek's `reasoning_effort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
// Read (PUT) and written (GET) alike: described inline so each side has its own.
#[schemars(inline)]
pub enum Effort {
    /// DeepSeek's default.
    High,
    /// The most thorough.
    Max,
}

/// Where the API key lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyStorage {
    /// The OS secret store.
    Keyring,
    /// This Host process only (gone at restart).
    Process,
    /// The `DEEPSEEK_API_KEY` environment variable.
    Env,
}

/// Where a setting's value comes from. `env` and `flag` win over `stored`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SettingSource {
    /// An environment variable (`DEEPSEEK_BASE_URL`, `DEEPSEEK_MODEL`, `DEEPSEEK_API_KEY`).
    Env,
    /// A command-line flag (`--simulate`).
    Flag,
    /// Saved in Settings.
    Stored,
    /// Wisp's default.
    Default,
}

/// The API key's state: never its value.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyState {
    /// Whether a key is set.
    pub set: bool,
    /// Where it lives, when set.
    pub storage: Option<KeyStorage>,
}

/// Prices of one model, per million tokens, in the table's currency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// Read (PUT) and written (GET) alike: described inline so each side has its own.
#[schemars(inline)]
pub struct ModelPrice {
    /// Input tokens served from the context cache.
    #[schemars(range(min = 0.0, max = limits::MAX_PRICE_PER_MTOK))]
    pub cache_hit: f64,
    /// Input tokens not in the cache.
    #[schemars(range(min = 0.0, max = limits::MAX_PRICE_PER_MTOK))]
    pub cache_miss: f64,
    /// Output tokens (reasoning included).
    #[schemars(range(min = 0.0, max = limits::MAX_PRICE_PER_MTOK))]
    pub output: f64,
}

/// The prices cost estimates use, and where they come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
// Read (PUT) and written (GET) alike: described inline so each side has its own.
#[schemars(inline)]
pub struct PriceTable {
    /// ISO 4217 code, e.g. `USD`.
    #[schemars(pattern(CURRENCY))]
    pub currency: String,
    /// Where the prices were taken from.
    #[schemars(length(max = limits::MAX_PRICE_NOTE_CHARS))]
    pub source: String,
    /// When they were taken (a date as the source gave it).
    #[schemars(length(max = limits::MAX_PRICE_NOTE_CHARS))]
    pub as_of: String,
    /// Prices by exact model name (visible ASCII, as [`UpdateSettings::model`]). A model
    /// missing here gets no estimate.
    // `length` says nothing of an object: its number of entries is `maxProperties`.
    #[schemars(extend("maxProperties" = limits::MAX_PRICED_MODELS))]
    #[schemars(extend("propertyNames" = {"minLength": 1, "maxLength": limits::MAX_MODEL_NAME_CHARS, "pattern": MODEL_NAME}))]
    pub models: BTreeMap<String, ModelPrice>,
}

/// Three capital letters.
pub const CURRENCY: &str = "^[A-Z]{3}$";

impl Check for PriceTable {
    fn check(&self) -> Result<(), String> {
        if !(self.currency.len() == 3 && self.currency.bytes().all(|b| b.is_ascii_uppercase())) {
            return Err("prices.currency: three capital letters, e.g. USD".into());
        }
        at_most("prices.source", &self.source, limits::MAX_PRICE_NOTE_CHARS)?;
        at_most("prices.asOf", &self.as_of, limits::MAX_PRICE_NOTE_CHARS)?;
        if self.models.len() > limits::MAX_PRICED_MODELS {
            return Err(format!(
                "prices.models: at most {} models",
                limits::MAX_PRICED_MODELS
            ));
        }
        for (name, p) in &self.models {
            model_name("prices.models key", name)?;
            for v in [p.cache_hit, p.cache_miss, p.output] {
                if !(0.0..=limits::MAX_PRICE_PER_MTOK).contains(&v) {
                    return Err(format!(
                        "prices.models.{name}: each price is between 0 and {}",
                        limits::MAX_PRICE_PER_MTOK
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Where each field of [`Settings`] comes from.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsSources {
    /// See [`Settings::provider`].
    pub provider: SettingSource,
    /// See [`Settings::base_url`].
    pub base_url: SettingSource,
    /// See [`Settings::model`].
    pub model: SettingSource,
    /// See [`Settings::thinking`].
    pub thinking: SettingSource,
    /// See [`Settings::reasoning_effort`].
    pub reasoning_effort: SettingSource,
    /// See [`Settings::api_key`].
    pub api_key: SettingSource,
    /// See [`Settings::prices`].
    pub prices: SettingSource,
}

/// `GET /api/settings`: the settings in effect (environment and flags applied).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Who answers runs.
    pub provider: Provider,
    /// The endpoint (for `simulation`, the simulator's loopback address).
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// Thinking mode (DeepSeek only; other endpoints are not sent it).
    pub thinking: ThinkingMode,
    /// Reasoning effort; `null`: the provider's default.
    pub reasoning_effort: Option<Effort>,
    /// Whether a key is set, and where: never the key.
    pub api_key: ApiKeyState,
    /// The prices of cost estimates.
    pub prices: PriceTable,
    /// Where each value comes from.
    pub sources: SettingsSources,
    /// Why the OS secret store cannot keep the key, when it cannot (`process` still can).
    pub keyring_problem: Option<Problem>,
}

/// `PUT /api/settings`: the stored settings (the key has its own calls). Values given by the
/// environment or a flag stay in effect over these; they are stored all the same.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateSettings {
    /// Who answers runs.
    pub provider: Provider,
    /// The endpoint: `https://…`, or `http://` to this machine only (127.0.0.1, localhost,
    /// [::1]); `null`: DeepSeek's own (required for `openai_compatible`, unused for
    /// `simulation`). Whether it answers is what `POST /api/settings/test` says.
    #[serde(default)]
    #[schemars(length(min = 1, max = limits::MAX_BASE_URL_CHARS), pattern(BASE_URL))]
    pub base_url: Option<String>,
    /// The model name, as the endpoint's `/models` lists it.
    #[schemars(length(min = 1, max = limits::MAX_MODEL_NAME_CHARS), pattern(MODEL_NAME))]
    pub model: String,
    /// Thinking mode.
    pub thinking: ThinkingMode,
    /// Reasoning effort; absent or `null`: the provider's default.
    #[serde(default)]
    pub reasoning_effort: Option<Effort>,
    /// Prices; absent or `null`: Wisp's defaults.
    #[serde(default)]
    pub prices: Option<PriceTable>,
}

/// A base URL: https anywhere, plain http only to this machine; no white space or control
/// characters.
pub const BASE_URL: &str =
    "^(?:https://|http://(?:127\\.0\\.0\\.1|localhost|\\[::1\\])(?:[:/]|$))[!-~]*$";

/// A model name: visible ASCII.
pub const MODEL_NAME: &str = "^[!-~]+$";

pub(crate) fn model_name(field: &str, v: &str) -> Result<(), String> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!("{field}: a model name of visible ASCII characters"));
    }
    at_most(field, v, limits::MAX_MODEL_NAME_CHARS)
}

/// Whether `v` is a base URL [`BASE_URL`] allows.
pub fn base_url_allowed(v: &str) -> bool {
    if !v.bytes().all(|b| b.is_ascii_graphic()) {
        return false;
    }
    if v.starts_with("https://") {
        return true;
    }
    ["http://127.0.0.1", "http://localhost", "http://[::1]"]
        .iter()
        .any(|h| {
            v.strip_prefix(h)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/']))
        })
}

impl Check for UpdateSettings {
    fn check(&self) -> Result<(), String> {
        if let Some(url) = &self.base_url {
            if url.is_empty() || !base_url_allowed(url) {
                return Err("baseUrl: https://…, or http:// to this machine only (127.0.0.1, localhost, [::1]), without spaces".into());
            }
            at_most("baseUrl", url, limits::MAX_BASE_URL_CHARS)?;
        }
        model_name("model", &self.model)?;
        match &self.prices {
            Some(p) => p.check(),
            None => Ok(()),
        }
    }
}

/// Where a key entered in the UI is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyChoice {
    /// The OS secret store (refused with `secret_store_unavailable` when there is none).
    Keyring,
    /// This Host process only.
    Process,
}

/// `PUT /api/settings/api-key`.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetApiKey {
    /// The key: visible ASCII, no spaces. It is never shown or returned again.
    #[schemars(length(min = 1, max = limits::MAX_API_KEY_CHARS), pattern(API_KEY))]
    pub value: String,
    /// Where to keep it.
    pub storage: KeyChoice,
}

impl std::fmt::Debug for SetApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetApiKey")
            .field("storage", &self.storage)
            .finish_non_exhaustive()
    }
}

/// An API key: visible ASCII.
pub const API_KEY: &str = "^[!-~]+$";

impl Check for SetApiKey {
    fn check(&self) -> Result<(), String> {
        // The message never repeats the value.
        if self.value.is_empty() || !self.value.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(
                "value: the key has visible ASCII characters only (no spaces); paste it again"
                    .into(),
            );
        }
        if self.value.len() > limits::MAX_API_KEY_CHARS {
            return Err(format!(
                "value is longer than {} characters",
                limits::MAX_API_KEY_CHARS
            ));
        }
        Ok(())
    }
}

/// `POST /api/settings/test`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionTest {
    /// Whether the endpoint answered, took the key and offers the model.
    pub ok: bool,
    /// What is wrong, when something is.
    pub problem: Option<Problem>,
    /// The models the endpoint offers (empty when it could not be asked).
    pub models: Vec<String>,
}

/// Which provider and model answered a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunModel {
    /// The provider.
    pub provider: Provider,
    /// The model name as configured.
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(base: Option<&str>, model: &str) -> UpdateSettings {
        UpdateSettings {
            provider: Provider::Deepseek,
            base_url: base.map(str::to_owned),
            model: model.into(),
            thinking: ThinkingMode::Enabled,
            reasoning_effort: None,
            prices: None,
        }
    }

    #[test]
    fn base_urls_are_https_or_loopback_http() {
        for ok in [
            "https://api.deepseek.com",
            "http://127.0.0.1:11434/v1",
            "http://localhost",
            "http://[::1]:8080",
        ] {
            assert!(update(Some(ok), "m").check().is_ok(), "{ok}");
        }
        for bad in [
            "http://example.com",
            "http://localhost.evil.com",
            "http://127.0.0.1@evil.com",
            "ftp://x",
            "https://a b",
            "",
        ] {
            assert!(update(Some(bad), "m").check().is_err(), "{bad}");
        }
        let at = format!("https://{}", "a".repeat(limits::MAX_BASE_URL_CHARS - 8));
        assert!(update(Some(&at), "m").check().is_ok());
        assert!(update(Some(&format!("{at}a")), "m").check().is_err());
    }

    #[test]
    fn model_names_and_keys_are_visible_ascii_within_their_limits() {
        assert!(update(None, "deepseek-v4-flash").check().is_ok());
        assert!(update(None, "a b").check().is_err());
        assert!(update(None, "").check().is_err());
        assert!(
            update(None, &"m".repeat(limits::MAX_MODEL_NAME_CHARS))
                .check()
                .is_ok()
        );
        assert!(
            update(None, &"m".repeat(limits::MAX_MODEL_NAME_CHARS + 1))
                .check()
                .is_err()
        );
        let key = |v: &str| SetApiKey {
            value: v.into(),
            storage: KeyChoice::Process,
        };
        assert!(key("sk-abc").check().is_ok());
        let e = key("sk-secret with space").check().unwrap_err();
        assert!(!e.contains("sk-secret"));
        assert!(key(&"k".repeat(limits::MAX_API_KEY_CHARS)).check().is_ok());
        assert!(
            key(&"k".repeat(limits::MAX_API_KEY_CHARS + 1))
                .check()
                .is_err()
        );
        assert!(!format!("{:?}", key("sk-secret-9")).contains("sk-secret"));
    }

    #[test]
    fn prices_are_bounded() {
        let mut t = PriceTable {
            currency: "USD".into(),
            source: "s".into(),
            as_of: "2026-06-28".into(),
            models: BTreeMap::new(),
        };
        let price = |v: f64| ModelPrice {
            cache_hit: v,
            cache_miss: v,
            output: v,
        };
        t.models
            .insert("m".into(), price(limits::MAX_PRICE_PER_MTOK));
        assert!(t.check().is_ok());
        t.models.insert("m".into(), price(-0.1));
        assert!(t.check().is_err());
        t.models.insert("m".into(), price(f64::NAN));
        assert!(t.check().is_err());
        t.models.clear();
        t.currency = "usd".into();
        assert!(t.check().is_err());
    }
}

/// Settings → Skills (`GET /api/skills`): the person's skills as the next run would find
/// them, the ones not used and why, and the switch of the managed skill-script mode.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SkillsView {
    /// Whether `skills_run_script` is offered to runs (off unless the person turned it on):
    /// each script run still waits for the person's approval of its card.
    pub scripts_allowed: bool,
    /// The names of the person's skills turned off: listed, but in no run's catalogue.
    pub off: Vec<String>,
    /// The folders skills are read from, in order.
    pub folders: Vec<String>,
    /// The skills a run is told of, by name.
    pub skills: Vec<SkillEntry>,
    /// Skill folders that break the format's rules, with the reason; never half-loaded.
    pub invalid: Vec<InvalidSkill>,
    /// What the reading noticed beyond single skills (a folder over its limit, say).
    pub notes: Vec<String>,
    /// Each authorized project's own skills (`.agents/skills`, `.claude/skills`): they came
    /// with the project, so a run uses one only while the person trusts exactly its contents.
    pub projects: Vec<ProjectSkills>,
    /// Claude's personal skills folder (`~/.claude/skills`), offered as an import.
    pub import_from: Option<String>,
    /// Its valid skills whose names the person's skills do not use yet.
    pub importable: Vec<SkillEntry>,
}

/// `POST /api/skills/import`: copy skills of Claude's personal folder into Wisp's own skills
/// folder, each as it was shown (its digest).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportSkills {
    /// The skills, by name and the digest shown.
    #[schemars(length(min = 1, max = 100))]
    pub skills: Vec<SkillToImport>,
}

/// One skill to import.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillToImport {
    /// Its name.
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
    /// The digest shown: a skill whose contents differ now is not imported.
    #[schemars(length(min = 64, max = 64), pattern(r"^[0-9a-f]{64}$"))]
    pub digest: String,
}

impl Check for ImportSkills {
    fn check(&self) -> Result<(), String> {
        if self.skills.is_empty() || self.skills.len() > 100 {
            return Err("skills: 1 to 100 skills".into());
        }
        for (i, s) in self.skills.iter().enumerate() {
            if s.name.is_empty() || s.name.chars().count() > 64 {
                return Err(format!("skills[{i}].name: 1 to 64 characters"));
            }
            if !is_digest(&s.digest) {
                return Err(format!(
                    "skills[{i}].digest: 64 lowercase hexadecimal characters"
                ));
            }
        }
        Ok(())
    }
}

/// Whether `text` is a SHA-256 in lowercase hex.
fn is_digest(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// One project's own skills.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSkills {
    /// The project.
    pub project_id: String,
    /// Its folder.
    pub root: String,
    /// Its valid skills, trusted or not.
    pub skills: Vec<ProjectSkill>,
    /// Its skill folders that break the format's rules, with the reason.
    pub invalid: Vec<InvalidSkill>,
}

/// A project's skill and whether the person trusts it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSkill {
    /// Its name.
    pub name: String,
    /// What it is for, as its `SKILL.md` says.
    pub description: String,
    /// Its folder.
    pub folder: String,
    /// SHA-256 (hex) over the whole folder: what a trust binds.
    pub digest: String,
    /// Files in the folder.
    pub files: u64,
    /// Whether runs use it.
    pub trust: SkillTrust,
    /// With `changed`: what differs from the contents the person trusted (`added PATH`,
    /// `removed PATH`, `changed PATH`).
    pub changes: Vec<String>,
}

/// Whether the person trusts a project's skill.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SkillTrust {
    /// Never trusted: not used.
    Untrusted,
    /// Trusted as it is now: used.
    Trusted,
    /// Trusted, then changed: not used until trusted again.
    Changed,
}

/// `PUT /api/skills/trust`: trust a project's skill as it was shown (its digest), or take the
/// trust back.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrustSkill {
    /// The project.
    #[schemars(length(min = 1, max = 200))]
    pub project_id: String,
    /// The skill's name.
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
    /// The digest the person was shown; trusting a skill whose contents differ now is refused.
    #[schemars(length(min = 64, max = 64), pattern(r"^[0-9a-f]{64}$"))]
    pub digest: String,
    /// `true` to trust, `false` to take the trust back.
    pub trusted: bool,
}

impl Check for TrustSkill {
    fn check(&self) -> Result<(), String> {
        if self.project_id.is_empty() || self.project_id.chars().count() > 200 {
            return Err("projectId: 1 to 200 characters".into());
        }
        if self.name.is_empty() || self.name.chars().count() > 64 {
            return Err("name: 1 to 64 characters".into());
        }
        if !is_digest(&self.digest) {
            return Err("digest: 64 lowercase hexadecimal characters".into());
        }
        Ok(())
    }
}

/// One usable skill.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SkillEntry {
    /// Its name (equal to its folder's name).
    pub name: String,
    /// What it is for, as its `SKILL.md` says.
    pub description: String,
    /// Its folder.
    pub folder: String,
    /// SHA-256 (hex) over the whole folder: names, kinds and contents.
    pub digest: String,
    /// Files in the folder.
    pub files: u64,
}

/// A skill folder that is not used, and why.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InvalidSkill {
    /// The folder.
    pub folder: String,
    /// What rule it breaks.
    pub reason: String,
}

/// `PUT /api/skills`: the switch of the managed skill-script mode.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateSkills {
    /// Offer `skills_run_script` to runs that start from now on.
    pub scripts_allowed: bool,
}

/// `PUT /api/skills/enabled`: turn one of the person's skills on or off for runs that start
/// from now on. (A project's skill is used only while trusted: `PUT /api/skills/trust`.)
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnableSkill {
    /// The skill's name.
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
    /// `false` to turn it off, `true` to use it again.
    pub enabled: bool,
}

impl Check for EnableSkill {
    fn check(&self) -> Result<(), String> {
        if self.name.is_empty() || self.name.chars().count() > 64 {
            return Err("name: 1 to 64 characters".into());
        }
        Ok(())
    }
}

impl Check for UpdateSkills {
    fn check(&self) -> Result<(), String> {
        // A boolean has no rule beyond its type.
        Ok(())
    }
}
