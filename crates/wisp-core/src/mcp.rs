//! Local MCP servers in the Host: the configured servers of `mcp-servers.json`, their
//! secrets in `wisp-secrets`, activation through `wisp-mcp`'s [`wisp_mcp::Manager`], and the
//! bindings an MCP approval holds.
//!
//! - Every server is disabled at start, and a new or edited one is disabled (MCP-05); only
//!   [`McpHost::activate`] starts a process.
//! - A server's variables live in the secret store as `mcp/<server-id>/<VAR>` (OS keyring or
//!   this process only, MCP-17, MCP-19), each value prefixed with a digest of the command,
//!   arguments and directory it was entered for: a value never follows a changed command
//!   (MCP-20). Values never reach events, logs, answers, the database or the model (MCP-22).
//! - A [`Binding`] is a server's connection (its activation epoch) and tool-list version. An
//!   approval holds one: edit, disable, delete, a disconnect or a list change break it
//!   (MCP-11), and disabling cancels the runs using the server (MCP-12).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use wisp_mcp::config::{ConfigStore, EnvVar, ServerConfig, ServerDraft, Storage as ConfigStorage};
use wisp_mcp::{Connection, McpError, ServerSpec};
use wisp_protocol as p;
use wisp_secrets::{SecretError, Secrets, Storage as SecretStorage};

use crate::runs::Runs;
use crate::tool::ToolRef;
use crate::{CoreError, CoreErrorKind, fail, lock};

/// What an approval of an MCP call is bound to (MCP-11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    /// The server.
    pub(crate) server_id: String,
    /// Its activation: a new one (after disable, edit or re-activation) is another connection.
    pub(crate) epoch: u64,
    /// The tool-list version on that connection.
    pub(crate) version: u64,
}

/// Where the servers and their secrets live (set by [`McpHost::configure`]).
struct Setup {
    store: ConfigStore,
    secrets: Arc<Secrets>,
    /// The data dir, for `mcp-installs/` (INST-11).
    data_dir: PathBuf,
}

struct Entry {
    config: ServerConfig,
    status: p::McpStatus,
    error: Option<String>,
    /// Bumped by every activation, edit, disable and delete.
    epoch: u64,
    connection: Option<Connection>,
}

/// The Host's MCP subsystem: the configured servers, their connections and which runs use
/// them. What it needs of other subsystems is passed in: the runs to cancel when a server
/// stops, the default project whose config an import scan reads.
#[derive(Default)]
pub(crate) struct McpHost {
    manager: wisp_mcp::Manager,
    setup: OnceLock<Setup>,
    servers: Mutex<Vec<Entry>>,
    /// Changes to the server list, one at a time (the file is rewritten whole).
    edits: tokio::sync::Mutex<()>,
    /// Runs with an MCP call waiting for approval or running: (run id, server id).
    in_use: Mutex<Vec<(String, String)>>,
}

impl McpHost {
    fn setup(&self) -> Result<&Setup, CoreError> {
        self.setup.get().ok_or_else(|| {
            fail(
                CoreErrorKind::Internal,
                "local MCP servers are not available in this Host",
            )
        })
    }

    /// The connection `binding` names, while the binding holds; else why not.
    pub(crate) fn check(&self, binding: &Binding) -> Result<Connection, String> {
        let servers = lock(&self.servers);
        let Some(entry) = servers.iter().find(|e| e.config.id == binding.server_id) else {
            return Err("the MCP server was deleted".into());
        };
        let connection = match &entry.connection {
            Some(c) if entry.epoch == binding.epoch => c.clone(),
            _ => {
                return Err(format!(
                    "the MCP server \"{}\" was disabled, edited or activated again",
                    entry.config.name
                ));
            }
        };
        drop(servers);
        if !connection.is_open() {
            return Err("the MCP server's connection closed".into());
        }
        if connection.tools().version != binding.version {
            return Err("the MCP server's tool list changed".into());
        }
        Ok(connection)
    }

    /// Resolves, with the reason, once `binding` no longer holds.
    pub(crate) async fn voided(&self, binding: &Binding) -> String {
        loop {
            if let Err(reason) = self.check(binding) {
                return reason;
            }
            tokio::time::sleep(crate::limits::MCP_BINDING_POLL).await;
        }
    }
}

/// Marks a run as using a server while an MCP call of it waits or runs.
pub(crate) struct InUse {
    mcp: Arc<McpHost>,
    entry: (String, String),
}

impl Drop for InUse {
    fn drop(&mut self) {
        let mut in_use = lock(&self.mcp.in_use);
        if let Some(i) = in_use.iter().position(|e| *e == self.entry) {
            in_use.remove(i);
        }
    }
}

