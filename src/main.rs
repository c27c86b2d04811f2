//! `wisp`: the command line. It parses arguments and wires crates together; it has no logic
//! of its own.

#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the binary is the one place that talks to the terminal"
)]

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

mod datadir;
mod doctor;
mod limits;
mod log;
mod open;
mod platform;
mod serve;
mod token;

/// Makes this process non-dumpable, first thing (Linux), so that no other process of the same
/// user — an MCP server, npm, a page's browser — can read its memory or `/proc/PID/environ`
/// (which hold the model key and the API token) or attach a debugger; it also means no core
/// dump. Children start dumpable again at their own exec, as usual. Failing to is not fatal
/// (the kernel always allows it, so this only happens under an unusual seccomp policy): it is
/// said.
fn keep_memory_private() {
    if let Some(warning) = platform::keep_memory_private() {
        eprintln!("wisp: {warning}");
    }
}

/// `wisp --version`: the package version and the commit it was built from (build.rs).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("WISP_COMMIT"), ")");

/// How long the runtime waits for blocking threads once the command has finished.
const RUNTIME_SHUTDOWN_DEADLINE: Duration = Duration::from_secs(2);

/// Wisp: a local host for AI agents that work on a project folder you authorize. With no
/// command it runs `wisp serve`.
#[derive(Parser)]
#[command(name = "wisp", version = VERSION, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start the Host: the local API and UI on 127.0.0.1, with the project folder authorized.
    ///
    /// Prints the UI's URL (it carries the per-launch token) and opens it. Without --simulate
    /// the model is DeepSeek, configured by DEEPSEEK_BASE_URL, DEEPSEEK_MODEL and
    /// DEEPSEEK_API_KEY. WISP_TOKEN (32+ characters, 8+ different ones, not a repeated piece)
    /// fixes the token for scripts. One Host per data dir: a second one says which is running.
    Serve(ServeArgs),
    /// Run the scripted DeepSeek-compatible server alone, for trying clients against it.
    ///
    /// It answers `POST /chat/completions` and `GET /models` like DeepSeek, with scripted
    /// scenarios chosen by markers such as [demo:write] in the latest user message, and
    /// failures chosen by [fault:NAME]. It never calls a real model.
    Sim {
        /// Port on 127.0.0.1 (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Pause between stream events, in milliseconds.
        #[arg(long, default_value_t = 15)]
        pace_ms: u64,
    },
    /// Run a program confined (used by the Host for skill scripts; Linux): no network, and
    /// writes only below the --write folders. Not for direct use.
    #[command(hide = true)]
    Confine {
        /// A folder (and below) the program may write to; repeatable.
        #[arg(long)]
        write: Vec<std::path::PathBuf>,
        /// Only check that confinement works here.
        #[arg(long)]
        probe: bool,
        /// The program and its arguments.
        #[arg(last = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// Start a Chromium-family browser with this process's standard input and output as its
    /// DevTools pipe (used by the Host on Windows, where the pipe is passed as inherited
    /// handles). Not for direct use.
    #[cfg(windows)]
    #[command(hide = true, name = wisp_preview::PIPE_RELAY_COMMAND)]
    BrowserPipe {
        /// The browser and its arguments.
        #[arg(last = true, required = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// Check the configured model endpoint: list the models it offers and say whether the
    /// configured model is among them. Uses what `wisp serve` would: DEEPSEEK_BASE_URL,
    /// DEEPSEEK_MODEL and DEEPSEEK_API_KEY when set, else Settings → Model and the key kept in
    /// the system keyring. Only reads.
    Models {
        /// The data dir whose stored settings to use (default: as for `wisp serve`).
        #[arg(long)]
        data_dir: Option<std::path::PathBuf>,
    },
    /// Check what Wisp needs from this machine and say what to do about each problem: the
    /// data dir (writable, private), a Host already running on it, a Chromium-family browser,
    /// Node.js and npm (for MCP installs), the OS secret store, the model endpoint with the
    /// stored key (as "Test connection"), and free disk space. Exits 1 when something blocks
    /// normal use.
    Doctor {
        /// The data dir to check (default: as for `wisp serve`).
        #[arg(long)]
        data_dir: Option<std::path::PathBuf>,
        /// Print the report as JSON (for scripts).
        #[arg(long)]
        json: bool,
        /// Only print where the log files are, newest first.
        #[arg(long)]
        logs: bool,
    },
}

/// `wisp browser-pipe -- BROWSER ARGS…`: the relay of the DevTools pipe on Windows
/// ([`wisp_preview::relay_browser_pipe`]); exits as the browser did.
#[cfg(windows)]
fn browser_pipe(command: &[std::ffi::OsString]) -> ExitCode {
    let Some((browser, args)) = command.split_first() else {
        eprintln!("wisp browser-pipe: no browser given");
        return ExitCode::from(2);
    };
    match wisp_preview::relay_browser_pipe(browser, args) {
        Ok(status) => status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .map_or(ExitCode::FAILURE, ExitCode::from),
        Err(e) => {
            eprintln!("wisp browser-pipe: {e}");
            ExitCode::from(2)
        }
    }
}

/// [`wisp_core::limits::CARD_RECHECK_INTERVAL`] in milliseconds.
const CARD_RECHECK_MS: u64 = wisp_core::limits::CARD_RECHECK_INTERVAL.as_millis() as u64;

/// `wisp serve` arguments.
#[derive(clap::Args)]
struct ServeArgs {
    /// Use the built-in scripted DeepSeek-compatible server instead of a real model.
    #[arg(long)]
    simulate: bool,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Where the database and log live (default: $XDG_DATA_HOME/wisp or ~/.local/share/wisp).
    /// Created private (0700) when missing; an existing folder keeps its mode.
    #[arg(long)]
    data_dir: Option<std::path::PathBuf>,
    /// Do not open the UI (by default it opens as an app window of the Chromium-family browser
    /// found here when there is a display, else in the default browser).
    #[arg(long)]
    no_open: bool,
    /// Show web tabs as iframes of the UI instead of pages of a browser Wisp drives (listing
    /// works; reading a page, back and forward answer "unsupported").
    #[arg(long)]
    web_only: bool,
    /// With --simulate: pause between streamed pieces, in milliseconds (0 = as fast as possible).
    #[arg(long, default_value_t = 12)]
    sim_pace_ms: u64,
    /// How often a file card waiting for approval is checked against the disk, in
    /// milliseconds: once what it shows changes, it becomes void (0 = checked only when
    /// approved).
    #[arg(long, default_value_t = CARD_RECHECK_MS)]
    card_recheck_ms: u64,
    /// The project folder to authorize; new sessions start in it.
    project_dir: Option<std::path::PathBuf>,
}

fn main() -> ExitCode {
    // `wisp confine` stays dumpable: it writes its own /proc/self/uid_map, which a
    // non-dumpable process cannot. It holds no secret: the Host gave it the allow-listed
    // environment only.
    if std::env::args_os().nth(1).as_deref() != Some("confine".as_ref()) {
        keep_memory_private();
    }
    // Double-clicking wisp.exe (or a launcher that passes nothing) gives no arguments at all:
    // that means the Host, not a usage error in a console window that closes at once.
    let cli = if std::env::args_os().len() <= 1 {
        Cli::parse_from(["wisp", "serve"])
    } else {
        Cli::parse()
    };
    #[cfg(windows)]
    if let Command::BrowserPipe { command } = &cli.command {
        return browser_pipe(command);
    }
    // Before anything else starts a thread: a user namespace needs a single-threaded caller.
    if let Command::Confine {
        write,
        probe,
        command,
    } = cli.command
    {
        let failed = wisp_core::confine::exec_confined(&wisp_core::confine::ConfineArgs {
            write,
            probe,
            command,
        });
        eprintln!("wisp confine: {failed}");
        return ExitCode::from(126);
    }
    if !matches!(cli.command, Command::Serve(_)) {
        tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_env("WISP_LOG")
                    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
            )
            .with_writer(std::io::stderr)
            .init();
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("wisp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => serve::run(args).await,
            Command::Confine { .. } => Ok(()),
            #[cfg(windows)]
            Command::BrowserPipe { .. } => Ok(()),
            Command::Sim { port, pace_ms } => sim(port, pace_ms).await,
            Command::Models { data_dir } => serve::models(data_dir).await,
            Command::Doctor {
                data_dir,
                json,
                logs,
            } => doctor(data_dir, json, logs).await,
        }
    });
    // Dropping the runtime would wait for every blocking thread, and one stuck on a hung file
    // system never returns: bounded, then the process exits without it.
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN_DEADLINE);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The report said it all; no second line on stderr.
        Err(e) if e.is::<DoctorFailed>() => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("wisp: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The exit code says whether something blocks normal use: doctor's "failed" is not an
/// error of doctor itself, so it is carried out of the runtime as a value.
async fn doctor(
    data_dir: Option<std::path::PathBuf>,
    json: bool,
    logs: bool,
) -> anyhow::Result<()> {
    let data_dir = match data_dir {
        Some(d) => d,
        None => platform::default_data_dir()?,
    };
    if logs {
        let files = doctor::log_files(&data_dir);
        if files.is_empty() {
            println!("No log yet in {}", data_dir.display());
        }
        for f in files {
            println!("{}", f.display());
        }
        return Ok(());
    }
    let report = doctor::run(&data_dir).await;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", doctor::render(&report));
    }
    if report.ok {
        Ok(())
    } else {
        Err(DoctorFailed.into())
    }
}

/// A doctor report with a failed check: exit code 1, the report already said why.
#[derive(Debug)]
struct DoctorFailed;

impl std::fmt::Display for DoctorFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("something blocks normal use")
    }
}

impl std::error::Error for DoctorFailed {}

async fn sim(port: u16, pace_ms: u64) -> anyhow::Result<()> {
    let config = wisp_sim::SimConfig {
        pace: Duration::from_millis(pace_ms),
        ..wisp_sim::SimConfig::default()
    };
    let sim = wisp_sim::SimServer::bind(SocketAddr::from(([127, 0, 0, 1], port)), config)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!("Simulated DeepSeek API (no real model is called)");
    println!("  DEEPSEEK_BASE_URL={}", sim.base_url());
    println!("  DEEPSEEK_API_KEY={}", sim.api_key());
    println!("Scenarios:");
    for s in wisp_sim::scenario::SCENARIOS {
        println!("  {:<16} {}", s.marker, s.summary);
    }
    println!("Press Ctrl-C to stop.");
    tokio::signal::ctrl_c().await?;
    Ok(())
}
