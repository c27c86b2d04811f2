//! A stdio MCP server of our own, built with rmcp's server side, for wisp-mcp's tests and
//! benchmark. By default a well-behaved server (tools `echo`, `env`, `slow`, `exit`,
//! `oversized`, `content`, `fail`, `add_tool`, `ask_client`; pages of 3 tools); flags make it hostile:
//! `--banner` (junk and broken JSON on stdout first), `--silent` (never answers),
//! `--flood N` (N `list_changed` after initialize), `--tools N` (declares N tools),
//! `--big-schema` (a 1 MB input schema), `--external-ref`, `--stderr-mb N` (N MB to stderr
//! before serving), `--grandchild PIDFILE` (starts `sleep 300` and writes its pid there),
//! `--grow` (every tools/list after the first finds one more tool: a list that changes on refresh),
//! `--echo-delay-ms N` (`echo` answers after N ms: a call still running when it is cancelled),
//! `--echo-mode MODE` (`echo`, the tool `[demo:mcp]` calls, misbehaves: `is-error`, `protocol`
//! (a JSON-RPC error), `exit` (the process exits mid-call), `oversized` (a 2 MB line), `junk`
//! (three broken JSON lines instead of an answer), `not-jsonrpc` (valid JSON that is not
//! JSON-RPC instead of an answer)), `--echo-canary` (`echo`'s text, error or not, ends with the
//! value of `WISP_CANARY`), `--pidfile PATH` (writes its own pid, which is its process group),
//! `--linger` (stays alive after stdin closes: only a signal ends it), `--daemon PIDFILE`
//! (before serving, detaches a daemon the classic way — a child that calls `setsid`, forks
//! the daemon and exits at once — and waits until the daemon wrote its pid there; the
//! daemon sleeps until killed),
//! `--read-parent-environ PATH` (drops its capabilities, reads `/proc/<parent>/environ` and
//! writes what it got, or `refused: …`, to PATH), `--record-input PATH` (every byte read from
//! stdin is also appended to PATH: what the client really sent), `--protocol V1,V2` (the
//! protocol revisions it supports, answering `initialize` with V1 when that has the handshake:
//! `2024-11-05` is an old server, `2026-07-28` one that speaks only the revision without
//! `initialize`, `2023-01-01` one Wisp cannot speak to).

use std::io::Write;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

const PAGE: usize = 3;

#[derive(Clone)]
struct TestServer {
    tools: Arc<Mutex<Vec<Tool>>>,
    flood: usize,
    grow: bool,
    lists: Arc<std::sync::atomic::AtomicUsize>,
    echo_delay: std::time::Duration,
    echo_mode: String,
    echo_canary: bool,
    // Empty: rmcp's default (every revision it knows).
    protocols: Vec<ProtocolVersion>,
}

fn schema(v: Value) -> Arc<Map<String, Value>> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(Map::new()),
    }
}

fn tool(name: &str, description: &str, input: Value) -> Tool {
    Tool::new(name.to_owned(), description.to_owned(), schema(input))
}

fn text_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
}

fn standard_tools() -> Vec<Tool> {
    vec![
        tool("echo", "Echoes the text back", text_schema()),
        tool(
            "env",
            "Returns an environment variable of this process (or all names with name \"*\")",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        ),
        tool(
            "slow",
            "Answers after ms milliseconds",
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"ms": {"type": "integer", "minimum": 0}}, "required": ["ms"]}),
        ),
        tool(
            "exit",
            "Exits the process in the middle of the call",
            json!({"type": "object"}),
        ),
        tool(
            "oversized",
            "Writes a 2 MB line to stdout",
            json!({"type": "object"}),
        ),
        tool(
            "content",
            "Returns every kind of content",
            json!({"type": "object"}),
        ),
        tool(
            "fail",
            "Fails: isError with the text, or a protocol error",
            json!({
                "type": "object",
                "properties": {"text": {"type": "string"}, "protocol": {"type": "boolean"}},
                "required": ["text"]
            }),
        ),
        tool(
            "add_tool",
            "Adds a tool and sends list_changed",
            text_schema(),
        ),
        tool(
            "ask_client",
            "Asks the client for its roots",
            json!({"type": "object"}),
        ),
    ]
}

