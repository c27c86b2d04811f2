//! The wire types of local MCP servers: `GET/POST /api/mcp/servers`,
//! `PUT/DELETE /api/mcp/servers/{id}`, `…/activate`, `…/disable`, `…/refresh` and
//! `GET/POST /api/mcp/import`. No type here ever carries a secret value out: variables go in
//! with their values and come back as names with a storage mode only.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Check, limits};

/// IDs of MCP servers: a version-4 UUID in lowercase hex.
pub const MCP_SERVER_ID: &str =
    "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$";

/// An environment variable name: a letter or `_`, then letters, digits or `_`.
pub const ENV_NAME: &str = "^[A-Za-z_][A-Za-z0-9_]*$";

/// A server's command: an absolute path without NUL, or a program name without NUL or white
/// space (Unicode `White_Space`, what Rust's `char::is_whitespace` matches): not shell text.
pub const MCP_COMMAND: &str = "^(/[^\\u0000]*|[^\\u0000\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+)$";

/// Text without NUL (an argument, a value).
pub const NO_NUL: &str = "^[^\\u0000]*$";

/// An absolute path without NUL.
pub const MCP_CWD: &str = "^/[^\\u0000]*$";

/// Where a variable's value is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum McpStorage {
    /// The OS secret store, bound to the server's command, arguments and working directory
    /// (refused with `secret_store_unavailable` when there is none: choose `session`).
    Keyring,
    /// This Host process only: entered again after a restart.
    Session,
}

/// Where to keep a variable's value, as asked for (the same values as [`McpStorage`]; a type
/// of its own because the API document describes what it reads apart from what it writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum McpStorageChoice {
    /// The OS secret store, bound to the server's command, arguments and working directory
    /// (refused with `secret_store_unavailable` when there is none: choose `session`).
    Keyring,
    /// This Host process only: entered again after a restart.
    Session,
}

/// A variable a server gets, as shown: its name and storage, never its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpEnvVar {
    /// The variable's name.
    pub name: String,
    /// Where its value is kept.
    pub storage: McpStorage,
}

/// A variable with its value, as entered.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpEnvValue {
    /// The variable's name.
    #[schemars(length(min = 1, max = limits::MAX_MCP_ENV_NAME_CHARS), pattern(ENV_NAME))]
    pub name: String,
    /// Its value: kept where `storage` says, never shown or returned again.
    #[schemars(length(max = limits::MAX_MCP_ENV_VALUE_CHARS), pattern(NO_NUL))]
    pub value: String,
    /// Where to keep it.
    pub storage: McpStorageChoice,
}

impl std::fmt::Debug for McpEnvValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpEnvValue")
            .field("name", &self.name)
            .field("storage", &self.storage)
            .finish_non_exhaustive()
    }
}

/// The state of a configured server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpStatus {
    /// Not running (every server after a restart, a new or an edited one).
    Disabled,
    /// Trusted and being started: spawn, handshake, discovery.
    Starting,
    /// Running; its tools count from the next user message.
    Active,
    /// The last activation or the connection failed; `error` says why.
    Failed,
}

/// A tool of an active server, for the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpToolSummary {
    /// The name the model sees (stable: the server's id and a digest of the original name).
    pub model_name: String,
    /// The server's own name for the tool.
    pub original_name: String,
    /// The server's description (untrusted text).
    pub description: String,
}

/// A configured local MCP server (`GET /api/mcp/servers`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    /// Its UUID.
    pub id: String,
    /// The person's name for it.
    pub name: String,
    /// The program: an absolute path, or a name looked up on PATH at activation.
    pub command: String,
    /// The argument array, passed one by one (never through a shell).
    pub args: Vec<String>,
    /// The absolute working directory (not a sandbox), or `null` for the Host's.
    pub cwd: Option<String>,
    /// Its variables: names and storage modes, never values.
    pub env: Vec<McpEnvVar>,
    /// Whether it runs now.
    pub enabled: bool,
    /// Its state.
    pub status: McpStatus,
    /// Why it failed, when it did (no secret value ever appears here).
    pub error: Option<String>,
    /// Its tools while active.
    pub tools: Vec<McpToolSummary>,
    /// Tools it lists that Wisp cannot call (never offered to the model), with why.
    #[serde(default)]
    pub unsupported_tools: Vec<McpUnsupportedTool>,
    /// The MCP protocol revision it speaks, while active.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// How long one call may run while the server keeps reporting progress, in seconds.
    pub call_limit_secs: u64,
}

/// A tool a server lists that cannot be called here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpUnsupportedTool {
    /// The server's own name for it.
    pub original_name: String,
    /// The server's description (untrusted text).
    pub description: String,
    /// Why it is not offered.
    pub reason: String,
}