impl McpHost {
    /// Marks `run_id` as using `server_id` until the guard is dropped: stopping the server
    /// cancels the run meanwhile (MCP-12).
    pub(crate) fn using(self: &Arc<Self>, run_id: &str, server_id: &str) -> InUse {
        let entry = (run_id.to_owned(), server_id.to_owned());
        lock(&self.in_use).push(entry.clone());
        InUse {
            mcp: self.clone(),
            entry,
        }
    }
}

/// What the install tools may do with local MCP configs: list, add a disabled one, activate
/// and disable — the same paths as Settings → Local MCP, and nothing else of the Host.
#[derive(Clone)]
pub(crate) struct McpConfigs {
    mcp: Arc<McpHost>,
    /// Disabling a server cancels the runs using it (MCP-12).
    runs: Arc<Runs>,
}

impl McpConfigs {
    pub(crate) fn new(mcp: Arc<McpHost>, runs: Arc<Runs>) -> Self {
        Self { mcp, runs }
    }

    /// The data dir MCP was configured with (installs go under it, INST-11); an error when
    /// this Host has no local MCP.
    pub(crate) fn data_dir(&self) -> Result<PathBuf, CoreError> {
        self.mcp.data_dir()
    }

    pub(crate) fn servers(&self) -> Vec<p::McpServer> {
        self.mcp.servers()
    }

    pub(crate) async fn add(&self, draft: p::McpServerDraft) -> Result<p::McpServer, CoreError> {
        self.mcp.add(draft).await
    }

    pub(crate) async fn activate(&self, id: &str) -> Result<p::McpServer, CoreError> {
        self.mcp.activate(id).await
    }

    pub(crate) async fn disable(&self, id: &str) -> Result<p::McpServer, CoreError> {
        self.mcp.disable(id, &self.runs).await
    }
}

/// The entry name of a server's variable in the secret store (ARCHITECTURE: `mcp/<id>/<VAR>`).
fn secret_name(server_id: &str, var: &str) -> String {
    format!("mcp/{server_id}/{var}")
}

/// The digest a server's secrets are bound to: its command, arguments and directory.
fn binding_digest(config: &ServerConfig) -> String {
    let bound = serde_json::json!([config.command, config.args, config.cwd]);
    hex::encode(Sha256::digest(bound.to_string().as_bytes()))
}

fn same_program(a: &ServerConfig, b: &ServerConfig) -> bool {
    a.command == b.command && a.args == b.args && a.cwd == b.cwd
}

fn storage_of(s: p::McpStorageChoice) -> ConfigStorage {
    match s {
        p::McpStorageChoice::Keyring => ConfigStorage::Keyring,
        p::McpStorageChoice::Session => ConfigStorage::Session,
    }
}

fn wire_storage(s: ConfigStorage) -> p::McpStorage {
    match s {
        ConfigStorage::Keyring => p::McpStorage::Keyring,
        ConfigStorage::Session => p::McpStorage::Session,
    }
}

fn mcp_error(e: McpError) -> CoreError {
    let kind = match &e {
        McpError::Limit(_) => CoreErrorKind::Conflict,
        McpError::Storage(_) => CoreErrorKind::Internal,
        _ => CoreErrorKind::Invalid,
    };
    if kind == CoreErrorKind::Internal {
        tracing::error!(error = %e, "mcp-servers.json failed");
    }
    fail(kind, e.to_string())
}

fn secret_error(e: SecretError) -> CoreError {
    match e {
        SecretError::Unavailable(why) => fail(
            CoreErrorKind::SecretStoreUnavailable,
            format!(
                "the system's secret store cannot be reached ({why}); choose storage \"session\" to keep these values for this Wisp session only, or unlock or install a secret store and try again"
            ),
        ),
        SecretError::Failed(why) => fail(
            CoreErrorKind::Internal,
            format!("the system's secret store failed: {why}"),
        ),
    }
}

fn not_found(id: &str) -> CoreError {
    fail(CoreErrorKind::NotFound, format!("no MCP server {id}"))
}

