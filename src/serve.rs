//! `wisp serve`: wires the store, the model (real or simulated), the runtime and the local
//! API together, then serves until Ctrl-C or SIGTERM.
//!
//! Start-up, in this order, so that bad input or a second instance changes nothing:
//! 1. the token (`token.rs`), the project dir and `WISP_NPM_REGISTRY` are checked before the
//!    data dir exists;
//! 2. the data dir is taken (`datadir.rs`): the exclusive lock on `wisp.lock` before anything
//!    else in it is touched; a second instance names the first and exits (started without
//!    `--no-open`, it first opens the running Host's `open.html`, so the menu entry brings the
//!    running Wisp up); a `wisp.db` that lost its history is refused;
//! 3. `wisp.log` (`log.rs`), the soft open-file limit raised to the hard one, and the MCP
//!    reaper (`wisp_mcp::reaper`) before any child is started;
//! 4. the simulator, always (Settings can switch to it without a restart; `--simulate` pins
//!    it), the store (0600; a damaged one named with what to do, and left as it was),
//!    `Host::start` (leftover runs marked interrupted), the model resolved and checked by
//!    `Host::configure_model` (a dead address, a refused key, an empty balance or a model not
//!    offered becomes the health's model problem), the MCP configs (every server disabled)
//!    and the project folder, authorized;
//! 5. the API on 127.0.0.1, then the UI opened on `open.html` (`open.rs`): the token is on no
//!    command line.
//!
//! Shutdown: `Host::begin_shutdown` ends every event stream (a connected UI would otherwise
//! hold the server open) and stops the runs (they end `interrupted`); the server closes,
//! at most `SHUTDOWN_GRACE` after that (a request stuck in file work must not hold it); then
//! `Host::shutdown` waits for the runs and checkpoints the store, and `main` ends the runtime
//! with a deadline, abandoning a blocking thread stuck on a hung file system.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use wisp_core::{Host, HostConfig, TrashConfig};
use wisp_protocol::Mode;

use crate::ServeArgs;
use crate::datadir::DataDir;

/// How long runs in flight get to end cleanly at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

