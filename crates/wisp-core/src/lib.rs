//! Wisp's runtime: authorized projects, sessions, the run loop, approvals, the tool snapshot
//! and the event log. The local API (`wisp-server`) is a thin shell over [`Host`].
//!
//! - One user message = one run ([`Host::start_run`]), one run at a time per session, driven by
//!   its own task; sessions never see each other's events, approvals or tools.
//! - Each run deep-copies its tool set at the start ([`tools::snapshot`]) and uses that copy for
//!   every model request and for `tool_introspect`.
//! - Calls run one at a time in the model's order; a call that changes files waits for an
//!   approval bound to its canonical arguments' SHA-256, used once, void after cancel or
//!   restart, and executes through one serial queue for the whole Host (APPR-05) after the
//!   sandbox re-validates it.
//! - Every transition is an event with a per-session sequence number, stored before it is
//!   broadcast. Reasoning goes to the store's private table and back to the model, never into
//!   events or answers.
//!
//! - A session inherits the default project given to `wisp serve`; an unnamed one is named
//!   after its first message.
//! - A folder is authorized only while the Host's project map holds its handle:
//!   [`Host::revoke_project`] stores the revocation, removes the handle, clears the default
//!   project and wakes waiting file approvals, which become void. A run in flight keeps its
//!   tool list (INTRO-07), but its file work, and web tools' use of the folder, is refused
//!   from then on (an approved change re-checks after it gets the change queue; one already
//!   executing still finishes). Sessions keep their `projectId` and lose their root;
//!   authorizing the folder again restores it.
//! - `/api/health` says `degraded` when blocking file tasks pile up (`file_work.rs`).
//!
//! `Host` is the one `impl` of the runtime's API and wires its subsystem handles (runs,
//! projects, tabs, MCP, settings, file tasks), each owning its state behind its own lock; what
//! one needs of another is passed in by the Host, never reached for.
//!
//! This crate never speaks HTTP and never writes SQL; it never prints.

pub mod confine;
mod context;
mod export;
mod file_work;
pub mod limits;
mod mcp;
mod output;
mod projects;
mod run;
mod runs;
mod settings;
mod skills;
pub use skills::SkillsImport;
mod tabs;
#[cfg(test)]
mod test_support;
mod tool;
pub mod tools;
mod undo;

pub use undo::UndoLimits;

pub use settings::{EnvModel, ModelProbe, ModelSetup, SimEndpoint, default_prices};
pub use tabs::PreviewBackend;
pub use wisp_fs::TrashConfig;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{broadcast, watch};
use wisp_fs::Sandbox;
use wisp_model::DeepSeekClient;
use wisp_protocol as p;
use wisp_secrets::Secrets;
use wisp_store::Store;

/// Why a request to the runtime was refused. The server maps kinds to HTTP statuses.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CoreError {
    /// The class.
    pub kind: CoreErrorKind,
    /// What went wrong, for the caller.
    pub message: String,
}

/// Classes of [`CoreError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreErrorKind {
    /// No such thing.
    NotFound,
    /// The request conflicts with the current state (a run in flight, an approval not pending,
    /// a digest that differs).
    Conflict,
    /// The request itself is invalid.
    Invalid,
    /// Something inside failed (the database).
    Internal,
    /// The OS secret store cannot be reached; keeping the secret for this process still works.
    SecretStoreUnavailable,
}

/// A request body naming a project that is not authorized (never was, or was revoked). A
/// conflict with the projects' state, not a missing resource: the session or collection the
/// request addresses exists, and a 404 would say it did not.
fn unauthorized_project(id: &str) -> CoreError {
    fail(
        CoreErrorKind::Conflict,
        format!("no authorized project {id} (never authorized, or revoked)"),
    )
}

fn fail(kind: CoreErrorKind, message: impl Into<String>) -> CoreError {
    CoreError {
        kind,
        message: message.into(),
    }
}

impl From<wisp_store::StoreError> for CoreError {
    fn from(e: wisp_store::StoreError) -> Self {
        tracing::error!(error = %e, "store failed");
        fail(CoreErrorKind::Internal, "the database failed; see the log")
    }
}

/// How the Host runs.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Simulation or live; recorded on every run.
    pub mode: p::Mode,
    /// Live events held for slow subscribers ([`limits::EVENT_BROADCAST_CAPACITY`]).
    pub event_buffer: usize,
    /// Model rounds per run (RUN-05).
    pub step_budget: u32,
    /// Attempts per model request.
    pub model_attempts: u32,
    /// First retry pause.
    pub retry_base_delay: Duration,
    /// Total time one model request may wait out rate limits as the service asked.
    pub rate_limit_window: Duration,
    /// Where `files_trash` puts things. [`HostConfig::new`] has none (every trash refused, so a
    /// test Host never reaches a real trash); `wisp serve` gives the user's, from `HOME` and
    /// `XDG_DATA_HOME`.
    pub trash: wisp_fs::TrashConfig,
    /// How `mcp_install_npm` installs: the one allowed registry and the deadline (INST-13,
    /// INST-16). [`HostConfig::new`] has the public registry; `None` refuses every install.
    pub npm: Option<wisp_install::InstallConfig>,
    /// How often a pending file card is checked against the disk
    /// ([`limits::CARD_RECHECK_INTERVAL`]); `None` never while it waits (only at execution).
    pub card_recheck: Option<Duration>,
    /// The person's skills folders, read when each run starts (FILE-05). [`HostConfig::new`]
    /// has none; `wisp serve` gives `~/.agents/skills` and the data dir's `skills`.
    pub skills_dirs: Vec<std::path::PathBuf>,
    /// The program whose `confine` subcommand runs a skill's script confined
    /// ([`confine`]); `wisp serve` gives its own binary. Without it scripts run with full
    /// access only, and their cards say why.
    pub confine_helper: Option<std::path::PathBuf>,
    /// Claude's personal skills folder and Wisp's own, for Settings → Skills' import; none in
    /// [`HostConfig::new`].
    pub skills_import: Option<SkillsImport>,
    /// The context window of every model, in tokens, instead of what Wisp knows of each (a
    /// provider that refuses a longer request still teaches a smaller one); `None` in
    /// [`HostConfig::new`].
    pub context_window: Option<u64>,
    /// What undo keeps and for how long.
    pub undo: undo::UndoLimits,
}

impl HostConfig {
    /// Defaults for `mode`.
    pub fn new(mode: p::Mode) -> Self {
        Self {
            mode,
            event_buffer: limits::EVENT_BROADCAST_CAPACITY,
            step_budget: limits::DEFAULT_STEP_BUDGET,
            model_attempts: limits::MODEL_ATTEMPTS,
            retry_base_delay: limits::RETRY_BASE_DELAY,
            rate_limit_window: limits::RATE_LIMIT_WINDOW,
            trash: wisp_fs::TrashConfig::none(),
            npm: wisp_install::Registry::public()
                .ok()
                .map(wisp_install::InstallConfig::new),
            card_recheck: Some(limits::CARD_RECHECK_INTERVAL),
            skills_dirs: Vec::new(),
            confine_helper: None,
            skills_import: None,
            context_window: None,
            undo: undo::UndoLimits::default(),
        }
    }
}

/// The runtime. Cheap to clone.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) store: Store,
    /// The model in effect, its problem and, once [`Host::configure_model`] ran, the settings
    /// it comes from; a run takes the model at its start, so switching needs no restart.
    settings: settings::ModelSettings,
    pub(crate) config: HostConfig,
    /// The runs in progress and their pending approvals.
    pub(crate) runs: Arc<runs::Runs>,
    /// The authorized projects' folder handles and the default project.
    pub(crate) projects: projects::Projects,
    pub(crate) events: broadcast::Sender<p::Live>,
    /// Every file-changing execution of the Host holds this (APPR-05), until the write has
    /// really ended, also when its run stopped waiting for it.
    pub(crate) change_queue: Arc<tokio::sync::Mutex<()>>,
    /// Blocking file tasks running now ([`file_work`]).
    pub(crate) file_tasks: file_work::FileTasks,
    pub(crate) shutting_down: watch::Sender<bool>,
    /// Local MCP servers.
    pub(crate) mcp: Arc<mcp::McpHost>,
    /// Every session's preview tabs (in memory only).
    pub(crate) tabs: tabs::Tabs,
    /// Settings → Skills: whether runs are offered `skills_run_script` (FILE-05; stored, off
    /// unless the person turned it on).
    skill_scripts: std::sync::atomic::AtomicBool,
    /// What each session's requests leave out and how large they run ([`context`]).
    pub(crate) contexts:
        std::sync::Mutex<std::collections::HashMap<String, context::SessionContext>>,
    /// Context windows providers named when they refused a longer request, by model.
    pub(crate) learned_windows: std::sync::Mutex<std::collections::HashMap<String, u64>>,
    /// What the endpoint's `/models` said of a model's window (`None`: asked, not said), by
    /// model; asked once per Host for a model whose window is neither set nor known.
    pub(crate) provider_windows: std::sync::Mutex<std::collections::HashMap<String, Option<u64>>>,
    /// Settings → Model's part on long sessions: windows per model, the spending warning.
    pub(crate) context_prefs: std::sync::Mutex<p::UpdateContextSettings>,
    /// What undo keeps now: `HostConfig::undo`, or Settings → Undo once the person set it.
    pub(crate) undo_limits: std::sync::Mutex<undo::UndoLimits>,
}

