//! Latency of Wisp's production MCP client path (`wisp_mcp::Connection`) against a stdio server,
//! and the same measurement of the official TypeScript SDK client in the same run.
//!
//! ```text
//! cargo build --release -p wisp-mcp --bin wisp-mcp-test-server
//! cargo run --release --example mcp_bench -- 10000 target/release/wisp-mcp-test-server
//! cargo run --release --example mcp_bench -- 10000 node tools/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
//! ```
//!
//! It spawns the server, calls its `echo` tool (with its first required string property, `text`
//! or `message`) N times in sequence after a short warm-up, and prints one JSON line: `mean_us`,
//! `p99_us`, `calls_per_s`, then the reference (`@modelcontextprotocol/sdk`'s `Client` over
//! `StdioClientTransport`, `bench/mcp_reference.mjs`, against a fresh process of the same
//! server) and the ratios Wisp / reference (below 1 is faster). The calls are made from a task
//! spawned on a multi-threaded tokio runtime, as the Host makes them; the connection itself runs
//! on its own thread either way. `WISP_BENCH_RUNTIME=current_thread` makes the caller's runtime
//! a current-thread one instead.

// A benchmark reports on the terminal.
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark prints its report"
)]

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use wisp_mcp::{Connection, ServerSpec};

fn main() -> ExitCode {
    // The Host's runtime is multi-threaded, so that is what is measured by default;
    // WISP_BENCH_RUNTIME=current_thread shows what the cross-thread wake-ups cost.
    let mut builder = if std::env::var("WISP_BENCH_RUNTIME").as_deref() == Ok("current_thread") {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcp_bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The Host calls tools from spawned tasks on its workers, not from `block_on`'s thread.
    let measured = runtime.block_on(async {
        tokio::spawn(run())
            .await
            .unwrap_or_else(|e| Err(e.to_string()))
    });
    match measured {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Figures {
    mean_us: f64,
    p99_us: f64,
    calls_per_s: f64,
}

fn figures(mut samples: Vec<Duration>) -> Figures {
    samples.sort();
    let total: Duration = samples.iter().sum();
    let n = samples.len().max(1);
    let p99 = samples[((n * 99).div_ceil(100)).saturating_sub(1).min(n - 1)];
    Figures {
        mean_us: total.as_secs_f64() * 1e6 / n as f64,
        p99_us: p99.as_secs_f64() * 1e6,
        calls_per_s: n as f64 / total.as_secs_f64(),
    }
}

async fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, command, server_args @ ..] = args.as_slice() else {
        return Err("usage: mcp_bench N SERVER_CMD [ARGS...]".into());
    };
    let n: usize = n.parse().map_err(|_| format!("not a number: {n}"))?;
    let mut spec = ServerSpec::new(wisp_mcp::config::new_id(), command, server_args.to_vec());
    spec.cwd = std::env::current_dir().ok();
    let connection = Connection::connect(&spec)
        .await
        .map_err(|e| e.to_string())?;
    let tools = connection.tools();
    let echo = tools
        .tools
        .iter()
        .find(|t| t.original_name == "echo")
        .ok_or("the server has no echo tool")?;
    let property =
        first_required_string(echo.schema.json()).ok_or("echo has no required string")?;
    let call = |i: usize| {
        let arguments = Map::from_iter([(property.clone(), Value::from(format!("hello {i}")))]);
        connection.call(&echo.model_name, arguments, std::future::pending())
    };
    for i in 0..(n / 10).clamp(10, 500) {
        call(i).await.map_err(|e| e.to_string())?;
    }
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        let started = Instant::now();
        let out = call(i).await.map_err(|e| e.to_string())?;
        samples.push(started.elapsed());
        if out.is_error || !out.text.contains("hello") {
            return Err(format!("unexpected echo result: {}", out.text));
        }
    }
    connection.stop().await;
    let wisp = figures(samples);
    let reference = node_reference(n, command, server_args)?;
    println!(
        "{{\"calls\":{n},\"mean_us\":{:.1},\"p99_us\":{:.1},\"calls_per_s\":{:.0},\
         \"reference\":\"@modelcontextprotocol/sdk Client (Node)\",\"reference_mean_us\":{:.1},\
         \"reference_p99_us\":{:.1},\"reference_calls_per_s\":{:.0},\"mean_ratio\":{:.2},\
         \"p99_ratio\":{:.2}}}",
        wisp.mean_us,
        wisp.p99_us,
        wisp.calls_per_s,
        reference.mean_us,
        reference.p99_us,
        reference.calls_per_s,
        wisp.mean_us / reference.mean_us,
        wisp.p99_us / reference.p99_us,
    );
    Ok(())
}

fn first_required_string(schema: &Map<String, Value>) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    schema
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find(|p| properties.get(*p).and_then(|s| s.get("type")) == Some(&Value::from("string")))
        .map(str::to_owned)
}

fn node_reference(n: usize, command: &str, args: &[String]) -> Result<Figures, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/mcp_reference.mjs");
    let out = Command::new("node")
        .arg(script)
        .arg(n.to_string())
        .arg(command)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "node reference failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: Value = serde_json::from_str(text.trim()).map_err(|e| format!("{e}: {text}"))?;
    let get = |k: &str| {
        v.get(k)
            .and_then(Value::as_f64)
            .ok_or(format!("no {k} in {text}"))
    };
    Ok(Figures {
        mean_us: get("mean_us")?,
        p99_us: get("p99_us")?,
        calls_per_s: get("calls_per_s")?,
    })
}