fn wire(entry: &Entry) -> p::McpServer {
    let c = &entry.config;
    let open = entry.connection.as_ref().filter(|c| c.is_open());
    let (status, error) = match (entry.status, open) {
        (p::McpStatus::Active, None) => {
            let why = entry
                .connection
                .as_ref()
                .and_then(Connection::closed_reason)
                .unwrap_or_else(|| "the connection closed".into());
            (
                p::McpStatus::Failed,
                Some(format!("{why}; activate it again")),
            )
        }
        (s, _) => (s, entry.error.clone()),
    };
    let tools = open
        .map(|c| {
            c.tools()
                .tools
                .iter()
                .map(|t| p::McpToolSummary {
                    model_name: t.model_name.clone(),
                    original_name: t.original_name.clone(),
                    description: t.description.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    p::McpServer {
        id: c.id.clone(),
        name: c.name.clone(),
        command: c.command.clone(),
        args: c.args.clone(),
        cwd: c.cwd.clone(),
        env: c
            .env
            .iter()
            .map(|v| p::McpEnvVar {
                name: v.name.clone(),
                storage: wire_storage(v.storage),
            })
            .collect(),
        enabled: status == p::McpStatus::Active || status == p::McpStatus::Starting,
        status,
        error,
        tools,
        unsupported_tools: open
            .map(|c| {
                c.tools()
                    .unsupported
                    .iter()
                    .map(|t| p::McpUnsupportedTool {
                        original_name: t.original_name.clone(),
                        description: t.description.clone(),
                        reason: t.reason.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        protocol_version: open.map(|c| c.protocol_version().to_owned()),
        call_limit_secs: c.call_limit().as_secs(),
    }
}

/// Runs secret-store work off the async threads (the OS store may answer over D-Bus).
async fn with_secrets<T: Send + 'static>(
    secrets: Arc<Secrets>,
    f: impl FnOnce(&Secrets) -> Result<T, CoreError> + Send + 'static,
) -> Result<T, CoreError> {
    tokio::task::spawn_blocking(move || f(&secrets))
        .await
        .map_err(|_| fail(CoreErrorKind::Internal, "the secret store task stopped"))?
}

/// Keeps `values` for `config` (whose env lists exactly them), each bound to its program.
fn store_values(
    secrets: &Secrets,
    config: &ServerConfig,
    values: &[(String, String, ConfigStorage)],
) -> Result<(), CoreError> {
    let digest = binding_digest(config);
    for (name, value, storage) in values {
        let storage = secret_storage(*storage);
        secrets
            .set(
                &secret_name(&config.id, name),
                &format!("{digest}:{value}"),
                storage,
            )
            .map_err(secret_error)?;
    }
    Ok(())
}

/// Where a variable's value lives, as the secret store names it.
fn secret_storage(storage: ConfigStorage) -> SecretStorage {
    match storage {
        ConfigStorage::Keyring => SecretStorage::Keyring,
        ConfigStorage::Session => SecretStorage::Process,
    }
}

/// Removes the variables' values from where each was kept: a session value without opening
/// the OS secret store (MCP-18).
fn delete_values(secrets: &Secrets, server_id: &str, vars: &[EnvVar]) {
    for var in vars {
        let name = secret_name(server_id, &var.name);
        if let Err(e) = secrets.delete_in(&name, secret_storage(var.storage)) {
            tracing::warn!(server = %server_id, var = %var.name, error = %e, "a stored MCP secret was not removed");
        }
    }
}

/// The variables' values for an activation, each checked against its binding.
fn load_values(secrets: &Secrets, config: &ServerConfig) -> Result<Vec<(String, String)>, String> {
    let digest = binding_digest(config);
    let mut out = Vec::new();
    for var in &config.env {
        // Looked for only where it was kept: a session value never opens the OS store.
        let stored = secrets
            .get_in(
                &secret_name(&config.id, &var.name),
                secret_storage(var.storage),
            )
            .map_err(|e| e.to_string())?;
        let value = stored.and_then(|v| v.strip_prefix(&format!("{digest}:")).map(str::to_owned));
        match value {
            Some(v) => out.push((var.name.clone(), v)),
            None => {
                return Err(format!(
                    "the variable {} has no value for this command (values are kept for one command, its arguments and working directory; session values end with Wisp): edit the server and enter it again",
                    var.name
                ));
            }
        }
    }
    Ok(out)
}

/// A draft's parts: the config draft and the values to keep (`None`: no `env` given).
type Split = (ServerDraft, Option<Vec<(String, String, ConfigStorage)>>);

/// A variable named twice: a conflict within the request (the API document cannot say it).
fn no_duplicates(draft: &p::McpServerDraft) -> Result<(), CoreError> {
    let env = draft.env.as_deref().unwrap_or_default();
    for (i, var) in env.iter().enumerate() {
        if env[..i].iter().any(|v| v.name == var.name) {
            return Err(fail(
                CoreErrorKind::Conflict,
                format!(
                    "env: the variable {} is listed twice; name each once",
                    var.name
                ),
            ));
        }
    }
    Ok(())
}

fn split(draft: p::McpServerDraft) -> Split {
    let values = draft.env.map(|env| {
        env.into_iter()
            .map(|v| (v.name, v.value, storage_of(v.storage)))
            .collect::<Vec<_>>()
    });
    let env = values
        .as_ref()
        .map(|v| {
            v.iter()
                .map(|(name, _, storage)| EnvVar {
                    name: name.clone(),
                    storage: *storage,
                })
                .collect()
        })
        .unwrap_or_default();
    (
        ServerDraft {
            name: draft.name,
            command: draft.command,
            args: draft.args,
            cwd: draft.cwd,
            env,
            call_limit_secs: draft.call_limit_secs,
        },
        values,
    )
}

/// Before values are kept in the OS secret store, and before anything else changes: opens it
/// (the first save that needs it does, MCP-18) and refuses when it cannot be used.
async fn needs_keyring(
    secrets: &Arc<Secrets>,
    values: &[(String, String, ConfigStorage)],
) -> Result<(), CoreError> {
    if values.iter().any(|(_, _, s)| *s == ConfigStorage::Keyring) {
        with_secrets(secrets.clone(), |s| s.open_keyring().map_err(secret_error)).await?;
    }
    Ok(())
}

impl McpHost {
    /// Reads `<data_dir>/mcp-servers.json` (every server disabled, MCP-05) and keeps server
    /// secrets in `secrets`. Without this call the MCP API answers that it is not available.
    pub(crate) fn configure(
        &self,
        data_dir: &Path,
        secrets: Arc<Secrets>,
    ) -> Result<(), CoreError> {
        let store = ConfigStore::new(data_dir);
        let configs = store.load().map_err(mcp_error)?;
        *lock(&self.servers) = configs
            .into_iter()
            .map(|config| Entry {
                config,
                status: p::McpStatus::Disabled,
                error: None,
                epoch: 0,
                connection: None,
            })
            .collect();
        let setup = Setup {
            store,
            secrets,
            data_dir: data_dir.to_path_buf(),
        };
        if self.setup.set(setup).is_err() {
            return Err(fail(CoreErrorKind::Conflict, "MCP is already configured"));
        }
        Ok(())
    }

    /// The data dir MCP was configured with (installs go under it, INST-11).
    pub(crate) fn data_dir(&self) -> Result<PathBuf, CoreError> {
        Ok(self.setup()?.data_dir.clone())
    }

    /// `GET /api/mcp/servers`.
    pub(crate) fn servers(&self) -> Vec<p::McpServer> {
        lock(&self.servers).iter().map(wire).collect()
    }

    fn server(&self, id: &str) -> Result<p::McpServer, CoreError> {
        lock(&self.servers)
            .iter()
            .find(|e| e.config.id == id)
            .map(wire)
            .ok_or_else(|| not_found(id))
    }

    /// The configured servers, as `mcp-servers.json` holds them.
    fn configs(&self) -> Vec<ServerConfig> {
        lock(&self.servers)
            .iter()
            .map(|e| e.config.clone())
            .collect()
    }

    /// Writes `configs` as the server list. Called under `edits` with no other lock held: the
    /// file is written first and the live list changed after, so no lock is held across the
    /// write and the list never holds a server the file lacks.
    fn save_configs(&self, configs: Vec<ServerConfig>) -> Result<(), CoreError> {
        let configs: Vec<ServerConfig> = configs
            .into_iter()
            .map(|c| ServerConfig {
                enabled: false,
                ..c
            })
            .collect();
        self.setup()?.store.save(&configs).map_err(mcp_error)
    }

    /// `POST /api/mcp/servers`: a new server, disabled; its variables' values go to the secret
    /// store (or this process) before the config names them.
    pub(crate) async fn add(&self, draft: p::McpServerDraft) -> Result<p::McpServer, CoreError> {
        let setup = self.setup()?;
        no_duplicates(&draft)?;
        let (draft, values) = split(draft);
        let config = wisp_mcp::config::new_server(draft).map_err(mcp_error)?;
        let _edits = self.edits.lock().await;
        if lock(&self.servers).len() >= wisp_mcp::limits::MAX_SERVERS {
            return Err(fail(
                CoreErrorKind::Conflict,
                format!(
                    "at most {} MCP servers can be configured; delete one first",
                    wisp_mcp::limits::MAX_SERVERS
                ),
            ));
        }
        let values = values.unwrap_or_default();
        needs_keyring(&setup.secrets, &values).await?;
        {
            let config = config.clone();
            with_secrets(setup.secrets.clone(), move |s| {
                store_values(s, &config, &values)
            })
            .await?;
        }
        let id = config.id.clone();
        let mut configs = self.configs();
        configs.push(config.clone());
        if let Err(e) = self.save_configs(configs) {
            let vars = config.env.clone();
            let _ = with_secrets(setup.secrets.clone(), move |s| {
                delete_values(s, &config.id, &vars);
                Ok(())
            })
            .await;
            return Err(e);
        }
        lock(&self.servers).push(Entry {
            config,
            status: p::McpStatus::Disabled,
            error: None,
            epoch: 0,
            connection: None,
        });
        self.server(&id)
    }

    /// Stops a server's connection and withdraws its tools at once (MCP-08): its approvals'
    /// bindings break, and runs using it are cancelled (MCP-12).
    async fn stop_server(&self, id: &str, runs: &Runs) {
        // The runs first, so a waiting approval ends as cancelled (MCP-12) rather than as a
        // voided call the run goes on from.
        let users: Vec<String> = lock(&self.in_use)
            .iter()
            .filter(|(_, server)| server == id)
            .map(|(run, _)| run.clone())
            .collect();
        for run in users {
            // Not in progress any more is fine: it ended meanwhile.
            runs.cancel_run(&run);
        }
        let connection = {
            let mut servers = lock(&self.servers);
            servers
                .iter_mut()
                .find(|e| e.config.id == id)
                .and_then(|e| {
                    e.epoch += 1;
                    e.status = p::McpStatus::Disabled;
                    e.error = None;
                    e.connection.take()
                })
        };
        self.manager.deactivate(id).await;
        if let Some(c) = connection {
            c.stop().await;
        }
    }

    /// `PUT /api/mcp/servers/{id}`: the server is stopped and stays disabled (MCP-05, MCP-08).
    /// Given variables replace the whole set (an empty list clears it); without them, stored
    /// values stay only if command, arguments and directory are unchanged (MCP-20).
    pub(crate) async fn edit(
        &self,
        id: &str,
        draft: p::McpServerDraft,
        runs: &Runs,
    ) -> Result<p::McpServer, CoreError> {
        let setup = self.setup()?;
        no_duplicates(&draft)?;
        let (mut draft, values) = split(draft);
        let _edits = self.edits.lock().await;
        let old = lock(&self.servers)
            .iter()
            .find(|e| e.config.id == id)
            .map(|e| e.config.clone())
            .ok_or_else(|| not_found(id))?;
        let carried = values.is_none();
        if carried {
            draft.env = old.env.clone();
        }
        let mut config = wisp_mcp::config::edited(id.to_owned(), draft).map_err(mcp_error)?;
        if carried && !same_program(&old, &config) {
            // A changed program never gets the old values (MCP-20).
            config.env.clear();
        }
        if let Some(values) = &values {
            needs_keyring(&setup.secrets, values).await?;
        }
        self.stop_server(id, runs).await;
        {
            let old = old.clone();
            let config = config.clone();
            with_secrets(setup.secrets.clone(), move |s| {
                match values {
                    Some(values) => {
                        delete_values(s, &old.id, &old.env);
                        store_values(s, &config, &values)?;
                    }
                    None if config.env.is_empty() => delete_values(s, &old.id, &old.env),
                    None => {}
                }
                Ok(())
            })
            .await?;
        }
        let mut configs = self.configs();
        let Some(slot) = configs.iter_mut().find(|c| c.id == id) else {
            return Err(not_found(id));
        };
        *slot = config.clone();
        self.save_configs(configs)?;
        let mut servers = lock(&self.servers);
        let Some(entry) = servers.iter_mut().find(|e| e.config.id == id) else {
            return Err(not_found(id));
        };
        entry.config = config;
        Ok(wire(entry))
    }

    /// `DELETE /api/mcp/servers/{id}`: stops it and removes its stored secrets (MCP-21).
    pub(crate) async fn delete(&self, id: &str, runs: &Runs) -> Result<(), CoreError> {
        let setup = self.setup()?;
        let _edits = self.edits.lock().await;
        if !lock(&self.servers).iter().any(|e| e.config.id == id) {
            return Err(not_found(id));
        }
        self.stop_server(id, runs).await;
        let mut configs = self.configs();
        let Some(i) = configs.iter().position(|c| c.id == id) else {
            return Err(not_found(id));
        };
        let removed = configs.remove(i);
        self.save_configs(configs)?;
        lock(&self.servers).retain(|e| e.config.id != id);
        with_secrets(setup.secrets.clone(), move |s| {
            delete_values(s, &removed.id, &removed.env);
            Ok(())
        })
        .await
    }

    /// `POST /api/mcp/servers/{id}/activate`: trust and activate — spawn, handshake, discovery.
    /// Answers when discovery finished or failed; a failure is the server's `error`.
    pub(crate) async fn activate(&self, id: &str) -> Result<p::McpServer, CoreError> {
        let setup = self.setup()?;
        let (config, epoch, old) = {
            let mut servers = lock(&self.servers);
            let entry = servers
                .iter_mut()
                .find(|e| e.config.id == id)
                .ok_or_else(|| not_found(id))?;
            entry.epoch += 1;
            entry.status = p::McpStatus::Starting;
            entry.error = None;
            (entry.config.clone(), entry.epoch, entry.connection.take())
        };
        if let Some(old) = old {
            old.stop().await;
        }
        let values = {
            let config = config.clone();
            with_secrets(setup.secrets.clone(), move |s| Ok(load_values(s, &config))).await?
        };
        let outcome = match values {
            Err(e) => Err(e),
            Ok(env) => {
                let mut spec = ServerSpec::new(
                    config.id.clone(),
                    config.command.clone(),
                    config.args.clone(),
                );
                spec.cwd = config.cwd.as_ref().map(PathBuf::from);
                spec.env = env;
                spec.call_limit = config.call_limit();
                match self.manager.activate(&spec).await {
                    Ok(_) => self
                        .manager
                        .get(id)
                        .await
                        .ok_or_else(|| "the server stopped right after it started".to_owned()),
                    Err(e) => Err(e.to_string()),
                }
            }
        };
        let stale = {
            let mut servers = lock(&self.servers);
            match servers.iter_mut().find(|e| e.config.id == id) {
                Some(entry) if entry.epoch == epoch => {
                    match outcome {
                        Ok(c) => {
                            tracing::info!(server = %id, tools = c.tools().tools.len(), "MCP server active");
                            entry.status = p::McpStatus::Active;
                            entry.connection = Some(c);
                        }
                        Err(e) => {
                            tracing::info!(server = %id, error = %e, "MCP server not activated");
                            entry.status = p::McpStatus::Failed;
                            entry.error = Some(e);
                        }
                    }
                    None
                }
                // Disabled, edited or deleted while it started: it does not go live.
                _ => outcome.ok(),
            }
        };
        if let Some(c) = stale {
            c.stop().await;
        }
        self.server(id)
    }

    /// `POST /api/mcp/servers/{id}/disable`: stops it; its tools are withdrawn, its pending
    /// approvals void and the runs using it cancelled (MCP-08, MCP-12).
    pub(crate) async fn disable(&self, id: &str, runs: &Runs) -> Result<p::McpServer, CoreError> {
        self.setup()?;
        self.server(id)?;
        self.stop_server(id, runs).await;
        self.server(id)
    }

    /// `POST /api/mcp/servers/{id}/refresh`: fetches the tool list again (MCP-07). A changed
    /// list has a new version, which voids approvals bound to the old one.
    pub(crate) async fn refresh(&self, id: &str) -> Result<p::McpServer, CoreError> {
        self.setup()?;
        let connection = {
            let servers = lock(&self.servers);
            let entry = servers
                .iter()
                .find(|e| e.config.id == id)
                .ok_or_else(|| not_found(id))?;
            entry
                .connection
                .clone()
                .filter(|c| c.is_open())
                .ok_or_else(|| {
                    fail(
                        CoreErrorKind::Conflict,
                        format!(
                            "the MCP server \"{}\" is not active; activate it first",
                            entry.config.name
                        ),
                    )
                })?
        };
        if let Err(e) = connection.refresh().await {
            let mut servers = lock(&self.servers);
            if let Some(entry) = servers.iter_mut().find(|e| e.config.id == id) {
                entry.status = p::McpStatus::Failed;
                entry.error = Some(e.to_string());
            }
        }
        self.server(id)
    }

    /// The active MCP tools now, for a new run's snapshot (MCP-26).
    pub(crate) fn tools(self: &Arc<Self>) -> Vec<ToolRef> {
        let servers = lock(&self.servers);
        let mut out = Vec::new();
        for entry in servers.iter() {
            let Some(c) = entry.connection.as_ref().filter(|c| c.is_open()) else {
                continue;
            };
            let list = c.tools();
            for tool in list.tools.iter() {
                out.push(crate::tools::mcp::tool(
                    self.clone(),
                    Binding {
                        server_id: entry.config.id.clone(),
                        epoch: entry.epoch,
                        version: list.version,
                    },
                    entry.config.name.clone(),
                    tool.clone(),
                ));
            }
        }
        out
    }

    /// Stops every MCP server (shutdown, MCP-14).
    pub(crate) async fn stop_all(&self) {
        let connections: Vec<Connection> = lock(&self.servers)
            .iter_mut()
            .filter_map(|e| {
                e.epoch += 1;
                e.status = p::McpStatus::Disabled;
                e.connection.take()
            })
            .collect();
        self.manager.stop_all().await;
        for c in connections {
            c.stop().await;
        }
    }

    /// `GET /api/mcp/import`: servers found in Claude Desktop's, Cursor's and the default
    /// project's VS Code config. Values stay there; only names are shown.
    pub(crate) fn import_list(&self, project: Option<&Path>) -> p::McpImportList {
        let mut list = p::McpImportList {
            proposals: Vec::new(),
            errors: Vec::new(),
        };
        for found in scan_imports(project) {
            match found {
                Ok((id, proposal)) => list.proposals.push(p::McpImportProposal {
                    id,
                    source: match proposal.source {
                        wisp_mcp::import::Source::ClaudeDesktop => {
                            p::McpImportSource::ClaudeDesktop
                        }
                        wisp_mcp::import::Source::Cursor => p::McpImportSource::Cursor,
                        wisp_mcp::import::Source::VsCode => p::McpImportSource::VsCode,
                    },
                    file: proposal.file.display().to_string(),
                    name: proposal.name.clone(),
                    command: proposal.command.clone(),
                    args: proposal.args.clone(),
                    cwd: proposal.cwd.clone(),
                    env: proposal.env.iter().map(|(k, _)| k.clone()).collect(),
                    unsupported: proposal.unsupported.clone(),
                }),
                Err(e) => list.errors.push(e),
            }
        }
        list
    }

    /// `POST /api/mcp/import`: adds the chosen proposals, disabled; their values go where
    /// `env_storage` says (MCP-16).
    pub(crate) async fn import(
        &self,
        request: p::McpImport,
        project: Option<&Path>,
    ) -> Result<Vec<p::McpServer>, CoreError> {
        self.setup()?;
        let found = scan_imports(project);
        let mut drafts = Vec::new();
        for id in &request.ids {
            let Some((_, proposal)) = found.iter().flatten().find(|(pid, _)| pid == id) else {
                return Err(fail(
                    CoreErrorKind::NotFound,
                    format!("no import proposal {id}; list them again with GET /api/mcp/import"),
                ));
            };
            if let Some(why) = &proposal.unsupported {
                return Err(fail(
                    CoreErrorKind::Invalid,
                    format!("\"{}\" cannot be imported: {why}", proposal.name),
                ));
            }
            let storage = match (request.env_storage, proposal.env.is_empty()) {
                (_, true) => p::McpStorageChoice::Session,
                (Some(s), false) => s,
                (None, false) => {
                    return Err(fail(
                        CoreErrorKind::Invalid,
                        format!(
                            "envStorage: \"{}\" has variables; choose \"keyring\" or \"session\" for their values",
                            proposal.name
                        ),
                    ));
                }
            };
            let name: String = proposal
                .name
                .chars()
                .take(p::limits::MAX_MCP_NAME_CHARS)
                .collect();
            let draft = p::McpServerDraft {
                call_limit_secs: None,
                name,
                command: proposal.command.clone(),
                args: proposal.args.clone(),
                cwd: proposal.cwd.clone(),
                env: Some(
                    proposal
                        .env
                        .iter()
                        .map(|(k, v)| p::McpEnvValue {
                            name: k.clone(),
                            value: v.clone(),
                            storage,
                        })
                        .collect(),
                ),
            };
            wisp_protocol::Check::check(&draft).map_err(|e| {
                fail(
                    CoreErrorKind::Invalid,
                    format!("\"{}\" cannot be imported: {e}", proposal.name),
                )
            })?;
            drafts.push(draft);
        }
        let mut added = Vec::new();
        for draft in drafts {
            added.push(self.add(draft).await?);
        }
        Ok(added)
    }
}

/// The import proposals found now, each with a stable id (a digest of source, file and name).
/// `project` is the default project, whose VS Code config is read too.
fn scan_imports(
    project: Option<&Path>,
) -> Vec<Result<(String, wisp_mcp::import::Proposal), String>> {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    wisp_mcp::import::scan(&home, project)
        .into_iter()
        .map(|r| {
            r.map(|proposal| {
                let key = format!(
                    "{:?}\0{}\0{}",
                    proposal.source,
                    proposal.file.display(),
                    proposal.name
                );
                let id = hex::encode(&Sha256::digest(key.as_bytes())[..8]);
                (id, proposal)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Host;

    fn host(
        keyring: Result<wisp_secrets::Keyring, SecretError>,
    ) -> (tempfile::TempDir, Host, Arc<Secrets>) {
        let (tmp, host) = crate::test_support::host();
        let secrets = Arc::new(Secrets::new(keyring));
        host.configure_mcp(tmp.path(), secrets.clone()).unwrap();
        (tmp, host, secrets)
    }

    fn draft(
        command: &str,
        env: Option<Vec<(&str, &str, p::McpStorageChoice)>>,
    ) -> p::McpServerDraft {
        p::McpServerDraft {
            call_limit_secs: None,
            name: "s".into(),
            command: command.into(),
            args: vec!["--x".into()],
            cwd: None,
            env: env.map(|e| {
                e.into_iter()
                    .map(|(n, v, storage)| p::McpEnvValue {
                        name: n.into(),
                        value: v.into(),
                        storage,
                    })
                    .collect()
            }),
        }
    }

    /// MCP-18: with no variable kept in the OS secret store, nothing opens it — adding,
    /// listing, editing, activating and deleting servers without variables or with session
    /// ones; the first variable kept there does.
    #[tokio::test]
    async fn mcp_18_the_os_store_is_opened_only_for_a_variable_kept_there() {
        let (tmp, host) = crate::test_support::host();
        let secrets = Arc::new(Secrets::lazy(|| Ok(wisp_secrets::Keyring::mock())));
        host.configure_mcp(tmp.path(), secrets.clone()).unwrap();
        let session = |v| Some(vec![("K", v, p::McpStorageChoice::Session)]);
        let plain = host.mcp_add(draft("/bin/true", None)).await.unwrap();
        let with = host
            .mcp_add(draft("/bin/true", session("v1")))
            .await
            .unwrap();
        assert_eq!(host.mcp_servers().len(), 2);
        host.mcp_edit(&with.id, draft("/bin/true", session("v2")))
            .await
            .unwrap();
        // It exits at once, so discovery fails; its value came from this process.
        let _ = host.mcp_activate(&with.id).await;
        host.mcp_edit(&with.id, draft("/bin/false", None))
            .await
            .unwrap();
        host.mcp_delete(&plain.id).await.unwrap();
        host.mcp_delete(&with.id).await.unwrap();
        assert_eq!(secrets.keyring_accesses(), 0, "the OS store was opened");
        host.mcp_add(draft(
            "/bin/true",
            Some(vec![("K", "v", p::McpStorageChoice::Keyring)]),
        ))
        .await
        .unwrap();
        assert!(secrets.keyring_accesses() >= 2, "opened and the value kept");
    }

    #[tokio::test]
    async fn no_secret_store_is_a_clear_error_naming_the_session_choice_and_changes_nothing() {
        let (_tmp, host, _) = host(Err(SecretError::Unavailable("no D-Bus".into())));
        let e = host
            .mcp_add(draft(
                "node",
                Some(vec![("K", "sk-v", p::McpStorageChoice::Keyring)]),
            ))
            .await
            .unwrap_err();
        assert_eq!(e.kind, CoreErrorKind::SecretStoreUnavailable);
        assert!(e.message.contains("\"session\""), "{}", e.message);
        assert!(!e.message.contains("sk-v"));
        assert!(host.mcp_servers().is_empty());
        // The session-only choice works without a store.
        let s = host
            .mcp_add(draft(
                "node",
                Some(vec![("K", "sk-v", p::McpStorageChoice::Session)]),
            ))
            .await
            .unwrap();
        assert_eq!(s.env[0].storage, p::McpStorage::Session);
    }

    #[tokio::test]
    async fn mcp_20_values_are_bound_to_the_program_replaced_whole_and_deleted_with_it() {
        let (_tmp, host, secrets) = host(Ok(wisp_secrets::Keyring::mock()));
        let s = host
            .mcp_add(draft(
                "node",
                Some(vec![
                    ("A", "va", p::McpStorageChoice::Keyring),
                    ("B", "vb", p::McpStorageChoice::Session),
                ]),
            ))
            .await
            .unwrap();
        let config = lock(&host.inner.mcp.servers)[0].config.clone();
        assert_eq!(
            load_values(&secrets, &config).unwrap(),
            [
                ("A".to_owned(), "va".to_owned()),
                ("B".to_owned(), "vb".to_owned())
            ]
        );
        // Same program, no env given: the values stay.
        host.mcp_edit(&s.id, draft("node", None)).await.unwrap();
        let config = lock(&host.inner.mcp.servers)[0].config.clone();
        assert_eq!(load_values(&secrets, &config).unwrap().len(), 2);
        // A replacement replaces the whole set.
        let edited = host
            .mcp_edit(
                &s.id,
                draft(
                    "node",
                    Some(vec![("C", "vc", p::McpStorageChoice::Keyring)]),
                ),
            )
            .await
            .unwrap();
        assert_eq!(edited.env.len(), 1);
        assert!(secrets.get(&secret_name(&s.id, "A")).unwrap().is_none());
        assert!(secrets.get(&secret_name(&s.id, "B")).unwrap().is_none());
        // A value stored for another program is never handed to this one.
        let mut other = lock(&host.inner.mcp.servers)[0].config.clone();
        other.command = "python3".into();
        assert!(
            load_values(&secrets, &other)
                .unwrap_err()
                .contains("no value")
        );
        // A changed command without env: the old values are gone, not carried over.
        let moved = host.mcp_edit(&s.id, draft("python3", None)).await.unwrap();
        assert!(moved.env.is_empty());
        assert!(secrets.get(&secret_name(&s.id, "C")).unwrap().is_none());
        // An empty list clears; delete removes what is stored.
        host.mcp_edit(
            &s.id,
            draft(
                "python3",
                Some(vec![("D", "vd", p::McpStorageChoice::Keyring)]),
            ),
        )
        .await
        .unwrap();
        let cleared = host
            .mcp_edit(&s.id, draft("python3", Some(vec![])))
            .await
            .unwrap();
        assert!(cleared.env.is_empty());
        assert!(secrets.get(&secret_name(&s.id, "D")).unwrap().is_none());
        host.mcp_edit(
            &s.id,
            draft(
                "python3",
                Some(vec![("E", "ve", p::McpStorageChoice::Keyring)]),
            ),
        )
        .await
        .unwrap();
        host.mcp_delete(&s.id).await.unwrap();
        assert!(secrets.get(&secret_name(&s.id, "E")).unwrap().is_none());
        assert!(host.mcp_servers().is_empty());
    }
}