pub(crate) async fn run(args: ServeArgs) -> anyhow::Result<()> {
    // What can be checked without the data dir comes first: bad input changes nothing.
    let token = crate::token::from_env()?;
    if let Some(dir) = &args.project_dir
        && !dir.is_dir()
    {
        bail!("{} is not a folder", dir.display());
    }
    // A WISP_NPM_REGISTRY that is not loopback is refused here, before the data dir exists
    // (INST-13); install_registry reads it again for the Host.
    wisp_install::Registry::from_env()
        .map_err(|e| anyhow!("{}: {e}", wisp_install::REGISTRY_ENV))?;
    let data_dir = match args.data_dir {
        Some(d) => d,
        None => crate::platform::default_data_dir()?,
    };
    // One Host per data dir: the lock is taken before anything in the dir is touched.
    let mut owned = match DataDir::take(&data_dir) {
        // Started again from the desktop's menu while it runs: the person wants the Wisp
        // that is running, so its page opens (and this start still fails, saying which).
        Err(e) if !args.no_open && e.is::<crate::datadir::AlreadyRunning>() => {
            crate::open::open_ui(&data_dir.join("open.html"), &data_dir);
            return Err(e);
        }
        taken => taken?,
    };
    let db_path = data_dir.join("wisp.db");
    owned.check_store_file(&db_path)?;
    owned.record(None)?;
    init_log(&data_dir)?;
    if let Some(warning) = &owned.warning {
        tracing::warn!("{warning}");
        eprintln!("wisp: warning: {warning}");
    }
    crate::platform::raise_open_file_limit();
    // Before anything is started: an orphan anywhere below the Host (a server's detached
    // daemon) becomes the Host's to end and reap, not init's.
    if let Err(e) = wisp_mcp::reaper::start() {
        tracing::warn!(error = %e, "cannot become the subreaper of the servers started");
    }

    // The simulator always runs beside the Host (loopback, scripted, free), so Settings can
    // switch to it and back without a restart; --simulate pins the provider to it. Kept alive
    // as long as the Host.
    let sim = wisp_sim::SimServer::start(wisp_sim::SimConfig {
        pace: Duration::from_millis(args.sim_pace_ms),
        ..wisp_sim::SimConfig::default()
    })
    .await
    .context("cannot start the simulator")?;
    let secrets = std::sync::Arc::new(open_secrets());
    let setup = wisp_core::ModelSetup {
        simulator: Some(wisp_core::SimEndpoint {
            base_url: sim.base_url(),
            api_key: sim.api_key().to_owned(),
        }),
        pinned_simulation: args.simulate,
        env: wisp_core::EnvModel::from_vars(|name| std::env::var(name).ok()),
        secrets: secrets.clone(),
    };
    let mode = if args.simulate {
        Mode::Simulation
    } else {
        Mode::Live
    };

    // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the same mode.
    crate::datadir::open_private(&db_path)
        .map_err(|e| anyhow!("cannot open the database {}: {e}", db_path.display()))?;
    for f in [data_dir.join("wisp.db-wal"), data_dir.join("wisp.db-shm")] {
        if f.symlink_metadata().is_ok() {
            let _ = crate::datadir::open_private(&f);
        }
    }
    let store = wisp_store::Store::open(&db_path).map_err(|e| match e {
        wisp_store::StoreError::Damaged(detail) => anyhow!(
            "the database {} is damaged ({detail}); Wisp did not change it. Keep a copy of {} (it \
             holds your history), then start Wisp with --data-dir pointing elsewhere to start \
             fresh",
            db_path.display(),
            data_dir.display()
        ),
        e => anyhow!("cannot open the database {}: {e}", db_path.display()),
    })?;
    // files_trash uses the trash of the user running the Host (freedesktop.org: from HOME and
    // XDG_DATA_HOME), the one their file manager shows.
    // The one registry mcp_install_npm may use (INST-13): WISP_NPM_REGISTRY when set (a
    // testing aid, checked like any registry), in simulation the simulator's own demo
    // registry on loopback, otherwise the public npm registry. Kept alive as long as the Host.
    let (npm_registry, _demo_registry) = install_registry(args.simulate).await?;
    let config = HostConfig {
        trash: TrashConfig::from_environment(),
        npm: Some(wisp_install::InstallConfig::new(npm_registry)),
        card_recheck: (args.card_recheck_ms > 0)
            .then(|| Duration::from_millis(args.card_recheck_ms)),
        skills_dirs: skills_dirs(&data_dir),
        // `wisp confine`: this very binary confines a skill's script (Linux).
        confine_helper: std::env::current_exe().ok(),
        skills_import: std::env::home_dir().map(|home| wisp_core::SkillsImport {
            from: home.join(".claude").join("skills"),
            into: data_dir.join("skills"),
        }),
        ..HostConfig::new(mode)
    };
    let host = Host::start(store, None, config).map_err(|e| anyhow!("cannot start: {e}"))?;
    host.set_preview(preview_backend(args.web_only, &data_dir));
    // Reads the stored settings and the key (the OS secret store may answer over D-Bus), then
    // checks the connection in the background: a dead address, a refused key, an empty
    // balance or a model the endpoint does not offer is said up front (health, the UI banner).
    {
        let host = host.clone();
        tokio::task::spawn_blocking(move || host.configure_model(setup))
            .await
            .map_err(|e| anyhow!("cannot start: {e}"))?
            .map_err(|e| anyhow!("cannot start: {e}"))?;
    }
    // Local MCP servers: the list is read, every one disabled; nothing starts (MCP-05).
    host.configure_mcp(&data_dir, secrets)
        .map_err(|e| anyhow!("cannot start: {e}"))?;
    let problem = host.health().problem.map(|p| p.message);
    if let Some(dir) = &args.project_dir {
        let project = host
            .add_project(&std::fs::canonicalize(dir)?.display().to_string())
            .map_err(|e| anyhow!("{}: {e}", dir.display()))?;
        host.set_default_project(&project.id);
    }

    let addr = SocketAddr::from(([127, 0, 0, 1], args.port));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AddrInUse => anyhow!(
                "port {} is already in use; choose another with --port",
                args.port
            ),
            _ => anyhow!("cannot listen on {addr}: {e}"),
        })?;
    let port = listener.local_addr()?.port();
    let app = wisp_server::app(
        host.clone(),
        wisp_server::ApiConfig {
            token: token.clone(),
            port,
        },
    );
    let url = format!("http://127.0.0.1:{port}/#token={token}");
    // For a second instance to name this one; the token stays out of the lock file.
    owned.record(Some(&format!("http://127.0.0.1:{port}/")))?;
    if host.health().mode == Mode::Simulation {
        println!("Wisp is running in SIMULATION mode (scripted model, no key needed).");
    } else if let Some(p) = &problem {
        println!("Wisp is running, but the model cannot be used yet: {p}");
    }
    println!("Open {url}");
    let _ = std::io::stdout().flush();
    tracing::info!(port, ?mode, "wisp serve started");
    // The browser is opened on a private file that redirects to the URL: a command line is
    // visible to every local user (/proc), so the token must not be in one.
    let launch = data_dir.join("open.html");
    write_launch_file(&launch, &url)?;
    if !args.no_open {
        crate::open::open_ui(&launch, &data_dir);
    }

    let stopping = host.clone();
    let shutdown = async move {
        crate::platform::shutdown_signal().await;
        // Ends the event streams (a connected UI would otherwise keep the server open forever)
        // and stops the runs; the rest happens once the server has closed.
        stopping.begin_shutdown();
    };
    // Graceful shutdown waits for requests in flight; one stuck in file work would hold it
    // forever, so the server gets a deadline once the Host is stopping.
    let mut stopped = host.stopping();
    let drain_deadline = async move {
        let _ = stopped.wait_for(|s| *s).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        served = wisp_server::serve(listener, app, shutdown) => served?,
        () = drain_deadline => {
            tracing::warn!("requests still open after the shutdown grace; closing without them");
        }
    }
    host.shutdown(SHUTDOWN_GRACE).await;
    let _ = std::fs::remove_file(&launch);
    tracing::info!("wisp serve stopped");
    Ok(())
}

