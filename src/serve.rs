//! `wisp serve`: wires the store, the model (real or simulated), the runtime and the local
//! API together, then serves until Ctrl-C or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use wisp_core::{Host, HostConfig};
use wisp_protocol::Mode;

use crate::ServeArgs;

/// Shortest `WISP_TOKEN` accepted.
const MIN_TOKEN_CHARS: usize = 32;

/// How long runs in flight get to end cleanly at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

pub(crate) async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let data_dir = match args.data_dir {
        Some(d) => d,
        None => default_data_dir()?,
    };
    prepare_data_dir(&data_dir)?;
    init_log(&data_dir)?;
    let token = token()?;

    if let Some(dir) = &args.project_dir
        && !dir.is_dir()
    {
        bail!("{} is not a directory", dir.display());
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
    let secrets = open_secrets().await;
    let setup = wisp_core::ModelSetup {
        simulator: Some(wisp_core::SimEndpoint {
            base_url: sim.base_url(),
            api_key: sim.api_key().to_owned(),
        }),
        pinned_simulation: args.simulate,
        env: wisp_core::EnvModel::from_vars(|name| std::env::var(name).ok()),
        secrets: std::sync::Arc::new(secrets),
    };
    let mode = if args.simulate {
        Mode::Simulation
    } else {
        Mode::Live
    };

    let db_path = data_dir.join("wisp.db");
    // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the same mode.
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&db_path)
            .map_err(|e| anyhow!("cannot open the database {}: {e}", db_path.display()))?;
    }
    for f in [
        db_path.clone(),
        data_dir.join("wisp.db-wal"),
        data_dir.join("wisp.db-shm"),
    ] {
        if f.exists() {
            let _ = std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600));
        }
    }
    let store = wisp_store::Store::open(&db_path)
        .map_err(|e| anyhow!("cannot open the database {}: {e}", db_path.display()))?;
    let host = Host::start(store, None, None, HostConfig::new(mode))
        .map_err(|e| anyhow!("cannot start: {e}"))?;
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
    let problem = host.health().model_problem;
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
        // Best effort: a machine without a desktop simply has no opener.
        let _ = std::process::Command::new("xdg-open")
            .arg(&launch)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
    }

    let stopping = host.clone();
    let shutdown = async move {
        shutdown_signal().await;
        // Ends the event streams (a connected UI would otherwise keep the server open forever)
        // and stops the runs; the rest happens once the server has closed.
        stopping.begin_shutdown();
    };
    wisp_server::serve(listener, app, shutdown).await?;
    host.shutdown(SHUTDOWN_GRACE).await;
    let _ = std::fs::remove_file(&launch);
    tracing::info!("wisp serve stopped");
    Ok(())
}

/// Longest wait for the OS secret store to answer at start; past it the key can still be
/// kept for this session.
const SECRET_STORE_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The OS secret store, or why there is none. `WISP_SECRET_STORE=mock` uses keyring-core's
/// in-memory mock store instead: for tests and the API fuzzing run, which must never write to
/// the person's real keyring.
async fn open_secrets() -> wisp_secrets::Secrets {
    if std::env::var("WISP_SECRET_STORE").as_deref() == Ok("mock") {
        return wisp_secrets::Secrets::new(Ok(wisp_secrets::Keyring::mock()));
    }
    let connect = tokio::task::spawn_blocking(wisp_secrets::Keyring::platform);
    let keyring = match tokio::time::timeout(SECRET_STORE_CONNECT_TIMEOUT, connect).await {
        Ok(Ok(k)) => k,
        Ok(Err(_)) => Err(wisp_secrets::SecretError::Unavailable(
            "the connection attempt stopped".into(),
        )),
        Err(_) => Err(wisp_secrets::SecretError::Unavailable(
            "it did not answer in time".into(),
        )),
    };
    if let Err(e) = &keyring {
        tracing::info!(error = %e, "no OS secret store; keys can be kept for this session only");
    }
    wisp_secrets::Secrets::new(keyring)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

/// A page only the user can read (0600, in the 0700 data dir) that sends the browser to `url`.
fn write_launch_file(path: &Path, url: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let html = format!(
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\"><title>Wisp</title><a href=\"{url}\">Open Wisp</a>\n"
    );
    let _ = std::fs::remove_file(path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    file.write_all(html.as_bytes())?;
    Ok(())
}

fn default_data_dir() -> anyhow::Result<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(x).join("wisp"));
    }
    let home = std::env::var_os("HOME")
        .ok_or_else(|| anyhow!("neither XDG_DATA_HOME nor HOME is set; pass --data-dir"))?;
    Ok(PathBuf::from(home).join(".local/share/wisp"))
}

/// Creates the data dir private to the user (0700) and checks it is writable.
fn prepare_data_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| anyhow!("cannot create the data dir {}: {e}", dir.display()))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| anyhow!("cannot make the data dir {} private: {e}", dir.display()))?;
    let probe = dir.join(".write-test");
    std::fs::write(&probe, b"")
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| anyhow!("the data dir {} is not writable: {e}", dir.display()))?;
    Ok(())
}

/// Logs go to `wisp.log` in the data dir, never to the terminal, and never hold secrets, file
/// contents or reasoning (nothing in the code logs them).
fn init_log(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join("wisp.log");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| anyhow!("cannot open the log {}: {e}", path.display()))?;
    let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
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

fn token() -> anyhow::Result<String> {
    if let Ok(t) = std::env::var("WISP_TOKEN") {
        if t.chars().count() < MIN_TOKEN_CHARS || !t.bytes().all(|b| b.is_ascii_graphic()) {
            bail!("WISP_TOKEN must be at least {MIN_TOKEN_CHARS} visible ASCII characters");
        }
        return Ok(t);
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow!("no random source for the token: {e}"))?;
    Ok(hex::encode(bytes))
}
