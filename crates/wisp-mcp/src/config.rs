//! `mcp-servers.json` in the data dir (MCP-16): name, command, argument array, working
//! directory and the *names* of environment variables with their storage mode — never a value.
//! Written atomically with mode 0600 (on Windows, the data dir's own permissions). New and edited servers are disabled (MCP-05), and every
//! server is disabled when the file is loaded, so a restart starts nothing.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::McpError;
use crate::limits::{MAX_ARGS, MAX_CONFIG_FILE_BYTES, MAX_ENV_VARS, MAX_NAME_CHARS, MAX_SERVERS};

/// The file name in the data dir.
pub const FILE_NAME: &str = "mcp-servers.json";

/// Where a variable's value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    /// The OS secret store, bound to the server's command, arguments and directory.
    Keyring,
    /// Only this Host process; entered again after a restart (MCP-19).
    Session,
}

/// A variable the server gets: its name and where its value is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvVar {
    /// The variable's name.
    pub name: String,
    /// Where its value lives.
    pub storage: Storage,
}

/// One configured server, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// A UUID, made once when the server is added.
    pub id: String,
    /// The person's name for it.
    pub name: String,
    /// An absolute path, or a bare name looked up on PATH at activation.
    pub command: String,
    /// The argument array.
    pub args: Vec<String>,
    /// An absolute working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Its variables' names and storage modes.
    #[serde(default)]
    pub env: Vec<EnvVar>,
    /// Whether it is active; always false on disk after a load.
    #[serde(default)]
    pub enabled: bool,
    /// How long one call may run while it reports progress, in seconds; `None`: the default
    /// ([`crate::limits::DEFAULT_CALL_LIMIT`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_limit_secs: Option<u64>,
}

impl ServerConfig {
    /// The call limit this server's calls get.
    pub fn call_limit(&self) -> std::time::Duration {
        self.call_limit_secs
            .map(std::time::Duration::from_secs)
            .unwrap_or(crate::limits::DEFAULT_CALL_LIMIT)
    }
}

/// What a person enters to add or edit a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDraft {
    /// Name.
    pub name: String,
    /// Command.
    pub command: String,
    /// Argument array.
    pub args: Vec<String>,
    /// Optional absolute working directory.
    pub cwd: Option<String>,
    /// Variable names and storage modes (the values go to the secret store separately).
    pub env: Vec<EnvVar>,
    /// Call limit in seconds (1 to [`crate::limits::MAX_CALL_LIMIT_SECS`]); `None`: default.
    pub call_limit_secs: Option<u64>,
}

/// A fresh random UUID (version 4), for a new server.
pub fn new_id() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No OS randomness is a broken machine; a time-based id still keeps servers apart.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        b = nanos.to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Checks a draft; the error names the field and what is wrong.
pub fn validate_draft(draft: &ServerDraft) -> Result<(), McpError> {
    let bad = |m: String| Err(McpError::Config(m));
    let name = draft.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return bad(format!(
            "the name must have 1 to {MAX_NAME_CHARS} characters"
        ));
    }
    if draft.command.trim().is_empty() {
        return bad("the command is empty".into());
    }
    if draft.command.contains(char::is_whitespace) && !Path::new(&draft.command).is_absolute() {
        return bad(format!(
            "the command {:?} contains spaces: it is a program, not shell text; put each \
             argument in the argument array",
            draft.command
        ));
    }
    if draft.args.len() > MAX_ARGS {
        return bad(format!("at most {MAX_ARGS} arguments"));
    }
    if let Some(cwd) = &draft.cwd
        && !Path::new(cwd).is_absolute()
    {
        return bad(format!(
            "the working directory {cwd:?} is not an absolute path"
        ));
    }
    if let Some(secs) = draft.call_limit_secs
        && !(1..=crate::limits::MAX_CALL_LIMIT_SECS).contains(&secs)
    {
        return bad(format!(
            "the call limit must be 1 to {} seconds",
            crate::limits::MAX_CALL_LIMIT_SECS
        ));
    }
    if draft.env.len() > MAX_ENV_VARS {
        return bad(format!("at most {MAX_ENV_VARS} environment variables"));
    }
    for (i, var) in draft.env.iter().enumerate() {
        let valid = var
            .name
            .chars()
            .enumerate()
            .all(|(j, c)| c == '_' || c.is_ascii_alphabetic() || (j > 0 && c.is_ascii_digit()));
        if var.name.is_empty() || !valid {
            return bad(format!(
                "{:?} is not a valid environment variable name",
                var.name
            ));
        }
        if draft.env[..i].iter().any(|v| v.name == var.name) {
            return bad(format!("the variable {} is listed twice", var.name));
        }
    }
    Ok(())
}