/// The store's name of the skill-script switch.
const SKILL_SCRIPTS_SETTING: &str = "skill-scripts";

/// Why file work of a revoked project is refused.
const REVOKED: &str =
    "the project folder's authorization was revoked; the file tools no longer reach it";

/// Title of a session nobody named; its first message replaces it.
const DEFAULT_TITLE: &str = "New session";

/// Characters of a first message kept as the session's title.
const AUTO_TITLE_CHARS: usize = 60;

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A fresh random ID with a readable prefix (128 bits).
pub(crate) fn new_id(prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No entropy source means no safe IDs or tokens at all: stopping is the only honest move.
        tracing::error!("the OS random source failed");
        std::process::abort();
    }
    format!("{prefix}_{}", hex::encode(bytes))
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Host {
    /// Starts the runtime on an opened store. Runs left unfinished by an earlier Host become
    /// `interrupted` and their approvals `void`; nothing is replayed (RUN-11).
    /// With `model` `None` every run fails as having no model until [`Host::configure_model`]
    /// gives it one; the Host does not refuse to start.
    pub fn start(
        store: Store,
        model: Option<DeepSeekClient>,
        config: HostConfig,
    ) -> Result<Self, CoreError> {
        // broadcast::channel panics on 0.
        let (events, _) = broadcast::channel(config.event_buffer.max(1));
        let (shutting_down, _) = watch::channel(false);
        let active = settings::ActiveModel::fixed(model, config.mode);
        let undo_limits = config.undo;
        let host = Self {
            inner: Arc::new(Inner {
                store,
                settings: settings::ModelSettings::new(active),
                config,
                runs: Arc::default(),
                projects: projects::Projects::default(),
                events: events.clone(),
                change_queue: Arc::new(tokio::sync::Mutex::new(())),
                file_tasks: file_work::FileTasks::default(),
                shutting_down,
                mcp: Arc::default(),
                tabs: tabs::Tabs::new(events.clone()),
                skill_scripts: std::sync::atomic::AtomicBool::new(false),
                contexts: std::sync::Mutex::default(),
                learned_windows: std::sync::Mutex::default(),
                provider_windows: std::sync::Mutex::default(),
                context_prefs: std::sync::Mutex::new(p::UpdateContextSettings {
                    windows: Default::default(),
                    spending_warning: None,
                    stop_at_limit: false,
                }),
                undo_limits: std::sync::Mutex::new(undo_limits),
            }),
        };
        let scripts = host.inner.store.setting(SKILL_SCRIPTS_SETTING)?;
        host.inner
            .skill_scripts
            .store(scripts.as_deref() == Some("true"), Ordering::SeqCst);
        if let Some(stored) = host.inner.store.setting(undo::SETTING)? {
            match serde_json::from_str::<p::UndoSettings>(&stored) {
                Ok(s) => *lock(&host.inner.undo_limits) = undo::UndoLimits::from(s),
                Err(e) => {
                    tracing::warn!(error = %e, "stored undo settings not read; defaults apply")
                }
            }
        }
        if let Some(stored) = host.inner.store.setting(context::SETTING)? {
            match serde_json::from_str::<p::UpdateContextSettings>(&stored) {
                Ok(s) => *lock(&host.inner.context_prefs) = s,
                Err(e) => {
                    tracing::warn!(error = %e, "stored context settings not read; defaults apply")
                }
            }
        }
        host.interrupt_leftovers(&found_unfinished_error())?;
        host.forget_old_changes();
        host.remove_leftover_temp_files();
        Ok(host)
    }

    /// Removes Wisp's own temp files that a crash (`kill -9` during a write) left in the
    /// authorized projects — only names of `wisp_fs::temp_file_name`'s pattern, older than this
    /// start. On a thread of its own holding one file-task slot, so a slow or hung
    /// project cannot delay the start, and the count shows it while it runs.
    fn remove_leftover_temp_files(&self) {
        let projects = match self.inner.store.projects() {
            Ok(p) if !p.is_empty() => p,
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(error = %e, "projects not read; leftover temp files stay");
                return;
            }
        };
        let Ok(slot) = self.inner.file_tasks.claim() else {
            return;
        };
        let started = std::time::SystemTime::now();
        let spawned = std::thread::Builder::new()
            .name("wisp-temp-cleanup".into())
            .spawn(move || {
                let _slot = slot;
                for project in projects {
                    let Ok(sandbox) = Sandbox::open(Path::new(&project.root)) else {
                        continue;
                    };
                    let done = sandbox.remove_stale_temp_files(started);
                    for path in &done.removed {
                        tracing::info!(project = %project.id, path = %path, "removed a temp file a crash left");
                    }
                    if done.truncated {
                        tracing::warn!(project = %project.id, "temp file cleanup stopped at its limit");
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "temp file cleanup not started");
        }
    }

    /// Marks every unfinished run interrupted with `error` as its reason: at start the runs a
    /// Host that stopped left behind, at shutdown the runs that outlived the grace period.
    fn interrupt_leftovers(&self, error: &p::RunError) -> Result<(), CoreError> {
        let at = now_ms();
        for (session, run) in self.inner.store.interrupt_unfinished(at, error)? {
            let kind = p::EventKind::RunFinished {
                status: p::RunStatus::Interrupted,
                final_text: None,
                error: Some(error.clone()),
                usage: p::Usage::default(),
            };
            self.inner.emit(&session, Some(&run), kind);
        }
        Ok(())
    }

    /// `/api/health`: `degraded` once [`limits::FILE_TASKS_DEGRADED`] blocking file tasks are
    /// running at the same time, which in practice means they are stuck (a hung file system).
    pub fn health(&self) -> p::Health {
        let running = self.inner.file_tasks.running();
        let active = self.inner.settings.model();
        let problem = active.problem.clone();
        p::Health {
            status: if running >= limits::FILE_TASKS_DEGRADED {
                "degraded"
            } else {
                "ok"
            }
            .into(),
            mode: active.mode,
            problem,
            model: Some(active.run_model.clone()),
            blocking_file_tasks: u32::try_from(running).unwrap_or(u32::MAX),
            web_tabs: self.inner.tabs.web_tabs(),
        }
    }

    /// Authorizes a folder as a trusted project (DEC-03). It must be an existing directory.
    pub fn add_project(&self, path: &str) -> Result<p::Project, CoreError> {
        if path.trim().is_empty() {
            return Err(fail(CoreErrorKind::Invalid, "path is empty"));
        }
        let expanded = expand_home(path.trim())?;
        let path = expanded.as_path();
        if !path.is_absolute() {
            return Err(fail(
                CoreErrorKind::Invalid,
                "give the folder's absolute path (or one starting with ~/)",
            ));
        }
        // A folder that is not there — a name longer than the system allows is never there —
        // is a missing resource (404), not a malformed request.
        if let Err(e) = std::fs::metadata(path)
            && e.kind() == std::io::ErrorKind::InvalidFilename
        {
            return Err(fail(
                CoreErrorKind::NotFound,
                format!(
                    "{}: no such folder (a name in it is too long)",
                    path.display()
                ),
            ));
        }
        let sandbox = {
            let _slot = self.inner.file_tasks.claim()?;
            Sandbox::open(path).map_err(|e| match e.kind {
                wisp_fs::FsErrorKind::NotFound => fail(CoreErrorKind::NotFound, e.message),
                _ => fail(CoreErrorKind::Invalid, e.message),
            })?
        };
        let root = sandbox.root().display().to_string();
        let project = self
            .inner
            .store
            .upsert_project(&new_id("p"), &root, now_ms())?;
        // An authorized project keeps its handle: runs holding it stay authorized.
        self.inner
            .projects
            .keep(&project.id, Arc::new(sandbox), || Ok::<_, CoreError>(true))?;
        Ok(project)
    }

    /// `DELETE /api/projects/{id}`: revokes a project's authorization (DEC-03). Its sessions
    /// keep their history and lose their file tools from their next run; nothing in the folder
    /// is touched. A run in flight keeps its tool snapshot (INTRO-07), but from now on the Host
    /// refuses its file work (INTRO-10: the snapshot grants no permission): a file approval
    /// waiting for the person becomes void at once, no change starts, no file is read. (A
    /// change already executing when the revoke arrives finishes.) Stored, so it holds after
    /// a restart; authorizing the same folder again gives its sessions their folder back.
    pub fn revoke_project(&self, id: &str) -> Result<(), CoreError> {
        let no_such = || {
            fail(
                CoreErrorKind::NotFound,
                format!("no authorized project {id}"),
            )
        };
        // Stored first: `sandbox_for` checks the store under the handles' lock, so a handle
        // it puts back meanwhile is gone once the revoke drops it.
        if !self.inner.store.revoke_project(id, now_ms())? {
            return Err(no_such());
        }
        self.inner.projects.revoked(id);
        self.inner.runs.sessions_changed();
        tracing::info!(project = %id, "project authorization revoked");
        Ok(())
    }

    /// `sandbox` (a run's project folder), while its project is still authorized; else why
    /// the file work is refused.
    pub(crate) fn authorized_sandbox(
        &self,
        sandbox: Option<&Arc<Sandbox>>,
    ) -> Result<Arc<Sandbox>, String> {
        let Some(sandbox) = sandbox else {
            return Err("this session has no authorized project folder".into());
        };
        if self.inner.projects.is_authorized(sandbox) {
            Ok(sandbox.clone())
        } else {
            Err(REVOKED.into())
        }
    }

    /// Resolves, with the reason, once `sandbox` is no longer authorized (a revoke): a file
    /// approval waiting on it is then void.
    pub(crate) fn sandbox_revoked(&self, sandbox: &Arc<Sandbox>) -> tool::BoxFuture<String> {
        let host = self.clone();
        let sandbox = sandbox.clone();
        let mut revocations = self.inner.projects.revocations();
        Box::pin(async move {
            loop {
                if let Err(reason) = host.authorized_sandbox(Some(&sandbox)) {
                    return reason;
                }
                if revocations.changed().await.is_err() {
                    // The Host is gone: nothing can revoke any more.
                    std::future::pending::<()>().await;
                }
            }
        })
    }

    /// Makes `project_id` the project of sessions created without one (`wisp serve DIR`).
    pub fn set_default_project(&self, project_id: &str) {
        self.inner.projects.set_default_project(project_id);
    }

    /// Authorized projects.
    pub fn projects(&self) -> Result<Vec<p::Project>, CoreError> {
        Ok(self.inner.store.projects()?)
    }

    /// Starts a session, in a project when given (it then inherits the project's root).
    pub fn create_session(&self, mut request: p::CreateSession) -> Result<p::Session, CoreError> {
        if request.project_id.is_none() {
            request.project_id = self.inner.projects.default_project();
        }
        if let Some(pid) = &request.project_id
            && self.inner.store.project(pid)?.is_none()
        {
            return Err(unauthorized_project(pid));
        }
        let id = new_id("s");
        let title = request
            .title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_TITLE.into());
        self.inner.store.insert_session(
            &id,
            request.project_id.as_deref(),
            title.trim(),
            now_ms(),
        )?;
        self.inner.runs.sessions_changed();
        self.session(&id)
    }

    /// Every session, newest first.
    pub fn sessions(&self) -> Result<Vec<p::Session>, CoreError> {
        let mut sessions = self.inner.store.sessions()?;
        self.inner.runs.mark_active(&mut sessions);
        Ok(sessions)
    }

    /// One session.
    pub fn session(&self, id: &str) -> Result<p::Session, CoreError> {
        let mut s = self
            .inner
            .store
            .session(id)?
            .ok_or_else(|| fail(CoreErrorKind::NotFound, format!("no session {id}")))?;
        s.active_run_id = self.inner.runs.active_run_id(id);
        Ok(s)
    }

    /// The session as Markdown: its messages, steps, tool calls and answers, never reasoning nor
    /// a credential file's content; the newest runs up to [`limits::MAX_EXPORT_BYTES`].
    pub fn export_session(&self, id: &str) -> Result<String, CoreError> {
        let session = self.session(id)?;
        let mut runs = Vec::new();
        let (mut bytes, mut cursor, mut truncated) = (0usize, None, false);
        'pages: loop {
            let (page, next) = self
                .inner
                .store
                .runs_page(id, cursor, limits::MAX_RUNS_PAGE)?;
            for run in page {
                bytes += export::run_bytes(&run);
                if bytes > limits::MAX_EXPORT_BYTES {
                    truncated = true;
                    break 'pages;
                }
                runs.push(run);
            }
            match next {
                Some(n) => cursor = Some(n),
                None => break,
            }
        }
        runs.reverse();
        Ok(export::markdown(&session, &runs, truncated))
    }

    /// The tools a new run of this session would get (`tool_introspect`'s answer).
    pub fn session_tools(&self, session_id: &str) -> Result<Vec<p::ToolInfo>, CoreError> {
        let session = self.session(session_id)?;
        let has_root = session.root.is_some();
        Ok(tools::run_snapshot(has_root, self.run_extras(&session, has_root)).infos)
    }

    /// A run's tools beyond the built-ins, as they are now: the skills tools (the person's
    /// skills and the session's project's that the person trusts; reads them, blocking; the
    /// script tool only with the person's switch on and a project to run in), then the active
    /// MCP tools.
    fn run_extras(&self, session: &p::Session, has_root: bool) -> Vec<tool::ToolRef> {
        let project = match (&session.project_id, &session.root, has_root) {
            (Some(id), Some(root), true) => Some((id.as_str(), Path::new(root.as_str()))),
            _ => None,
        };
        let skills = skills::usable(&self.inner.store, &self.inner.config.skills_dirs, project);
        let scripts = has_root && self.inner.skill_scripts.load(Ordering::SeqCst);
        tools::skills::tools(skills, scripts)
            .into_iter()
            .chain(self.inner.mcp.tools())
            .collect()
    }

    /// `GET /api/skills`: Settings → Skills (blocking: reads the skills folders).
    pub fn skills(&self) -> Result<p::SkillsView, CoreError> {
        skills::view(
            &self.inner.store,
            &self.inner.config.skills_dirs,
            self.inner.config.skills_import.as_ref(),
            &self.inner.store.projects()?,
            self.inner.skill_scripts.load(Ordering::SeqCst),
        )
    }

    /// `PUT /api/skills`: turns the skill-script mode on or off for runs that start from now
    /// on (blocking: stored first, so what the UI shows is what a restart keeps).
    pub fn update_skills(&self, update: &p::UpdateSkills) -> Result<p::SkillsView, CoreError> {
        self.inner.store.put_setting(
            SKILL_SCRIPTS_SETTING,
            if update.scripts_allowed {
                "true"
            } else {
                "false"
            },
        )?;
        self.inner
            .skill_scripts
            .store(update.scripts_allowed, Ordering::SeqCst);
        tracing::info!(allowed = update.scripts_allowed, "skill scripts switch");
        self.skills()
    }

    /// `POST /api/skills/import`: copies the skills asked for of Claude's personal folder into
    /// Wisp's own, each as shown (blocking).
    pub fn import_skills(&self, request: &p::ImportSkills) -> Result<p::SkillsView, CoreError> {
        let Some(import) = &self.inner.config.skills_import else {
            return Err(fail(
                CoreErrorKind::NotFound,
                "this Host has no folder to import skills from",
            ));
        };
        skills::import(&self.inner.config.skills_dirs, import, request)?;
        self.skills()
    }

    /// `PUT /api/skills/enabled`: turns one of the person's skills on or off for runs that
    /// start from now on (blocking).
    pub fn enable_skill(&self, request: &p::EnableSkill) -> Result<p::SkillsView, CoreError> {
        skills::set_enabled(&self.inner.store, &self.inner.config.skills_dirs, request)?;
        self.skills()
    }

    /// `PUT /api/skills/trust`: trusts a project's skill as the person was shown it, or takes
    /// the trust back, for runs that start from now on (blocking).
    pub fn trust_skill(&self, request: &p::TrustSkill) -> Result<p::SkillsView, CoreError> {
        let project = self
            .inner
            .store
            .project(&request.project_id)?
            .ok_or_else(|| {
                fail(
                    CoreErrorKind::NotFound,
                    "no authorized project with that ID",
                )
            })?;
        skills::set_trust(
            &self.inner.store,
            &self.inner.config.skills_dirs,
            &project,
            request,
        )?;
        self.skills()
    }

    pub(crate) fn sandbox_for(
        &self,
        session: &p::Session,
    ) -> Result<Option<Arc<Sandbox>>, CoreError> {
        let (Some(pid), Some(root)) = (&session.project_id, &session.root) else {
            return Ok(None);
        };
        if let Some(s) = self.inner.projects.get(pid) {
            return Ok(Some(s));
        }
        let sandbox = Arc::new(Sandbox::open(Path::new(root)).map_err(|e| {
            fail(
                CoreErrorKind::Invalid,
                format!("the project folder cannot be opened: {e}"),
            )
        })?);
        // A revoke may have come since the session was read: then there is no folder.
        self.inner.projects.keep(pid, sandbox, || {
            Ok(self.inner.store.project(pid)?.is_some())
        })
    }

    /// The rows of a run that starts: the run, its model, and the title of an unnamed session.
    fn record_run_start(
        &self,
        session: &p::Session,
        run_id: &str,
        text: &str,
        model: &settings::ActiveModel,
    ) -> Result<(), CoreError> {
        self.inner
            .store
            .insert_run(run_id, &session.id, text, model.mode, now_ms())?;
        self.inner.store.set_run_model(run_id, &model.run_model)?;
        if session.title == DEFAULT_TITLE {
            // An unnamed session is named after its first message, so the list says what
            // each one is about.
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or(text)
                .trim();
            let mut title: String = line.chars().take(AUTO_TITLE_CHARS).collect();
            if line.chars().count() > AUTO_TITLE_CHARS {
                title.push('…');
            }
            self.inner.store.rename_session(&session.id, &title)?;
        }
        Ok(())
    }

    /// [`Host::start_run`], except that a run of the session whose end is already stored (so a
    /// client may have seen it end) but which has not yet freed the session is waited for,
    /// briefly, instead of refused: a message sent the moment a run shows as ended is taken.
    pub async fn start_run_after_ended(
        &self,
        session_id: &str,
        text: &str,
    ) -> Result<String, CoreError> {
        let refused = match self.start_run(session_id, text) {
            Err(e) if e.kind == CoreErrorKind::Conflict => e,
            started => return started,
        };
        let Some((other, mut done)) = self.inner.runs.active_in(session_id) else {
            // Freed meanwhile.
            return self.start_run(session_id, text);
        };
        let ended = matches!(
            self.inner.store.run(&other),
            Ok(Some(r)) if !matches!(r.status, p::RunStatus::Running | p::RunStatus::AwaitingApproval)
        );
        if !ended {
            return Err(refused);
        }
        let _ = tokio::time::timeout(limits::RUN_END_WAIT, done.wait_for(|d| *d)).await;
        self.start_run(session_id, text)
    }

    /// Starts a run with the user's message. One active run per session: a second is a
    /// conflict.
    pub fn start_run(&self, session_id: &str, text: &str) -> Result<String, CoreError> {
        if text.trim().is_empty() {
            return Err(fail(CoreErrorKind::Invalid, "the message is empty"));
        }
        if text.chars().count() > limits::MAX_USER_TEXT_CHARS {
            return Err(fail(
                CoreErrorKind::Invalid,
                format!(
                    "the message is longer than {} characters",
                    limits::MAX_USER_TEXT_CHARS
                ),
            ));
        }
        if *self.inner.shutting_down.borrow() {
            return Err(fail(CoreErrorKind::Conflict, "Wisp is shutting down"));
        }
        let session = self.session(session_id)?;
        let sandbox = self.sandbox_for(&session)?;
        let model = self.inner.settings.model();
        // A session's own pick of model wins over Settings' for its runs.
        let model = match session.model.as_deref() {
            Some(name) if name != model.run_model.name => Arc::new(model.asking_for(name)),
            _ => model,
        };
        let run_id = new_id("r");
        let (cancel, cancel_rx) = watch::channel(false);
        let (done_tx, done) = watch::channel(false);
        // The session's one slot is taken first; the run's rows are written after, so no
        // database write waits on (or holds up) another session's run.
        let reserved = self.inner.runs.reserve(
            session_id,
            runs::ActiveRun {
                run_id: run_id.clone(),
                cancel,
                done,
            },
        );
        match reserved {
            Ok(()) => {}
            Err(runs::Busy::Running(other)) => {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    format!(
                        "run {other} is still in progress in this session; wait for it or cancel it"
                    ),
                ));
            }
            Err(runs::Busy::Deleting) => {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    "this session is being deleted",
                ));
            }
            Err(runs::Busy::Undoing) => {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    "an undo is under way in this session; send the message once it has ended",
                ));
            }
        }
        if let Err(e) = self.record_run_start(&session, &run_id, text, &model) {
            self.inner.runs.release(session_id, &run_id);
            let _ = done_tx.send(true);
            return Err(e);
        }
        self.inner.runs.sessions_changed();
        self.inner.emit(
            session_id,
            Some(&run_id),
            p::EventKind::RunStarted {
                text: text.to_owned(),
            },
        );
        // The run's tools: the built-ins, the skills and the MCP tools active now, kept to its
        // end.
        let snapshot = tools::run_snapshot(
            sandbox.is_some(),
            self.run_extras(&session, sandbox.is_some()),
        );
        let ctx = run::RunCtx {
            host: self.clone(),
            session_id: session_id.to_owned(),
            run_id: run_id.clone(),
            text: text.to_owned(),
            tools: snapshot.infos.clone(),
            snapshot,
            sandbox,
            cancel: cancel_rx,
            model,
            caps: tools::Capabilities::of(self),
        };
        let span = tracing::info_span!("run", session = %session_id, run = %run_id);
        tokio::spawn(async move {
            // `drive` frees the session's slot itself, once the run's end is stored.
            tracing::Instrument::instrument(run::drive(ctx), span).await;
            let _ = done_tx.send(true);
        });
        Ok(run_id)
    }

    /// Puts the model under Settings: reads the stored settings and the key (blocking: the OS
    /// secret store may be a D-Bus call), applies them, and checks the connection in the
    /// background. Until this is called the Host uses the client it was started with.
    pub fn configure_model(&self, setup: settings::ModelSetup) -> Result<(), CoreError> {
        self.inner.settings.configure(&self.inner.store, setup)
    }

    /// `GET /api/settings`.
    pub fn settings(&self) -> Result<p::Settings, CoreError> {
        self.inner.settings.view()
    }

    /// `PUT /api/settings`: stores them and applies them from the next run.
    pub fn update_settings(&self, update: p::UpdateSettings) -> Result<p::Settings, CoreError> {
        self.inner.settings.update(&self.inner.store, update)
    }

    /// `PUT /api/settings/api-key`: keeps the key where the person chose (blocking). Refused,
    /// changing nothing, when the OS secret store is chosen and cannot be reached.
    pub fn set_api_key(&self, request: &p::SetApiKey) -> Result<p::Settings, CoreError> {
        self.inner.settings.set_api_key(&self.inner.store, request)
    }

    /// `DELETE /api/settings/api-key` (blocking).
    pub fn delete_api_key(&self) -> Result<p::Settings, CoreError> {
        self.inner.settings.delete_api_key(&self.inner.store)
    }

    /// `POST /api/settings/test`: the check, now; its outcome becomes the model problem.
    pub async fn test_connection(&self) -> p::ConnectionTest {
        self.inner.settings.test_connection().await
    }

    /// The provider and model the next run uses.
    pub fn model_in_use(&self) -> p::RunModel {
        self.inner.settings.model().run_model.clone()
    }

    /// Reads `<data_dir>/mcp-servers.json` (every server disabled, MCP-05) and keeps server
    /// secrets in `secrets`. Without this call the MCP API answers that it is not available.
    pub fn configure_mcp(&self, data_dir: &Path, secrets: Arc<Secrets>) -> Result<(), CoreError> {
        self.inner.mcp.configure(data_dir, secrets)
    }

    /// `GET /api/mcp/servers`.
    pub fn mcp_servers(&self) -> Vec<p::McpServer> {
        self.inner.mcp.servers()
    }

    /// `POST /api/mcp/servers`: a new server, disabled; its variables' values go to the secret
    /// store (or this process) before the config names them.
    pub async fn mcp_add(&self, draft: p::McpServerDraft) -> Result<p::McpServer, CoreError> {
        self.inner.mcp.add(draft).await
    }

    /// `PUT /api/mcp/servers/{id}`: the server is stopped and stays disabled (MCP-05, MCP-08);
    /// the runs using it are cancelled first (MCP-12).
    pub async fn mcp_edit(
        &self,
        id: &str,
        draft: p::McpServerDraft,
    ) -> Result<p::McpServer, CoreError> {
        self.inner.mcp.edit(id, draft, &self.inner.runs).await
    }

    /// `DELETE /api/mcp/servers/{id}`: stops it (cancelling the runs using it) and removes its
    /// stored secrets (MCP-21).
    pub async fn mcp_delete(&self, id: &str) -> Result<(), CoreError> {
        self.inner.mcp.delete(id, &self.inner.runs).await
    }

    /// `POST /api/mcp/servers/{id}/activate`: trust and activate — spawn, handshake, discovery.
    pub async fn mcp_activate(&self, id: &str) -> Result<p::McpServer, CoreError> {
        self.inner.mcp.activate(id).await
    }

    /// `POST /api/mcp/servers/{id}/disable`: stops it; its tools are withdrawn, its pending
    /// approvals void and the runs using it cancelled (MCP-08, MCP-12).
    pub async fn mcp_disable(&self, id: &str) -> Result<p::McpServer, CoreError> {
        self.inner.mcp.disable(id, &self.inner.runs).await
    }

    /// `POST /api/mcp/servers/{id}/refresh`: fetches the tool list again (MCP-07).
    pub async fn mcp_refresh(&self, id: &str) -> Result<p::McpServer, CoreError> {
        self.inner.mcp.refresh(id).await
    }

    /// `GET /api/mcp/import`: servers found in Claude Desktop's, Cursor's and the default
    /// project's VS Code config (blocking: it reads files). Values stay there.
    pub fn mcp_import_list(&self) -> p::McpImportList {
        self.inner
            .mcp
            .import_list(self.default_project_root().as_deref())
    }

    /// `POST /api/mcp/import`: adds the chosen proposals, disabled (MCP-16).
    pub async fn mcp_import(&self, request: p::McpImport) -> Result<Vec<p::McpServer>, CoreError> {
        let project = self.default_project_root();
        self.inner.mcp.import(request, project.as_deref()).await
    }

    /// The folder of the default project, if there is one and it is still authorized.
    fn default_project_root(&self) -> Option<PathBuf> {
        let id = self.inner.projects.default_project()?;
        let projects = self.inner.store.projects().ok()?;
        projects
            .into_iter()
            .find(|p| p.id == id)
            .map(|p| PathBuf::from(p.root))
    }

    /// A run with its steps, calls and approvals.
    pub fn run(&self, id: &str) -> Result<p::Run, CoreError> {
        self.inner
            .store
            .run(id)?
            .ok_or_else(|| fail(CoreErrorKind::NotFound, format!("no run {id}")))
    }

    /// A page of a session's runs, newest first.
    pub fn runs_page(
        &self,
        session_id: &str,
        cursor: Option<&str>,
        limit: Option<u32>,
    ) -> Result<p::RunPage, CoreError> {
        self.session(session_id)?;
        let cursor = match cursor.filter(|c| !c.is_empty()) {
            Some(c) => Some(c.parse::<i64>().map_err(|_| {
                fail(
                    CoreErrorKind::Invalid,
                    "cursor is not one this API gave out",
                )
            })?),
            None => None,
        };
        let limit = limit
            .unwrap_or(limits::DEFAULT_RUNS_PAGE)
            .clamp(1, limits::MAX_RUNS_PAGE);
        let (runs, next) = self.inner.store.runs_page(session_id, cursor, limit)?;
        Ok(p::RunPage {
            runs,
            next_cursor: next.map(|n| n.to_string()),
        })
    }

    /// What undoing the changes of run `run_id` (or of its call `call_id`) would do now: the
    /// plan the person confirms, quoting its digest.
    pub async fn undo_plan(
        &self,
        run_id: &str,
        call_id: Option<&str>,
        undo_id: Option<&str>,
    ) -> Result<p::UndoPlan, CoreError> {
        let (run, sandbox) = self.undo_target(run_id)?;
        let host = self.clone();
        let of = undo::Of::new(call_id, undo_id)?;
        let task = self
            .inner
            .file_tasks
            .spawn(move || undo::plan(&host, &sandbox, &run, &of).map(|p| p.view))?;
        task.await.map_err(|_| {
            fail(
                CoreErrorKind::Internal,
                "the undo plan stopped unexpectedly",
            )
        })?
    }

    /// Undoes what the person confirmed (the plan with `request.digest`): each item re-checked
    /// under the change queue, skipped and named where it changed since. Refused while a run is
    /// in progress in the session.
    pub async fn undo(
        &self,
        run_id: &str,
        request: p::UndoRequest,
    ) -> Result<p::UndoResult, CoreError> {
        let (run, sandbox) = self.undo_target(run_id)?;
        let session_id = run.session_id.clone();
        match self.inner.runs.begin_undo(&session_id) {
            Ok(()) => {}
            Err(runs::Busy::Running(other)) => {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    format!("run {other} is in progress in this session; undo once it has ended"),
                ));
            }
            Err(_) => {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    "another undo is under way in this session",
                ));
            }
        }
        struct Ending<'a>(&'a runs::Runs, &'a str);
        impl Drop for Ending<'_> {
            fn drop(&mut self) {
                self.0.end_undo(self.1);
            }
        }
        let _ending = Ending(&self.inner.runs, &session_id);
        let queue = self.inner.change_queue.clone().lock_owned().await;
        self.authorized_sandbox(Some(&sandbox))
            .map_err(|e| fail(CoreErrorKind::Conflict, e))?;
        let host = self.clone();
        let task = self.inner.file_tasks.spawn(move || {
            let _queue = queue;
            undo::run_undo(&host, &sandbox, &run, &request)
        })?;
        let (result, undoable) = task.await.map_err(|_| {
            fail(
                CoreErrorKind::Internal,
                "the undo stopped unexpectedly; check the files",
            )
        })??;
        self.inner.emit(
            &session_id,
            Some(run_id),
            p::EventKind::RunUndone {
                undo: result.clone(),
                undoable,
            },
        );
        Ok(result)
    }

    /// A run whose changes may be undone, and its project folder.
    fn undo_target(&self, run_id: &str) -> Result<(p::Run, Arc<Sandbox>), CoreError> {
        let run = self.run(run_id)?;
        let session = self.session(&run.session_id)?;
        let sandbox = self.sandbox_for(&session)?.ok_or_else(|| {
            fail(
                CoreErrorKind::Conflict,
                "this session has no authorized project folder",
            )
        })?;
        Ok((run, sandbox))
    }

    /// Settings → Undo as in effect.
    pub fn undo_settings(&self) -> p::UndoSettings {
        lock(&self.inner.undo_limits).settings()
    }

    /// Stores Settings → Undo; they apply to the next change, and changes now past the kept
    /// time are forgotten at once.
    pub fn set_undo_settings(
        &self,
        update: p::UpdateUndoSettings,
    ) -> Result<p::UndoSettings, CoreError> {
        let s = p::UndoSettings::from(update);
        let text = serde_json::to_string(&s)
            .map_err(|_| fail(CoreErrorKind::Internal, "the settings could not be written"))?;
        self.inner.store.put_setting(undo::SETTING, &text)?;
        *lock(&self.inner.undo_limits) = undo::UndoLimits::from(s);
        self.forget_old_changes();
        Ok(self.undo_settings())
    }

    /// Settings → Model's part on long sessions as in effect, with the window Wisp takes for
    /// the model in Settings now.
    pub fn context_settings(&self) -> p::ContextSettings {
        let prefs = lock(&self.inner.context_prefs).clone();
        let model = self.inner.settings.model().run_model.name.clone();
        let facts = self.window_facts(&model);
        let (window, window_source) = context::window_of(&model, facts);
        p::ContextSettings {
            windows: prefs.windows,
            model,
            window,
            window_source,
            refused_above: facts.refused_above.filter(|r| *r <= window),
            spending_warning: prefs.spending_warning,
            stop_at_limit: prefs.stop_at_limit,
            currency: self.inner.settings.currency(),
        }
    }

    /// Stores Settings → Model's part on long sessions; the next request of every session
    /// follows it.
    pub fn set_context_settings(
        &self,
        update: p::UpdateContextSettings,
    ) -> Result<p::ContextSettings, CoreError> {
        let text = serde_json::to_string(&update)
            .map_err(|_| fail(CoreErrorKind::Internal, "the settings could not be written"))?;
        self.inner.store.put_setting(context::SETTING, &text)?;
        *lock(&self.inner.context_prefs) = update;
        Ok(self.context_settings())
    }

    /// What decides `model`'s window now.
    pub(crate) fn window_facts(&self, model: &str) -> context::WindowFacts {
        let set = self
            .inner
            .config
            .context_window
            .or_else(|| lock(&self.inner.context_prefs).windows.get(model).copied());
        context::WindowFacts {
            set,
            provider: lock(&self.inner.provider_windows)
                .get(model)
                .copied()
                .flatten(),
            refused_above: lock(&self.inner.learned_windows).get(model).copied(),
        }
    }

    /// Forgets changes older than the undo retention (and the content only they kept).
    fn forget_old_changes(&self) {
        let retention = lock(&self.inner.undo_limits).retention;
        let retention = i64::try_from(retention.as_millis()).unwrap_or(i64::MAX);
        match self
            .inner
            .store
            .forget_changes_before(now_ms().saturating_sub(retention))
        {
            Ok(0) => {}
            Ok(n) => tracing::info!(changes = n, "changes past the undo retention forgotten"),
            Err(e) => tracing::warn!(error = %e, "old changes not forgotten"),
        }
    }

    /// Cancels a run at any moment (streaming, waiting for approval, executing). It ends as
    /// `cancelled`, which is never fed to the model as a tool error (RUN-06).
    pub fn cancel_run(&self, run_id: &str) -> Result<(), CoreError> {
        let run = self.run(run_id)?;
        if self.inner.runs.cancel(&run.session_id, run_id) {
            Ok(())
        } else {
            Err(fail(
                CoreErrorKind::Conflict,
                format!(
                    "run {run_id} is not in progress (it is {})",
                    wire_name(run.status)
                ),
            ))
        }
    }

    /// The person's decision on an approval. Refused (conflict) unless the approval is pending
    /// in this Host, the digest matches, and (when named) the session matches: an approval is
    /// used once and never survives cancel, completion or restart.
    pub fn decide(&self, approval_id: &str, request: &p::Decide) -> Result<(), CoreError> {
        let mut alternative = false;
        let taken = self.inner.runs.take_approval(approval_id, |found| {
            if request
                .session_id
                .as_deref()
                .is_some_and(|s| s != found.session_id)
            {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    "this approval belongs to another session",
                ));
            }
            let quoted = request.digest.as_bytes();
            alternative = found
                .alternative_digest
                .as_ref()
                .is_some_and(|d| constant_time_eq(d.as_bytes(), quoted));
            if !alternative && !constant_time_eq(found.digest.as_bytes(), quoted) {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    "the digest does not match the arguments awaiting approval; reload and decide again",
                ));
            }
            Ok(())
        })?;
        let Some(pending) = taken else {
            return Err(match self.inner.store.approval(approval_id)? {
                Some(a) => fail(
                    CoreErrorKind::Conflict,
                    format!(
                        "approval {approval_id} is no longer pending (it is {})",
                        wire_name(a.state)
                    ),
                ),
                None => fail(
                    CoreErrorKind::NotFound,
                    format!("no approval {approval_id}"),
                ),
            });
        };
        // The digest quoted says which option the person approved.
        let (state, answer, approved) = match (request.decision, alternative) {
            (p::Decision::Approve, false) => (
                p::ApprovalState::Approved,
                runs::Decided::Approve,
                Some(pending.digest.clone()),
            ),
            (p::Decision::Approve, true) => (
                p::ApprovalState::Approved,
                runs::Decided::ApproveAlternative,
                pending.alternative_digest.clone(),
            ),
            (p::Decision::Reject, _) => (p::ApprovalState::Rejected, runs::Decided::Reject, None),
        };
        let stored = if answer == runs::Decided::ApproveAlternative {
            self.inner
                .store
                .approve_alternative(approval_id, now_ms())?
        } else {
            self.inner
                .store
                .resolve_approval(approval_id, state, now_ms())?
        };
        if !stored {
            return Err(fail(CoreErrorKind::Conflict, "approval already decided"));
        }
        self.inner.emit(
            &pending.session_id,
            Some(&pending.run_id),
            p::EventKind::ApprovalResolved {
                approval_id: approval_id.to_owned(),
                call_id: pending.call_id.clone(),
                state,
                digest: approved,
            },
        );
        // The run may have been cancelled in between; then nothing executes.
        let _ = pending.decide.send(answer);
        Ok(())
    }

    /// Renames a session.
    pub fn rename_session(&self, id: &str, title: &str) -> Result<p::Session, CoreError> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > limits::MAX_TITLE_CHARS {
            return Err(fail(
                CoreErrorKind::Invalid,
                format!("a title has 1 to {} characters", limits::MAX_TITLE_CHARS),
            ));
        }
        self.session(id)?;
        self.inner.store.rename_session(id, title)?;
        self.inner.runs.sessions_changed();
        self.session(id)
    }

    /// `PATCH /api/sessions/{id}`: a new title, a project folder for a session that has none,
    /// pinned or not. Everything is checked before anything changes.
    pub fn update_session(
        &self,
        id: &str,
        request: &p::UpdateSession,
    ) -> Result<p::Session, CoreError> {
        if request.title.is_none()
            && request.project_id.is_none()
            && request.pinned.is_none()
            && request.model.is_none()
        {
            return Err(fail(
                CoreErrorKind::Invalid,
                "give a title, a projectId, pinned, a model, or any of them",
            ));
        }
        let model = match request.model.as_deref() {
            None => None,
            Some("") => Some(None),
            Some(m)
                if m.len() <= p::limits::MAX_MODEL_NAME_CHARS
                    && m.bytes().all(|b| b.is_ascii_graphic()) =>
            {
                Some(Some(m))
            }
            Some(_) => {
                return Err(fail(
                    CoreErrorKind::Invalid,
                    format!(
                        "model: a model name of visible ASCII characters, at most {}; or empty for the model in Settings",
                        p::limits::MAX_MODEL_NAME_CHARS
                    ),
                ));
            }
        };
        let session = self.session(id)?;
        let title = match &request.title {
            Some(t) => {
                let t = t.trim();
                if t.is_empty() || t.chars().count() > limits::MAX_TITLE_CHARS {
                    return Err(fail(
                        CoreErrorKind::Invalid,
                        format!("a title has 1 to {} characters", limits::MAX_TITLE_CHARS),
                    ));
                }
                Some(t.to_owned())
            }
            None => None,
        };
        if let Some(pid) = &request.project_id {
            if session.project_id.is_some() {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    "this session already has a project folder; a session's folder never changes (start a new session for another folder)",
                ));
            }
            if session.active_run_id.is_some() {
                return Err(fail(
                    CoreErrorKind::Conflict,
                    "a run is in progress; attach the folder when it has ended",
                ));
            }
            if self.inner.store.project(pid)?.is_none() {
                return Err(unauthorized_project(pid));
            }
        }
        if let Some(pid) = &request.project_id
            && !self.inner.store.attach_project(id, pid)?
        {
            return Err(fail(
                CoreErrorKind::Conflict,
                "this session already has a project folder",
            ));
        }
        if let Some(t) = title {
            self.inner.store.rename_session(id, &t)?;
        }
        if let Some(pinned) = request.pinned {
            self.inner.store.pin_session(id, pinned.then(now_ms))?;
        }
        if let Some(model) = model {
            self.inner.store.set_session_model(id, model)?;
        }
        self.inner.runs.sessions_changed();
        self.session(id)
    }

    /// `GET /api/search?q=`: the sessions whose title, messages or answers hold `query` (case
    /// folded), newest match first, one hit per session.
    pub fn search_sessions(&self, query: &str) -> Result<p::SearchResults, CoreError> {
        let query = query.trim();
        if query.is_empty() || query.chars().count() > p::limits::MAX_SEARCH_CHARS {
            return Err(fail(
                CoreErrorKind::Invalid,
                format!(
                    "a search has 1 to {} characters besides white space",
                    p::limits::MAX_SEARCH_CHARS
                ),
            ));
        }
        Ok(self
            .inner
            .store
            .search_sessions(query, p::limits::MAX_SEARCH_HITS)?)
    }

    /// Deletes a session with its runs and events, and closes its preview tabs (their pages
    /// without `beforeunload`: nobody is left to answer). Refused while a run is in progress.
    pub fn delete_session(&self, id: &str) -> Result<(), CoreError> {
        self.session(id)?;
        // Marked, not locked, while the rows go: no run starts in it meanwhile.
        if let Err(run) = self.inner.runs.begin_delete(id) {
            return Err(fail(
                CoreErrorKind::Conflict,
                format!("run {run} is in progress; cancel it first"),
            ));
        }
        let deleted = self.inner.store.delete_session(id);
        self.inner.runs.end_delete(id);
        deleted?;
        self.inner.runs.sessions_changed();
        let _ = self.inner.tabs.close_session(id);
        lock(&self.inner.contexts).remove(id);
        Ok(())
    }

    /// A text file of the session's project, through the same sandbox and cap as `files_read`.
    /// Blocking (the server runs it off the async threads); counted as a file task.
    pub fn preview(&self, session_id: &str, path: &str) -> Result<p::Preview, CoreError> {
        let session = self.session(session_id)?;
        let _slot = self.inner.file_tasks.claim()?;
        let sandbox = self.sandbox_for(&session)?.ok_or_else(|| {
            fail(
                CoreErrorKind::Conflict,
                "this session has no authorized project folder",
            )
        })?;
        let read = sandbox.read(path, None, None).map_err(|e| match e.kind {
            wisp_fs::FsErrorKind::NotFound => fail(CoreErrorKind::NotFound, e.message),
            _ => fail(CoreErrorKind::Invalid, e.message),
        })?;
        Ok(p::Preview {
            path: read.path,
            content: read.content,
            size: read.size,
            partial: read.partial,
            sha256: read.sha256,
        })
    }

    /// One folder of the session's project for a workspace tab, through the same sandbox and
    /// cap as `files_list`. Blocking (the server runs it off the async threads); counted as a
    /// file task.
    pub fn folder(&self, session_id: &str, path: Option<&str>) -> Result<p::FolderView, CoreError> {
        let session = self.session(session_id)?;
        let _slot = self.inner.file_tasks.claim()?;
        let sandbox = self.sandbox_for(&session)?.ok_or_else(|| {
            fail(
                CoreErrorKind::Conflict,
                "this session has no authorized project folder",
            )
        })?;
        let listed = sandbox.list(path.unwrap_or(".")).map_err(fs_fail)?;
        Ok(p::FolderView {
            path: listed.path,
            entries: listed
                .entries
                .into_iter()
                .map(|e| p::FolderEntry {
                    name: e.name,
                    kind: e.kind.into(),
                    size: e.size,
                })
                .collect(),
            truncated: listed.truncated,
        })
    }

    /// Events of a session after `after`.
    pub fn events_after(
        &self,
        session_id: &str,
        after: u64,
        limit: u32,
    ) -> Result<Vec<p::Event>, CoreError> {
        self.session(session_id)?;
        Ok(self.inner.store.events_after(session_id, after, limit)?)
    }

    /// Follows the session list: the receiver holds its newest revision and the sessions with
    /// an approval waiting for the person, and is told of every change (a session created,
    /// renamed or deleted, a run started or ended, an approval shown or answered).
    pub fn watch_sessions(&self) -> watch::Receiver<p::SessionsChanged> {
        self.inner.runs.watch_sessions()
    }

    /// Live events of every session; subscribe before replaying so nothing falls between.
    pub fn subscribe(&self) -> broadcast::Receiver<p::Live> {
        self.inner.events.subscribe()
    }

    /// Becomes true when the Host starts shutting down: long-lived streams end on it, so the
    /// server's graceful shutdown is not held open by a connected UI.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.inner.shutting_down.subscribe()
    }

    /// Starts shutting down: no new runs, runs in flight are stopped (they end `interrupted`),
    /// [`Host::stopping`] turns true. Returns at once; [`Host::shutdown`] finishes the job.
    pub fn begin_shutdown(&self) {
        // send_replace: the value must change even when nobody subscribes to it.
        self.inner.shutting_down.send_replace(true);
        self.inner.runs.cancel_all();
    }

    /// Stops taking runs, cancels those in flight and waits for them (bounded) so they end
    /// cleanly, then marks anything still unfinished `interrupted` and checkpoints the store.
    pub async fn shutdown(&self, grace: Duration) {
        self.begin_shutdown();
        let waits = self.inner.runs.done_signals();
        let all = async {
            for mut w in waits {
                let _ = w.wait_for(|d| *d).await;
            }
        };
        let _ = tokio::time::timeout(grace, all).await;
        self.inner.mcp.stop_all().await;
        let stuck = self.inner.file_tasks.running();
        if stuck > 0 {
            // They cannot be stopped; the process exits without them (the binary bounds the
            // runtime's shutdown).
            tracing::warn!(
                stuck,
                "file operations still running at shutdown are abandoned"
            );
        }
        if let Err(e) = self.interrupt_leftovers(&interrupted_error()) {
            tracing::error!(error = %e, "marking runs interrupted at shutdown failed");
        }
        // The preview browser and every process it started go with the Host.
        self.inner.tabs.shutdown().await;
        if let Err(e) = self.inner.store.close() {
            tracing::error!(error = %e, "closing the database failed");
        }
    }

    /// Sets what shows web tabs (before serving): the Host's browser, or none.
    pub fn set_preview(&self, backend: PreviewBackend) {
        self.inner.tabs.set_backend(backend);
    }

    /// `GET /api/sessions/{id}/tabs`: the session's preview tabs in panel order.
    pub async fn tabs(&self, session_id: &str) -> Result<Vec<p::PreviewTab>, CoreError> {
        self.session(session_id)?;
        Ok(self.inner.tabs.list_wire(session_id).await)
    }

    /// `POST /api/sessions/{id}/tabs`: a tab the person opens; it becomes the active one. A
    /// file must be a text file inside the session's authorized folder.
    pub async fn open_tab(
        &self,
        session_id: &str,
        request: p::OpenTab,
    ) -> Result<p::PreviewTab, CoreError> {
        let session = self.session(session_id)?;
        let request = match request {
            p::OpenTab::File { path } => {
                let sandbox = self.sandbox_for(&session)?.ok_or_else(|| {
                    fail(
                        CoreErrorKind::Conflict,
                        "this session has no authorized project folder",
                    )
                })?;
                let checked = tokio::task::spawn_blocking(move || {
                    sandbox.read(&path, Some(0), Some(1)).map(|r| r.path)
                })
                .await
                .map_err(|_| fail(CoreErrorKind::Internal, "the check stopped unexpectedly"))?
                .map_err(|e| match e.kind {
                    wisp_fs::FsErrorKind::NotFound => fail(CoreErrorKind::NotFound, e.message),
                    _ => fail(CoreErrorKind::Invalid, e.message),
                })?;
                p::OpenTab::File { path: checked }
            }
            p::OpenTab::Workspace { path } => p::OpenTab::Workspace {
                path: Some(self.checked_folder(&session, path).await?),
            },
            other => other,
        };
        let id = self.inner.tabs.open(session_id, request).await?;
        self.tab_view(session_id, &id).await
    }

    /// The sandbox's form of a folder of the session's project (absent: its root), if it is
    /// one inside the authorization.
    async fn checked_folder(
        &self,
        session: &p::Session,
        path: Option<String>,
    ) -> Result<String, CoreError> {
        let sandbox = self.sandbox_for(session)?.ok_or_else(|| {
            fail(
                CoreErrorKind::Conflict,
                "this session has no authorized project folder",
            )
        })?;
        let path = path.unwrap_or_else(|| ".".into());
        let listed = tokio::task::spawn_blocking(move || sandbox.list(&path))
            .await
            .map_err(|_| fail(CoreErrorKind::Internal, "the check stopped unexpectedly"))?
            .map_err(fs_fail)?;
        Ok(listed.path)
    }

    /// `POST /api/tabs/{id}/navigate`: the person takes a tab elsewhere in place (another
    /// folder, another address, back, forward, reload); the session's tabs after.
    pub async fn navigate_tab(
        &self,
        tab_id: &str,
        to: p::NavigateTab,
    ) -> Result<Vec<p::PreviewTab>, CoreError> {
        let to = match to {
            p::NavigateTab::Folder { path } => {
                let owner = self
                    .inner
                    .tabs
                    .session_of(tab_id)
                    .ok_or_else(|| fail(CoreErrorKind::NotFound, format!("no tab {tab_id}")))?;
                let session = self.session(&owner)?;
                p::NavigateTab::Folder {
                    path: Some(self.checked_folder(&session, path).await?),
                }
            }
            other => other,
        };
        let session = self.inner.tabs.navigate(tab_id, to).await?;
        Ok(self.inner.tabs.list_wire(&session).await)
    }

    async fn tab_view(&self, session_id: &str, tab_id: &str) -> Result<p::PreviewTab, CoreError> {
        self.inner
            .tabs
            .list_wire(session_id)
            .await
            .into_iter()
            .find(|t| t.tab_id == tab_id)
            .ok_or_else(|| fail(CoreErrorKind::NotFound, format!("no tab {tab_id}")))
    }

    /// `POST /api/tabs/{id}/activate`: the person selects a tab; the session's tabs after.
    pub async fn activate_tab(&self, tab_id: &str) -> Result<Vec<p::PreviewTab>, CoreError> {
        let session = self.inner.tabs.activate(tab_id)?;
        Ok(self.inner.tabs.list_wire(&session).await)
    }

    /// `POST /api/tabs/{id}/move`: the person moves a tab to `index` in its session's order
    /// (past the end: the end); the session's tabs after, the active tab unchanged.
    pub async fn move_tab(
        &self,
        tab_id: &str,
        index: u32,
    ) -> Result<Vec<p::PreviewTab>, CoreError> {
        let index = usize::try_from(index).unwrap_or(usize::MAX);
        let session = self.inner.tabs.move_to(tab_id, index)?;
        Ok(self.inner.tabs.list_wire(&session).await)
    }

    /// `DELETE /api/tabs/{id}`: the person closes a tab.
    pub async fn close_tab(&self, tab_id: &str) -> Result<p::TabClosed, CoreError> {
        let status = self.inner.tabs.close_by_person(tab_id).await?;
        Ok(p::TabClosed { status })
    }

    /// `GET /api/tabs/{id}/screen`: the latest live-view frame of a page of Wisp's browser
    /// (`None`: none yet), its page first fitted to `view` (the panel's width and height in CSS
    /// pixels) when the browser is headless. `NotFound` for any other tab.
    pub async fn tab_screen(
        &self,
        tab_id: &str,
        view: Option<(u32, u32)>,
    ) -> Result<Option<wisp_preview::Frame>, CoreError> {
        self.inner.tabs.screen(tab_id, view).await
    }

    /// `POST /api/tabs/{id}/front`: brings a page of Wisp's browser to the front of its
    /// window. `Conflict` for a tab that is no such page.
    pub async fn bring_tab_to_front(&self, tab_id: &str) -> Result<(), CoreError> {
        self.inner.tabs.front(tab_id).await
    }

    /// `POST /api/dialogs/{id}`: the person's answer to a dialog about a tab.
    pub async fn answer_dialog(&self, dialog_id: &str, accept: bool) -> Result<(), CoreError> {
        self.inner.tabs.answer(dialog_id, accept).await
    }

    /// `POST /api/tickets/{id}/claim`: the UI of `session_id` claims an `open_webpage` ticket
    /// (WEB-03); the URL is shown in the session's web tab, which becomes active. A ticket of
    /// another session is refused and void (409); one that is used, expired, cancelled or from
    /// before a restart names nothing (404).
    pub async fn claim_ticket(
        &self,
        ticket_id: &str,
        session_id: &str,
    ) -> Result<p::TicketClaimed, CoreError> {
        self.inner.tabs.claim_ticket(ticket_id, session_id).await
    }

    /// `POST /api/tickets/{id}/ack`: the UI shows the claimed tab; the call's result becomes
    /// `open_request_accepted` (WEB-04).
    pub fn ack_ticket(&self, ticket_id: &str) -> Result<p::TicketAcked, CoreError> {
        self.inner.tabs.ack_ticket(ticket_id)
    }

    /// The session's `open_webpage` tickets waiting for a claim: an event stream that connects
    /// announces them again, so a UI that reloaded can still claim them.
    pub fn pending_tickets(&self, session_id: &str) -> Vec<p::OpenTicket> {
        self.inner.tabs.pending_tickets(session_id)
    }

    /// The session's dialogs still waiting for the person's answer: an event stream that
    /// connects announces them again, so a UI that showed another session or reloaded shows
    /// them (an answered or expired one is gone).
    pub fn pending_dialogs(&self, session_id: &str) -> Vec<p::Dialog> {
        self.inner.tabs.pending_dialogs(session_id)
    }

    /// The store (tests and the server's diagnostics).
    pub fn store(&self) -> &Store {
        &self.inner.store
    }
}

