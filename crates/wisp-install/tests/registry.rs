//! A static npm registry on loopback for the tests: packuments (`GET /<name>`) with
//! `dist.tarball` + `dist.integrity`, tarballs the test packed with the real `npm pack`, extra
//! files at any path, a stalling mode that accepts connections and never answers, and an https
//! mode with a certificate from the test's own CA. And what the tests share beside it: a data
//! dir, and the start of a server it installed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use wisp_test_support::Reply;

/// A package the test packed: its tarball bytes and the integrity `npm pack` computed.
pub struct Packed {
    pub manifest: Value,
    pub tarball: Vec<u8>,
    pub integrity: String,
}

/// Writes `files` into a temp dir and runs `npm pack` there (scripts off, its own cache).
pub fn pack(manifest: &Value, files: &[(&str, &str)]) -> Packed {
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("package.json"), manifest.to_string()).unwrap();
    for (name, text) in files {
        let p = src.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let npm = wisp_install::find_tool("npm").expect("npm in the fixed directories");
    let (tarball, integrity) = wisp_test_support::npm_pack(&npm, &src);
    Packed {
        manifest: manifest.clone(),
        tarball,
        integrity,
    }
}

/// The demo MCP server package from `demo-package/`, packed.
pub fn demo_package() -> Packed {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-package");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    let server = std::fs::read_to_string(dir.join("server.js")).unwrap();
    pack(&manifest, &[("server.js", &server)])
}

#[derive(Default)]
struct State {
    routes: HashMap<String, (String, Vec<u8>)>,
    redirects: HashMap<String, String>,
    stall_under: Vec<String>,
}

/// The publish time every published version has.
pub const PUBLISHED: &str = "2026-09-01T22:46:36.382Z";

/// The running registry.
pub struct TestRegistry {
    pub url: String,
    pub port: u16,
    state: Arc<Mutex<State>>,
    pub requests: Arc<AtomicUsize>,
    connections: Arc<AtomicUsize>,
}

impl TestRegistry {
    /// Starts on 127.0.0.1 (an ephemeral port). With `stall`, every request is read and never
    /// answered, the connection held open.
    pub async fn start(stall: bool) -> Self {
        Self::start_with(stall, None).await
    }

    /// Starts an https registry whose certificate `acceptor` holds.
    pub async fn start_tls(acceptor: tokio_rustls::TlsAcceptor) -> Self {
        Self::start_with(false, Some(acceptor)).await
    }

    async fn start_with(stall: bool, tls: Option<tokio_rustls::TlsAcceptor>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(State::default()));
        let requests = Arc::new(AtomicUsize::new(0));
        let connections = Arc::new(AtomicUsize::new(0));
        let (st, count, accepted) = (state.clone(), requests.clone(), connections.clone());
        let scheme = if tls.is_some() { "https" } else { "http" };
        tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    break;
                };
                accepted.fetch_add(1, Ordering::SeqCst);
                let (st, count, tls) = (st.clone(), count.clone(), tls.clone());
                tokio::spawn(async move {
                    match tls {
                        None => serve(socket, st, count, stall).await,
                        Some(acceptor) => {
                            if let Ok(socket) = acceptor.accept(socket).await {
                                serve(socket, st, count, stall).await;
                            }
                        }
                    }
                });
            }
        });
        Self {
            url: format!("{scheme}://127.0.0.1:{port}/"),
            port,
            state,
            requests,
            connections,
        }
    }

    /// How many TCP connections were accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// How many requests arrived so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    #[cfg(unix)]
    /// Requests under `prefix` are read and never answered.
    pub fn stall_under(&self, prefix: &str) {
        self.state
            .lock()
            .unwrap()
            .stall_under
            .push(prefix.to_owned());
    }

    /// Serves `body` at `path`.
    pub fn file(&self, path: &str, ctype: &str, body: Vec<u8>) {
        self.state
            .lock()
            .unwrap()
            .routes
            .insert(path.to_owned(), (ctype.to_owned(), body));
    }

    /// Answers `path` with a redirect to `location`.
    pub fn redirect(&self, path: &str, location: &str) {
        self.state
            .lock()
            .unwrap()
            .redirects
            .insert(path.to_owned(), location.to_owned());
    }

    /// The registry's own tarball URL of a package version.
    pub fn tarball_url(&self, name: &str, version: &str) -> String {
        let base = name.rsplit('/').next().unwrap();
        format!("{}{name}/-/{base}-{version}.tgz", self.url)
    }

    /// Publishes a packed package: its packument (with the version's publish time
    /// [`PUBLISHED`]), the version's own document and its tarball at the registry's own
    /// paths, with `dist.tarball` set to `tarball` when given (a hostile packument) or the own
    /// URL.
    pub fn publish(&self, packed: &Packed, tarball: Option<String>) {
        let name = packed.manifest["name"].as_str().unwrap().to_owned();
        let version = packed.manifest["version"].as_str().unwrap().to_owned();
        let own = self.tarball_url(&name, &version);
        let mut doc = packed.manifest.clone();
        doc["dist"] = json!({
            "tarball": tarball.unwrap_or_else(|| own.clone()),
            "integrity": packed.integrity,
        });
        self.file(
            &format!("/{name}/{version}"),
            "application/json",
            doc.to_string().into_bytes(),
        );
        let packument = json!({
            "name": name,
            "dist-tags": {"latest": version},
            "versions": {version.clone(): doc},
            "time": {version.clone(): PUBLISHED},
        });
        self.file(
            &format!("/{name}"),
            "application/json",
            packument.to_string().into_bytes(),
        );
        let path = own
            .strip_prefix(self.url.trim_end_matches('/'))
            .unwrap()
            .to_owned();
        self.file(&path, "application/octet-stream", packed.tarball.clone());
    }
}

/// Answers requests on one connection (keep-alive) from the routes.
async fn serve(
    socket: impl AsyncRead + AsyncWrite + Unpin,
    st: Arc<Mutex<State>>,
    count: Arc<AtomicUsize>,
    stall: bool,
) {
    wisp_test_support::keep_alive(socket, |head| {
        count.fetch_add(1, Ordering::SeqCst);
        let path = wisp_test_support::request_path(head);
        let st = st.lock().unwrap();
        if stall || st.stall_under.iter().any(|p| path.starts_with(p.as_str())) {
            return Reply::Hold;
        }
        if let Some(location) = st.redirects.get(&path) {
            return Reply::Send {
                status: "302 Found".into(),
                headers: format!("location: {location}\r\n"),
                body: Vec::new(),
            };
        }
        let (status, ctype, body) = match st.routes.get(&path).cloned() {
            Some((ctype, body)) => ("200 OK", ctype, body),
            None => (
                "404 Not Found",
                "application/json".into(),
                b"{\"error\":\"not found\"}".to_vec(),
            ),
        };
        Reply::Send {
            status: status.into(),
            headers: format!("content-type: {ctype}\r\n"),
            body,
        }
    })
    .await;
}

/// A data dir for one test.
pub fn data_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    (dir, path)
}

/// Starts the installed `server` for MCP over its stdio: its command and arguments with an
/// environment of `env` only, stdin and stdout piped, stderr dropped.
pub fn spawn_installed(
    server: &wisp_install::InstalledServer,
    env: &[(&str, &Path)],
) -> std::process::Child {
    std::process::Command::new(&server.command)
        .args(&server.args)
        .env_clear()
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}