/// `POST /api/mcp/servers` and `PUT /api/mcp/servers/{id}`: the server arrives disabled. A
/// variable named twice conflicts (409), as no schema can say so.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerDraft {
    /// A name for it.
    #[schemars(length(min = 1, max = limits::MAX_MCP_NAME_CHARS), pattern(crate::HAS_VISIBLE_CHAR))]
    pub name: String,
    /// The program: an absolute path (recommended), or a name looked up on PATH. Not shell
    /// text: a relative name must not contain white space.
    #[schemars(length(min = 1, max = limits::MAX_MCP_PATH_CHARS), pattern(MCP_COMMAND))]
    pub command: String,
    /// The argument array.
    #[schemars(length(max = limits::MAX_MCP_ARGS), inner(length(max = limits::MAX_MCP_PATH_CHARS), pattern(NO_NUL)))]
    pub args: Vec<String>,
    /// An absolute working directory (not a sandbox).
    #[serde(default)]
    #[schemars(length(min = 1, max = limits::MAX_MCP_PATH_CHARS), pattern(MCP_CWD))]
    pub cwd: Option<String>,
    /// The variables with their values. On `PUT`: given (even empty), they replace the whole
    /// set; left out, the stored values stay only while command, arguments and directory are
    /// unchanged (a changed command never carries old secrets over).
    #[serde(default)]
    #[schemars(length(max = limits::MAX_MCP_ENV_VARS))]
    pub env: Option<Vec<McpEnvValue>>,
    /// How long one call may run while the server keeps reporting progress, in seconds (1 to
    /// 3600); absent or `null`: 300. Without progress a call still ends after 10 s of silence.
    #[serde(default, deserialize_with = "whole_seconds")]
    #[schemars(range(min = 1, max = limits::MAX_MCP_CALL_LIMIT_SECS))]
    pub call_limit_secs: Option<u64>,
}

/// A JSON integer as JSON Schema counts one: `278.0` is `278` (a schema-valid body is not
/// refused for its spelling); a fraction or a negative number is not. The range is
/// [`McpServerDraft::check`]'s.
fn whole_seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let Some(n) = Option::<f64>::deserialize(d)? else {
        return Ok(None);
    };
    // Up to 2^53 every whole f64 is exact, and far past the limit the check refuses.
    if n.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&n) {
        Ok(Some(n as u64))
    } else {
        Err(serde::de::Error::custom(format!(
            "callLimitSecs: a whole number of seconds, 1 to {}",
            limits::MAX_MCP_CALL_LIMIT_SECS
        )))
    }
}

impl Check for McpServerDraft {
    fn check(&self) -> Result<(), String> {
        let name = self.name.trim();
        if name.is_empty() || self.name.chars().count() > limits::MAX_MCP_NAME_CHARS {
            return Err(format!(
                "name: 1 to {} characters, not only white space",
                limits::MAX_MCP_NAME_CHARS
            ));
        }
        let command = self.command.as_str();
        if command.is_empty()
            || command.contains('\0')
            || command.chars().count() > limits::MAX_MCP_PATH_CHARS
        {
            return Err(format!(
                "command: a program path or name of 1 to {} characters, without NUL",
                limits::MAX_MCP_PATH_CHARS
            ));
        }
        if !command.starts_with('/') && command.contains(char::is_whitespace) {
            return Err(format!(
                "command: {command:?} contains white space: it is a program, not shell text; put each argument in args"
            ));
        }
        if let Some(secs) = self.call_limit_secs
            && !(1..=limits::MAX_MCP_CALL_LIMIT_SECS).contains(&secs)
        {
            return Err(format!(
                "callLimitSecs: 1 to {} seconds",
                limits::MAX_MCP_CALL_LIMIT_SECS
            ));
        }
        if self.args.len() > limits::MAX_MCP_ARGS {
            return Err(format!("args: at most {} arguments", limits::MAX_MCP_ARGS));
        }
        if self
            .args
            .iter()
            .any(|a| a.contains('\0') || a.chars().count() > limits::MAX_MCP_PATH_CHARS)
        {
            return Err(format!(
                "args: each argument has at most {} characters and no NUL",
                limits::MAX_MCP_PATH_CHARS
            ));
        }
        if let Some(cwd) = &self.cwd
            && (!cwd.starts_with('/')
                || cwd.contains('\0')
                || cwd.chars().count() > limits::MAX_MCP_PATH_CHARS)
        {
            return Err("cwd: an absolute path (starting with /) without NUL".into());
        }
        check_env(self.env.as_deref().unwrap_or_default())
    }
}

fn check_env(env: &[McpEnvValue]) -> Result<(), String> {
    if env.len() > limits::MAX_MCP_ENV_VARS {
        return Err(format!(
            "env: at most {} variables",
            limits::MAX_MCP_ENV_VARS
        ));
    }
    for var in env {
        let valid = var
            .name
            .chars()
            .enumerate()
            .all(|(j, c)| c == '_' || c.is_ascii_alphabetic() || (j > 0 && c.is_ascii_digit()));
        if var.name.is_empty() || !valid || var.name.len() > limits::MAX_MCP_ENV_NAME_CHARS {
            return Err(format!(
                "env: {:?} is not a variable name (a letter or _, then letters, digits or _)",
                var.name
            ));
        }
        // The message never repeats the value.
        if var.value.contains('\0') || var.value.chars().count() > limits::MAX_MCP_ENV_VALUE_CHARS {
            return Err(format!(
                "env: the value of {} has more than {} characters or a NUL",
                var.name,
                limits::MAX_MCP_ENV_VALUE_CHARS
            ));
        }
    }
    Ok(())
}