impl Inner {
    /// Stores an event, then broadcasts it. A store failure is logged: the run goes on, and
    /// what the store holds stays the truth.
    pub(crate) fn emit(&self, session_id: &str, run_id: Option<&str>, kind: p::EventKind) {
        match self.store.append_event(session_id, run_id, now_ms(), &kind) {
            Ok(event) => {
                let _ = self.events.send(p::Live::Event(event));
            }
            Err(e) => tracing::error!(error = %e, session_id, "event not stored"),
        }
    }
}

/// `~` and `~/…` name the person's home folder, as in a shell; other paths are
/// taken as they are. Only the home of the user the Host runs as (`HOME`), never `~other`.
fn expand_home(path: &str) -> Result<std::path::PathBuf, CoreError> {
    let rest = match path.strip_prefix('~') {
        None => return Ok(path.into()),
        Some("") => "",
        Some(r) if r.starts_with('/') => r.trim_start_matches('/'),
        Some(_) => {
            return Err(fail(
                CoreErrorKind::Invalid,
                "only ~/ (your own home folder) is understood, not ~name",
            ));
        }
    };
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .ok_or_else(|| {
            fail(
                CoreErrorKind::Invalid,
                "~ cannot be expanded: HOME is not set",
            )
        })?;
    Ok(Path::new(&home).join(rest))
}

/// A file-system refusal for the API: a missing path is `not_found`, anything else `invalid`.
fn fs_fail(e: wisp_fs::FsError) -> CoreError {
    match e.kind {
        wisp_fs::FsErrorKind::NotFound => fail(CoreErrorKind::NotFound, e.message),
        _ => fail(CoreErrorKind::Invalid, e.message),
    }
}

pub(crate) fn interrupted_error() -> p::RunError {
    p::RunError::new(
        p::FailureKind::Interrupted,
        "Interrupted: Wisp was closed while this run was going. What had already happened is kept and nothing was replayed; Continue lets it go on, Retry sends the same message again.",
    )
}

/// The reason of a run found unfinished when the Host starts: the Host that ran it stopped
/// without ending it (killed, crashed, power lost), unlike a run stopped by a shutdown.
pub(crate) fn found_unfinished_error() -> p::RunError {
    p::RunError::new(
        p::FailureKind::UnfinishedAtStart,
        "Interrupted: Wisp stopped before this run finished (it crashed or was killed; found at start). What had already happened is kept and nothing was replayed; Continue lets it go on, Retry sends the same message again.",
    )
}

pub(crate) fn wire_name<T: serde::Serialize>(v: T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// Compares secrets without an early exit that would leak how much matched.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