/// The allowed npm registry, and the simulator's registry when that is the one.
async fn install_registry(
    simulate: bool,
) -> anyhow::Result<(wisp_install::Registry, Option<wisp_sim::npm::NpmRegistry>)> {
    let set = std::env::var(wisp_install::REGISTRY_ENV).is_ok_and(|v| !v.is_empty());
    if set || !simulate {
        let registry = wisp_install::Registry::from_env()
            .map_err(|e| anyhow!("{}: {e}", wisp_install::REGISTRY_ENV))?;
        return Ok((registry, None));
    }
    let demo = wisp_sim::npm::NpmRegistry::start()
        .await
        .context("cannot start the simulator's npm registry")?;
    let registry = wisp_install::Registry::parse(&demo.url())
        .map_err(|e| anyhow!("the simulator's npm registry: {e}"))?;
    tracing::info!(registry = %registry.as_str(), "installs use the simulator's npm registry");
    Ok((registry, Some(demo)))
}

/// Longest wait for the OS secret store to answer when it is first needed; past it values can
/// still be kept for this session.
const SECRET_STORE_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The person's skills folders: `~/.agents/skills` (the folder agent hosts share) and `skills`
/// in the data dir (Wisp's own). Missing folders hold none.
fn skills_dirs(data_dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::env::home_dir()
        .map(|home| home.join(".agents").join("skills"))
        .into_iter()
        .chain([data_dir.join("skills")])
        .collect()
}

/// What shows web tabs: the browser found on this machine (started on first use, its own
/// profile in the data dir so logins persist), or none with `--web-only` or no browser.
fn preview_backend(web_only: bool, data_dir: &std::path::Path) -> wisp_core::PreviewBackend {
    if web_only {
        return wisp_core::PreviewBackend::WebOnly("Wisp runs with --web-only".into());
    }
    match wisp_preview::find_browser() {
        Ok(binary) => {
            tracing::info!(browser = %binary.display(), "preview browser found");
            wisp_core::PreviewBackend::Native(std::sync::Arc::new(wisp_preview::Preview::new(
                wisp_preview::LaunchConfig {
                    binary,
                    profile_dir: data_dir.join("browser-profile"),
                    display: wisp_preview::Display::detect(),
                    host_map: Vec::new(),
                    // Windows: wisp.exe itself hands the DevTools pipe to the browser.
                    relay: std::env::current_exe().ok(),
                },
            )))
        }
        Err(e) => {
            tracing::warn!(error = %e, "no preview browser; web tabs are iframes");
            wisp_core::PreviewBackend::WebOnly(e.to_string())
        }
    }
}

/// The model a Host on `data_dir` would use, resolved the same way (environment, stored
/// settings, the key in the secret store), ready to be checked like "Test connection". Reads
/// only: no lock (a running Host keeps its data dir), nothing created when there is no
/// database yet. Shared by `wisp models` and `wisp doctor`.
pub(crate) async fn model_probe(data_dir: &Path) -> anyhow::Result<LoadedProbe> {
    let db_path = data_dir.join("wisp.db");
    let store = if db_path.is_file() {
        Some(
            wisp_store::Store::open(&db_path)
                .map_err(|e| anyhow!("cannot read the database {}: {e}", db_path.display()))?,
        )
    } else {
        None
    };
    // The simulator, in case Settings chose it: it answers as a Host's would.
    let sim = wisp_sim::SimServer::start(wisp_sim::SimConfig::default())
        .await
        .context("cannot start the simulator")?;
    let setup = wisp_core::ModelSetup {
        simulator: Some(wisp_core::SimEndpoint {
            base_url: sim.base_url(),
            api_key: sim.api_key().to_owned(),
        }),
        pinned_simulation: false,
        env: wisp_core::EnvModel::from_vars(|name| std::env::var(name).ok()),
        secrets: std::sync::Arc::new(open_secrets()),
    };
    let probe =
        tokio::task::spawn_blocking(move || wisp_core::ModelProbe::load(setup, store.as_ref()))
            .await?
            .map_err(|e| anyhow!("{e}"))?;
    Ok(LoadedProbe { probe, _sim: sim })
}