/// Which other host's config a proposal comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpImportSource {
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Cursor's `~/.cursor/mcp.json`.
    Cursor,
    /// The default project's `.vscode/mcp.json`.
    VsCode,
}

/// A server found in another host's config (`GET /api/mcp/import`). Its variables' values
/// stay in that file until the person imports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpImportProposal {
    /// Names this proposal in `POST /api/mcp/import` (a digest of where it was found).
    pub id: String,
    /// The host it comes from.
    pub source: McpImportSource,
    /// The file it was found in.
    pub file: String,
    /// Its name there.
    pub name: String,
    /// Its command.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory.
    pub cwd: Option<String>,
    /// The names of its variables (their values are not shown).
    pub env: Vec<String>,
    /// Why it cannot be imported (a remote server, …), when so.
    pub unsupported: Option<String>,
}

/// `GET /api/mcp/import`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpImportList {
    /// What was found.
    pub proposals: Vec<McpImportProposal>,
    /// Files that exist but could not be read or parsed.
    pub errors: Vec<String>,
}

/// `POST /api/mcp/import`: which proposals to add (disabled), and where their variables'
/// values go.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpImport {
    /// Proposal ids from `GET /api/mcp/import`.
    #[schemars(length(min = 1, max = limits::MAX_MCP_IMPORTS), inner(length(min = 1, max = 64), pattern("^[0-9a-f]{1,64}$")))]
    pub ids: Vec<String>,
    /// Where the variables' values go; required when an imported server has variables.
    #[serde(default)]
    pub env_storage: Option<McpStorageChoice>,
}

impl Check for McpImport {
    fn check(&self) -> Result<(), String> {
        if self.ids.is_empty() || self.ids.len() > limits::MAX_MCP_IMPORTS {
            return Err(format!(
                "ids: 1 to {} proposal ids",
                limits::MAX_MCP_IMPORTS
            ));
        }
        if self.ids.iter().any(|i| {
            i.is_empty()
                || i.len() > 64
                || !i
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        }) {
            return Err("ids: each id is lowercase hex from GET /api/mcp/import".into());
        }
        Ok(())
    }
}

/// Where an MCP tool of a run's snapshot comes from, for the person (the UI shows these
/// instead of the model-facing name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpToolOrigin {
    /// The server's id.
    pub server_id: String,
    /// The server's name.
    pub server_name: String,
    /// The server's own name for the tool.
    pub original_name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(command: &str, cwd: Option<&str>) -> McpServerDraft {
        McpServerDraft {
            call_limit_secs: None,
            name: "s".into(),
            command: command.into(),
            args: vec![],
            cwd: cwd.map(Into::into),
            env: Some(vec![McpEnvValue {
                name: "API_KEY".into(),
                value: "sk-secret-value".into(),
                storage: McpStorageChoice::Session,
            }]),
        }
    }

    #[test]
    fn a_call_limit_is_a_whole_number_however_spelled() {
        let parse = |limit: &str| {
            serde_json::from_str::<McpServerDraft>(&format!(
                r#"{{"name": "s", "command": "node", "args": [], "callLimitSecs": {limit}}}"#
            ))
            .map(|d| d.call_limit_secs)
            .map_err(|e| e.to_string())
        };
        assert_eq!(parse("278"), Ok(Some(278)));
        assert_eq!(parse("278.0"), Ok(Some(278)));
        assert_eq!(parse("null"), Ok(None));
        for bad in ["278.5", "-1", "1e300"] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("callLimitSecs: a whole number"), "{bad}: {e}");
        }
        let absent: McpServerDraft =
            serde_json::from_str(r#"{"name": "s", "command": "node", "args": []}"#).unwrap();
        assert_eq!(absent.call_limit_secs, None);
    }

    #[test]
    fn drafts_are_programs_not_shell_text_and_errors_never_repeat_values() {
        assert!(draft("node", None).check().is_ok());
        assert!(
            draft("/opt/My Server/bin/run", Some("/tmp"))
                .check()
                .is_ok()
        );
        let e = draft("npx -y pkg", None).check().unwrap_err();
        assert!(e.contains("not shell text"), "{e}");
        assert!(draft("node\u{85}x", None).check().is_err());
        assert!(draft("node", Some("tmp")).check().is_err());
        let mut bad = draft("node", None);
        bad.env.as_mut().unwrap()[0].name = "1X".into();
        assert!(bad.check().unwrap_err().contains("1X"));
        let mut long = draft("node", None);
        long.env.as_mut().unwrap()[0].value = format!("sk-secret-value{}", "x".repeat(9000));
        assert!(!long.check().unwrap_err().contains("sk-secret"));
    }
}