/// A new server from a draft: a new id, disabled (MCP-05).
pub fn new_server(draft: ServerDraft) -> Result<ServerConfig, McpError> {
    edited(new_id(), draft)
}

/// An edited server keeps its id and is disabled (MCP-05); the caller stops its connection.
pub fn edited(id: String, draft: ServerDraft) -> Result<ServerConfig, McpError> {
    validate_draft(&draft)?;
    Ok(ServerConfig {
        id,
        name: draft.name.trim().to_owned(),
        command: draft.command,
        args: draft.args,
        cwd: draft.cwd,
        env: draft.env,
        enabled: false,
        call_limit_secs: draft.call_limit_secs,
    })
}

/// The config file of one data dir.
#[derive(Debug, Clone)]
pub struct ConfigStore {
    path: PathBuf,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    servers: Vec<ServerConfig>,
}

impl ConfigStore {
    /// The store at `<data_dir>/mcp-servers.json`.
    pub fn new(data_dir: &Path) -> Self {
        ConfigStore {
            path: data_dir.join(FILE_NAME),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Loads the servers, every one disabled. No file: none.
    pub fn load(&self) -> Result<Vec<ServerConfig>, McpError> {
        let err = |e: std::io::Error| {
            McpError::Storage(format!("could not read {}: {e}", self.path.display()))
        };
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(err(e)),
        };
        if meta.len() > MAX_CONFIG_FILE_BYTES as u64 {
            return Err(McpError::Storage(format!(
                "{} has {} bytes; the limit is {MAX_CONFIG_FILE_BYTES}",
                self.path.display(),
                meta.len()
            )));
        }
        let text = std::fs::read(&self.path).map_err(err)?;
        let file: File = serde_json::from_slice(&text).map_err(|e| {
            McpError::Storage(format!(
                "{} is not a valid server list: {e}",
                self.path.display()
            ))
        })?;
        let mut servers = file.servers;
        for s in &mut servers {
            s.enabled = false;
        }
        Ok(servers)
    }

    /// Writes the servers: a temporary file with mode 0600, synced, renamed over the old one.
    pub fn save(&self, servers: &[ServerConfig]) -> Result<(), McpError> {
        if servers.len() > MAX_SERVERS {
            return Err(McpError::Limit(format!(
                "at most {MAX_SERVERS} servers can be configured"
            )));
        }
        let file = File {
            version: 1,
            servers: servers.to_vec(),
        };
        let text = serde_json::to_vec_pretty(&file)
            .map_err(|e| McpError::Storage(format!("could not encode the server list: {e}")))?;
        let tmp = self.path.with_extension("json.tmp");
        let err = |e: std::io::Error| {
            McpError::Storage(format!("could not write {}: {e}", self.path.display()))
        };
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        // On Windows the data dir (under %APPDATA%) is the user's alone by its permissions.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut out = options.open(&tmp).map_err(err)?;
        out.write_all(&text).map_err(err)?;
        out.sync_all().map_err(err)?;
        drop(out);
        std::fs::rename(&tmp, &self.path).map_err(err)?;
        if let Some(dir) = self.path.parent()
            && let Ok(d) = std::fs::File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An absolute path on the platform the test runs on (a drive on Windows).
    fn absolute(unix: &str) -> String {
        if cfg!(windows) {
            format!("C:{}", unix.replace('/', "\\"))
        } else {
            unix.to_owned()
        }
    }

    fn draft() -> ServerDraft {
        ServerDraft {
            call_limit_secs: None,
            name: "files".into(),
            command: absolute("/usr/bin/node"),
            args: vec![absolute("/srv/server.js")],
            cwd: Some(absolute("/srv")),
            env: vec![EnvVar {
                name: "API_TOKEN".into(),
                storage: Storage::Keyring,
            }],
        }
    }

    #[test]
    fn mcp_05_mcp_16_saved_without_values_0600_and_disabled_after_load() {
        let dir = tempfile::tempdir().unwrap();
        let store = ConfigStore::new(dir.path());
        assert!(store.load().unwrap().is_empty());
        let mut s = new_server(draft()).unwrap();
        assert!(!s.enabled);
        s.enabled = true;
        store.save(&[s.clone()]).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert!(text.contains("\"API_TOKEN\"") && text.contains("\"keyring\""));
        let loaded = store.load().unwrap();
        assert_eq!(loaded.len(), 1);
        assert!(!loaded[0].enabled, "a restart starts nothing");
        assert_eq!(loaded[0].id, s.id);
        let e = edited(s.id.clone(), draft()).unwrap();
        assert!(!e.enabled && e.id == s.id);
        assert!(!dir.path().join("mcp-servers.json.tmp").exists());
    }

    #[test]
    fn a_call_limit_is_kept_in_the_file_within_its_bounds_and_defaults_to_five_minutes() {
        let dir = tempfile::tempdir().unwrap();
        let store = ConfigStore::new(dir.path());
        let plain = new_server(draft()).unwrap();
        assert_eq!(plain.call_limit(), crate::limits::DEFAULT_CALL_LIMIT);
        let slow = new_server(ServerDraft {
            call_limit_secs: Some(900),
            ..draft()
        })
        .unwrap();
        store.save(&[plain, slow]).unwrap();
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert_eq!(text.matches("call_limit_secs").count(), 1, "{text}");
        let loaded = store.load().unwrap();
        assert_eq!(loaded[0].call_limit_secs, None);
        assert_eq!(loaded[1].call_limit(), std::time::Duration::from_secs(900));
        for bad in [0, crate::limits::MAX_CALL_LIMIT_SECS + 1] {
            let e = new_server(ServerDraft {
                call_limit_secs: Some(bad),
                ..draft()
            })
            .unwrap_err();
            assert!(
                e.to_string().contains("call limit must be 1 to 3600"),
                "{e}"
            );
        }
    }

    #[test]
    fn bad_drafts_and_files_are_refused() {
        for (change, needle) in [
            (
                Box::new(|d: &mut ServerDraft| d.name = " ".into())
                    as Box<dyn Fn(&mut ServerDraft)>,
                "name",
            ),
            (
                Box::new(|d: &mut ServerDraft| d.command = "npx -y server".into()),
                "not shell text",
            ),
            (
                Box::new(|d: &mut ServerDraft| d.cwd = Some("rel".into())),
                "absolute",
            ),
            (
                Box::new(|d: &mut ServerDraft| d.env[0].name = "1X".into()),
                "not a valid",
            ),
            (
                Box::new(|d: &mut ServerDraft| d.env.push(d.env[0].clone())),
                "twice",
            ),
        ] {
            let mut d = draft();
            change(&mut d);
            let err = new_server(d).unwrap_err().to_string();
            assert!(err.contains(needle), "{err} should say {needle}");
        }
        let dir = tempfile::tempdir().unwrap();
        let store = ConfigStore::new(dir.path());
        std::fs::write(store.path(), r#"{"version":1,"servers":[{"id":"x","name":"n","command":"c","args":[],"env":[{"name":"A","storage":"keyring","value":"secret"}]}]}"#).unwrap();
        assert!(
            store
                .load()
                .unwrap_err()
                .to_string()
                .contains("not a valid server list")
        );
        let many: Vec<ServerConfig> = (0..=MAX_SERVERS)
            .map(|_| new_server(draft()).unwrap())
            .collect();
        assert!(store.save(&many).is_err());
        assert!(store.save(&many[..MAX_SERVERS]).is_ok());
    }

    #[test]
    fn ids_are_v4_uuids_and_differ() {
        let a = new_id();
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert_ne!(a, new_id());
    }
}