/// A model probe with the simulator it may point at, kept alive while it is checked.
pub(crate) struct LoadedProbe {
    pub(crate) probe: wisp_core::ModelProbe,
    _sim: wisp_sim::SimServer,
}

/// `wisp models`: the models the configured endpoint offers, and whether the configured one
/// is among them.
pub(crate) async fn models(data_dir: Option<PathBuf>) -> anyhow::Result<()> {
    let data_dir = match data_dir {
        Some(d) => d,
        None => crate::platform::default_data_dir()?,
    };
    let loaded = model_probe(&data_dir).await?;
    let probe = &loaded.probe;
    let model = probe.model().clone();
    if model.provider == wisp_protocol::Provider::Simulation {
        println!("Settings → Model chose the built-in simulator (no real model is called).");
    }
    let outcome = probe.check().await;
    for m in &outcome.models {
        let mark = if *m == model.name {
            " (configured)"
        } else {
            ""
        };
        println!("{m}{mark}");
    }
    match outcome.problem {
        Some(problem) if !outcome.ok => Err(anyhow!("{}", problem.message)),
        _ => Ok(()),
    }
}

/// The secret store: the OS one, opened only when a value must be read from or kept in it
/// (MCP-18: with nothing stored there it is never contacted), or why there is none.
/// `WISP_SECRET_STORE=mock` uses keyring-core's in-memory mock store instead: for tests and
/// the API fuzzing run, which must never write to the person's real keyring.
pub(crate) fn open_secrets() -> wisp_secrets::Secrets {
    if mock_secret_store() {
        return wisp_secrets::Secrets::lazy(|| Ok(wisp_secrets::Keyring::mock()));
    }
    wisp_secrets::Secrets::lazy(connect_keyring)
}

/// Connects to the OS secret store within [`SECRET_STORE_CONNECT_TIMEOUT`] (blocking; called
/// from the blocking tasks that need a value). A connection that does not answer in time is
/// left to its thread.
fn connect_keyring() -> Result<wisp_secrets::Keyring, wisp_secrets::SecretError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("wisp-keyring-connect".into())
        .spawn(move || {
            let _ = tx.send(wisp_secrets::Keyring::platform());
        });
    if spawned.is_err() {
        return Err(wisp_secrets::SecretError::Unavailable(
            "the connection attempt could not start".into(),
        ));
    }
    match rx.recv_timeout(SECRET_STORE_CONNECT_TIMEOUT) {
        Ok(keyring) => keyring,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(
            wisp_secrets::SecretError::Unavailable("it did not answer in time".into()),
        ),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(
            wisp_secrets::SecretError::Unavailable("the connection attempt stopped".into()),
        ),
    }
}

/// Whether `WISP_SECRET_STORE=mock` asks for keyring-core's in-memory store.
pub(crate) fn mock_secret_store() -> bool {
    std::env::var("WISP_SECRET_STORE").as_deref() == Ok("mock")
}

/// A page only the user can read (0600, in the 0700 data dir) that sends the browser to `url`.
fn write_launch_file(path: &Path, url: &str) -> anyhow::Result<()> {
    let html = format!(
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\"><title>Wisp</title><a href=\"{url}\">Open Wisp</a>\n"
    );
    let _ = std::fs::remove_file(path);
    let mut file =
        crate::platform::private_file(std::fs::OpenOptions::new().write(true).create_new(true))
            .open(path)
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    file.write_all(html.as_bytes())?;
    Ok(())
}

/// Logs go to `wisp.log` in the data dir, never to the terminal, and never hold secrets, file
/// contents or reasoning (nothing in the code logs them).
/// It is size-capped and rotated (`crate::log`).
fn init_log(dir: &Path) -> anyhow::Result<()> {
    let file = crate::log::RotatingLog::open(dir).map_err(|e| {
        anyhow!(
            "cannot open the log {}: {e}",
            dir.join(crate::log::LOG_FILE).display()
        )
    })?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("WISP_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .init();
    Ok(())
}