/// The tools `--extra` adds (after the standard ones, so limits counted on those stay).
fn extra_tools() -> Vec<Tool> {
    vec![
        tool(
            "progress",
            "Reports progress steps times (3 unless given), ms apart (50 unless given), then answers (0 steps: forever)",
            json!({"type": "object",
                   "properties": {"text": {"type": "string"}, "steps": {"type": "integer", "minimum": 0}, "ms": {"type": "integer", "minimum": 0}},
                   "required": ["text"]}),
        ),
        tool(
            "shaped",
            "Answers as the reference servers do: JSON text and structured content, binary, audience",
            text_schema(),
        ),
    ]
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        );
        match self.protocols.first() {
            Some(v) => info.with_protocol_version(v.clone()),
            None => info,
        }
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        if self.protocols.is_empty() {
            std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        } else {
            std::borrow::Cow::Owned(self.protocols.clone())
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        if self.grow
            && start == 0
            && self
                .lists
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                > 0
            && let Ok(mut tools) = self.tools.lock()
        {
            let n = tools.len();
            tools.push(tool(
                &format!("grown_{n}"),
                "appeared on a later list",
                text_schema(),
            ));
        }
        let all = self.tools.lock().map(|t| t.clone()).unwrap_or_default();
        let end = (start + PAGE.max(all.len() / 20)).min(all.len());
        let mut result = ListToolsResult::with_all_items(
            all.get(start..end)
                .map(<[Tool]>::to_vec)
                .unwrap_or_default(),
        );
        result.next_cursor = (end < all.len()).then(|| end.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let arg = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let result = match request.name.as_ref() {
            "echo" => {
                // Even a zero sleep waits for the timer's next millisecond tick: the benchmark
                // would measure that, not the client.
                if !self.echo_delay.is_zero() {
                    tokio::time::sleep(self.echo_delay).await;
                }
                let canary = if self.echo_canary {
                    format!(
                        " (token {})",
                        std::env::var("WISP_CANARY").unwrap_or_default()
                    )
                } else {
                    String::new()
                };
                let said = format!("{}{canary}", arg("text"));
                match self.echo_mode.as_str() {
                    "is-error" => CallToolResult::error(vec![ContentBlock::text(format!(
                        "echo failed on purpose: {said}"
                    ))]),
                    "protocol" => {
                        return Err(ErrorData::new(
                            ErrorCode(-32000),
                            format!("echo refused on purpose: {said}"),
                            None,
                        ));
                    }
                    "exit" => std::process::exit(3),
                    "oversized" => {
                        let line = format!("\"{}\"\n", "x".repeat(2 * 1024 * 1024));
                        write_all_retrying(line.as_bytes()).await;
                        text("never seen")
                    }
                    "junk" | "not-jsonrpc" => {
                        let lines: &[u8] = if self.echo_mode == "junk" {
                            b"{\"jsonrpc\": \"2.0\", \"result\n{broken\nnot json at all\n"
                        } else {
                            b"{\"hello\": \"world\"}\n[1, 2, 3]\n{\"jsonrpc\": \"2.0\", \"id\": \"no-such-request\"}\n"
                        };
                        write_all_retrying(lines).await;
                        std::future::pending::<()>().await;
                        text("never seen")
                    }
                    _ => text(format!("Echo: {said}")),
                }
            }
            "env" => {
                let name = arg("name");
                if name == "*" {
                    let names: Vec<String> = std::env::vars_os()
                        .map(|(k, _)| k.to_string_lossy().into_owned())
                        .collect();
                    text(names.join(","))
                } else {
                    text(std::env::var(&name).unwrap_or_default())
                }
            }
            "slow" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                text("done")
            }
            "exit" => std::process::exit(3),
            "oversized" => {
                let line = format!("\"{}\"\n", "x".repeat(2 * 1024 * 1024));
                write_all_retrying(line.as_bytes()).await;
                text("never seen")
            }
            "content" => {
                let mut r = CallToolResult::success(vec![
                    ContentBlock::text("plain"),
                    ContentBlock::image("AAAA", "image/png"),
                ]);
                r.structured_content = Some(json!({"n": 1}));
                r
            }
            "fail" => {
                if args.get("protocol").and_then(Value::as_bool) == Some(true) {
                    return Err(ErrorData::new(ErrorCode(-32000), arg("text"), None));
                }
                CallToolResult::error(vec![ContentBlock::text(arg("text"))])
            }
            "add_tool" => {
                if let Ok(mut tools) = self.tools.lock() {
                    tools.push(tool(&arg("text"), "added at run time", text_schema()));
                }
                let _ = context.peer.notify_tool_list_changed().await;
                text("added")
            }
            "progress" => {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3);
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(50);
                let token = context.meta.get_progress_token();
                let mut step = 0u64;
                while steps == 0 || step < steps {
                    step += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                    if let Some(token) = &token {
                        let mut p =
                            rmcp::model::ProgressNotificationParam::new(token.clone(), step as f64)
                                .with_message(format!("step {step}"));
                        if steps > 0 {
                            p = p.with_total(steps as f64);
                        }
                        let _ = context.peer.notify_progress(p).await;
                    }
                }
                text(format!(
                    "progressed {steps} steps (token {})",
                    if token.is_some() { "given" } else { "missing" }
                ))
            }
            "shaped" => {
                let data = json!({"entities": [{"name": "a", "observations": ["x", "y"]}], "relations": []});
                let pretty = serde_json::to_string_pretty(&data).unwrap_or_default();
                let for_user: Vec<ContentBlock> = serde_json::from_value(json!([
                    {"type": "text", "text": pretty},
                    {"type": "text", "text": "only for the person to read", "annotations": {"audience": ["user"]}}
                ]))
                .unwrap_or_default();
                let mut r = CallToolResult::success(for_user);
                // A PNG signature and 400 bytes that are not text: 544 characters of base64.
                let bytes: Vec<u8> = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]
                    .into_iter()
                    .chain((0..400u32).map(|i| (i * 131 % 256) as u8))
                    .collect();
                let png = base64(&bytes);
                let mut structured = data.clone();
                structured["thumbnail"] = json!(format!("data:image/png;base64,{png}"));
                structured["raw"] = json!(png);
                r.structured_content = Some(structured);
                r
            }
            "ask_client" => {
                #[expect(
                    deprecated,
                    reason = "the hostile server asks for roots the old way on purpose"
                )]
                let roots = context.peer.list_roots().await;
                let code = |e: &rmcp::ServiceError| match e {
                    rmcp::ServiceError::McpError(e) => e.code.0.to_string(),
                    other => other.to_string(),
                };
                text(format!(
                    "roots: {}",
                    roots.err().as_ref().map(code).unwrap_or("answered".into())
                ))
            }
            other => {
                return Err(ErrorData::invalid_params(format!("no tool {other}"), None));
            }
        };
        Ok(result.into())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        for _ in 0..self.flood {
            let _ = context.peer.notify_tool_list_changed().await;
        }
    }

    async fn on_cancelled(
        &self,
        notification: rmcp::model::CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        let _ = writeln!(std::io::stderr(), "cancelled {:?}", notification.request_id);
    }
}

/// Standard, padded base64.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Writes straight to stdout, which may be in non-blocking mode (see `pipe_out`).
#[cfg(unix)]
async fn write_all_retrying(mut data: &[u8]) {
    use std::os::fd::AsFd;
    let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return;
    };
    let mut raw = std::fs::File::from(fd);
    while !data.is_empty() {
        let written = raw.write(data);
        match written {
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
            Err(_) => return,
        }
    }
}

/// Writes straight to stdout.
#[cfg(windows)]
async fn write_all_retrying(data: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(data).and_then(|()| out.flush());
}

#[cfg(unix)]
fn pipe_in() -> std::io::Result<tokio::net::unix::pipe::Receiver> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned()?;
    tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(fd))
}

#[cfg(unix)]
fn pipe_out() -> std::io::Result<tokio::net::unix::pipe::Sender> {
    use std::os::fd::AsFd;
    let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
    tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(fd))
}

/// A reader that appends every byte it reads to a file (`--record-input`).
struct Tee<R> {
    inner: R,
    copy: std::fs::File,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Tee<R> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut this.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(Ok(())) = polled {
            this.copy.write_all(&buf.filled()[before..])?;
        }
        polled
    }
}

/// What a hostile server of the same user gets when it reads its parent's (the Host's)
/// environment: the text, or `refused: …`. Capabilities go first, so that a test run as root
/// sees what an ordinary process of the person does (root's CAP_SYS_PTRACE reads any process).
#[cfg(target_os = "linux")]
fn parent_environ() -> String {
    use rustix::thread::{CapabilitySet, CapabilitySets, set_capabilities};
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    if let Err(e) = set_capabilities(None, none) {
        return format!("could not drop capabilities: {e}");
    }
    let parent = std::os::unix::process::parent_id();
    match std::fs::read(format!("/proc/{parent}/environ")) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).replace('\0', "\n"),
        Err(e) => format!("refused: {e}"),
    }
}

/// Only Linux has `/proc/<pid>/environ`: another process's environment is not read here.
#[cfg(not(target_os = "linux"))]
fn parent_environ() -> String {
    "refused: this platform has no /proc".into()
}

fn flag_value(args: &[String], flag: &str) -> Option<String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1).cloned())
}

/// `--daemon`'s double fork, by running this program again in two hidden roles: the
/// intermediate (a new session, the daemon started, gone at once: nobody's child is left
/// behind in the server's group or tree) and the daemon itself.
fn detach_daemon(pidfile: &str) -> std::io::Result<()> {
    let me = std::env::current_exe()?;
    let quiet = |c: &mut std::process::Command| {
        c.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
    };
    let mut intermediate = std::process::Command::new(&me);
    intermediate.args(["--daemon-intermediate", pidfile]);
    quiet(&mut intermediate);
    intermediate.spawn()?.wait()?;
    for _ in 0..1000 {
        if std::fs::read_to_string(pidfile).is_ok_and(|s| !s.is_empty()) {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Err(std::io::Error::other("the daemon wrote no pid"))
}

/// The hidden roles of [`detach_daemon`]; true when this process was one of them.
fn daemon_role(args: &[String]) -> std::io::Result<bool> {
    if let Some(pidfile) = flag_value(args, "--daemon-intermediate") {
        #[cfg(unix)]
        rustix::process::setsid()?;
        let mut daemon = std::process::Command::new(std::env::current_exe()?);
        daemon
            .args(["--daemon-sleeper", &pidfile])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // On Windows the daemon asks to leave the server's job (CREATE_BREAKAWAY_FROM_JOB), as
        // a hostile server would; where the job refuses, it starts inside it.
        #[cfg(windows)]
        {
            use std::os::windows::process::CommandExt;
            const BREAKAWAY_FROM_JOB: u32 = 0x0100_0000;
            daemon.creation_flags(BREAKAWAY_FROM_JOB);
            if daemon.spawn().is_ok() {
                return Ok(true);
            }
            daemon.creation_flags(0);
        }
        // Not waited for: this process exits now, and the daemon is an orphan.
        daemon.spawn()?;
        return Ok(true);
    }
    if flag_value(args, "--sleeper").is_some() {
        std::thread::sleep(std::time::Duration::from_secs(300));
        return Ok(true);
    }
    if let Some(pidfile) = flag_value(args, "--daemon-sleeper") {
        // Written whole, then renamed: the server never reads half a pid.
        let partial = format!("{pidfile}.partial");
        std::fs::write(&partial, std::process::id().to_string())?;
        std::fs::rename(&partial, &pidfile)?;
        // Far longer than any test, but bounded: a daemon a failing test left behind does not
        // live on for the rest of the machine's day.
        std::thread::sleep(std::time::Duration::from_secs(600));
        return Ok(true);
    }
    Ok(false)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if daemon_role(&args)? {
        return Ok(());
    }
    let has = |f: &str| args.iter().any(|a| a == f);
    if let Some(pidfile) = flag_value(&args, "--daemon") {
        detach_daemon(&pidfile)?;
    }
    if let Some(mb) = flag_value(&args, "--stderr-mb").and_then(|n| n.parse::<usize>().ok()) {
        let line = format!("{}\n", "e".repeat(1023));
        let mut err = std::io::stderr().lock();
        for _ in 0..mb * 1024 {
            err.write_all(line.as_bytes())?;
        }
    }
    if let Ok(canary) = std::env::var("WISP_CANARY") {
        let _ = writeln!(std::io::stderr(), "starting with token {canary}");
    }
    if let Some(report) = flag_value(&args, "--read-parent-environ") {
        std::fs::write(report, parent_environ())?;
    }
    if let Some(pidfile) = flag_value(&args, "--pidfile") {
        std::fs::write(pidfile, std::process::id().to_string())?;
    }
    if let Some(pidfile) = flag_value(&args, "--grandchild") {
        // This program again, sleeping: `sleep` is not on every platform.
        let child = std::process::Command::new(std::env::current_exe()?)
            .args(["--sleeper", "300"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()?;
        std::fs::write(pidfile, child.id().to_string())?;
    }
    if has("--silent") {
        let mut sink = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut sink).await?;
        return Ok(());
    }
    if has("--banner") {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Test server v1 starting...")?;
        writeln!(out, "{{\"broken\": json")?;
        writeln!(out)?;
    }
    let mut tools = standard_tools();
    if let Some(n) = flag_value(&args, "--tools").and_then(|n| n.parse::<usize>().ok()) {
        tools = (0..n)
            .map(|i| tool(&format!("tool_{i}"), "one of many", text_schema()))
            .collect();
    }
    if has("--extra") {
        tools.extend(extra_tools());
    }
    if let Some(first) = flag_value(&args, "--first")
        && let Some(i) = tools.iter().position(|t| t.name == first)
    {
        let t = tools.remove(i);
        tools.insert(0, t);
    }
    if has("--big-schema") {
        tools.push(tool(
            "big",
            "a schema of 1 MB",
            json!({"type": "object", "description": "d".repeat(1_000_000)}),
        ));
    }
    if has("--external-ref") {
        tools.push(tool(
            "remote_ref",
            "a schema that needs a network fetch",
            json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/schema.json"}}}),
        ));
    }
    let flood = flag_value(&args, "--flood")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let server = TestServer {
        tools: Arc::new(Mutex::new(tools)),
        flood,
        grow: has("--grow"),
        lists: Arc::default(),
        echo_delay: std::time::Duration::from_millis(
            flag_value(&args, "--echo-delay-ms")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
        ),
        echo_mode: flag_value(&args, "--echo-mode").unwrap_or_default(),
        echo_canary: has("--echo-canary"),
        protocols: flag_value(&args, "--protocol")
            .map(|list| {
                list.split(',')
                    .filter_map(|v| serde_json::from_value(Value::String(v.to_owned())).ok())
                    .collect()
            })
            .unwrap_or_default(),
    };
    // Pipes are read and written through epoll, not tokio's blocking-thread stdin, so the
    // server adds as little as it can to what the benchmark measures of the client.
    let record = match flag_value(&args, "--record-input") {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?,
        ),
        None => None,
    };
    #[cfg(unix)]
    let running = match (pipe_in(), pipe_out(), record) {
        (Ok(input), Ok(output), Some(copy)) => {
            server.serve((Tee { inner: input, copy }, output)).await
        }
        (Ok(input), Ok(output), None) => server.serve((input, output)).await,
        _ => {
            server
                .serve((tokio::io::stdin(), tokio::io::stdout()))
                .await
        }
    }
    .map_err(std::io::Error::other)?;
    #[cfg(windows)]
    let running = match record {
        Some(copy) => {
            let input = Tee {
                inner: tokio::io::stdin(),
                copy,
            };
            server.serve((input, tokio::io::stdout())).await
        }
        None => {
            server
                .serve((tokio::io::stdin(), tokio::io::stdout()))
                .await
        }
    }
    .map_err(std::io::Error::other)?;
    let _ = running.waiting().await;
    if has("--linger") {
        std::future::pending::<()>().await;
    }
    Ok(())
}
