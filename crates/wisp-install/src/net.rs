//! What npm may reach, and how (INST-13, INST-14): a filtering proxy on loopback that every npm
//! step of an install is forced through, the machine's trust (the system CA bundle and the
//! person's `NODE_EXTRA_CA_CERTS`) and the person's proxy (`HTTPS_PROXY`, `HTTP_PROXY`,
//! `NO_PROXY`), taken from an allow-list of variables and nothing else.
//!
//! The proxy accepts exactly `CONNECT <registry host>:<registry port>` (an https registry) or,
//! for an http registry (loopback only, for tests and the simulator), absolute-form requests
//! to the registry's origin. Everything else is answered `403` before any connection is made,
//! and recorded, so the install can say which host npm tried. A tunnel to the registry goes
//! through the person's proxy (a `CONNECT` to it) unless `NO_PROXY` names the registry; the
//! TLS inside the tunnel is npm's own, end to end, checked against the trust given to Node.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::{Host, Url};

use crate::InstallError;
use crate::limits::{MAX_CA_FILE_BYTES, MAX_PROXY_HEAD_BYTES, PROXY_CONNECT_TIMEOUT};
use crate::registry::Registry;

/// The variables read from the person's environment, and no other (either case).
pub const ALLOWED_ENV: &[&str] = &[
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
];

/// Where Linux distributions keep the system CA bundle, in the order OpenSSL's probe
/// (openssl-probe, used by rustls-native-certs) tries them.
pub const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/cacert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// The trust and proxy an install's npm gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetConfig {
    /// The person's proxy for https (`https_proxy`, `HTTPS_PROXY`, then `http_proxy`,
    /// `HTTP_PROXY`, as npm documents), as given.
    pub upstream_proxy: Option<String>,
    /// `no_proxy` / `NO_PROXY`, split at commas.
    pub no_proxy: Vec<String>,
    /// The system CA bundle: `SSL_CERT_FILE`, else the first of [`SYSTEM_CA_BUNDLES`] present.
    /// Windows and macOS have no bundle file: without `SSL_CERT_FILE`, their system store is
    /// read instead (see [`NetConfig::ca_pem`]).
    pub system_ca: Option<PathBuf>,
    /// `NODE_EXTRA_CA_CERTS`, trusted in addition.
    pub extra_ca: Option<PathBuf>,
}

impl NetConfig {
    /// From this process's environment (only [`ALLOWED_ENV`]) and the system bundle's place.
    pub fn from_env() -> Self {
        Self::from_vars(|name| std::env::var(name).ok(), |p| p.is_file())
    }

    /// From `var` (a variable's value) and `exists` (whether a bundle path is a file).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>, exists: impl Fn(&Path) -> bool) -> Self {
        let get = |names: &[&str]| {
            names
                .iter()
                .filter_map(|n| var(n))
                .map(|v| v.trim().to_owned())
                .find(|v| !v.is_empty())
        };
        let upstream_proxy = get(&["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"]);
        let no_proxy = get(&["no_proxy", "NO_PROXY"])
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let system_ca = match get(&["SSL_CERT_FILE"]) {
            Some(file) => Some(PathBuf::from(file)),
            None => SYSTEM_CA_BUNDLES
                .iter()
                .map(PathBuf::from)
                .find(|p| exists(p)),
        };
        Self {
            upstream_proxy,
            no_proxy,
            system_ca,
            extra_ca: get(&["NODE_EXTRA_CA_CERTS"]).map(PathBuf::from),
        }
    }

    /// Whether `NO_PROXY` exempts `host:port` from the person's proxy: `*`, the host itself,
    /// a parent domain (`example.com`, `.example.com`, `*.example.com`), an IP address, each
    /// optionally with `:port`.
    pub fn bypasses_proxy(&self, host: &str, port: u16) -> bool {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        self.no_proxy.iter().any(|entry| {
            let entry = entry.to_ascii_lowercase();
            if entry == "*" {
                return true;
            }
            let (name, entry_port) = split_port(&entry);
            if entry_port.is_some_and(|p| p != port) {
                return false;
            }
            let name = name
                .trim_start_matches("*.")
                .trim_start_matches('.')
                .trim_start_matches('[')
                .trim_end_matches(']');
            if name.is_empty() {
                return false;
            }
            match (name.parse::<IpAddr>(), host.parse::<IpAddr>()) {
                (Ok(a), Ok(b)) => a == b,
                (Ok(_), Err(_)) | (Err(_), Ok(_)) => false,
                (Err(_), Err(_)) => host == name || host.ends_with(&format!(".{name}")),
            }
        })
    }

    /// The PEM file Node is given as `NODE_EXTRA_CA_CERTS`: the system bundle and the person's
    /// extra certificates, concatenated into `dir/wisp-ca.pem`. Node adds these to its own
    /// roots. None when there is nothing to add.
    pub fn write_node_ca_file(&self, dir: &Path) -> Result<Option<PathBuf>, InstallError> {
        let pem = self.ca_pem()?;
        if pem.is_empty() {
            return Ok(None);
        }
        let path = dir.join(NODE_CA_FILE);
        std::fs::write(&path, pem)
            .map_err(|e| InstallError::Io(format!("{}: {e}", path.display())))?;
        Ok(Some(path))
    }

    /// The certificates Node is given, as PEM text (empty when there are none); a file that is
    /// named but cannot be read is an error that names it.
    pub fn ca_pem(&self) -> Result<String, InstallError> {
        let mut pem = String::new();
        if self.system_ca.is_none() {
            pem.push_str(&system_store_pem()?);
        }
        for (what, file) in [
            ("the system CA bundle", &self.system_ca),
            ("NODE_EXTRA_CA_CERTS", &self.extra_ca),
        ] {
            // Machines often point NODE_EXTRA_CA_CERTS at the system bundle itself.
            let again = what == "NODE_EXTRA_CA_CERTS" && file == &self.system_ca;
            if let Some(file) = file.as_ref().filter(|_| !again) {
                pem.push_str(&read_pem(what, file)?);
                pem.push('\n');
            }
        }
        Ok(pem)
    }
}

/// How many refused targets one proxy remembers for the error message.
const MAX_REFUSED_RECORDED: usize = 8;

/// The name of the CA file written into the install dir.
pub const NODE_CA_FILE: &str = "wisp-ca.pem";

fn read_pem(what: &str, file: &Path) -> Result<String, InstallError> {
    let bad = |why: String| {
        InstallError::Network(format!(
            "{what} at {} cannot be used: {why}",
            file.display()
        ))
    };
    let meta = std::fs::metadata(file).map_err(|e| bad(e.to_string()))?;
    if meta.len() > MAX_CA_FILE_BYTES {
        return Err(bad(format!("it is larger than {MAX_CA_FILE_BYTES} bytes")));
    }
    let text = std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?;
    if !text.contains("-----BEGIN CERTIFICATE-----") {
        return Err(bad("it holds no PEM certificate".into()));
    }
    Ok(text)
}

/// An HTTP client for the registry that takes the path npm takes: through a
/// [`RegistryProxy`] (so it reaches the registry and nothing else, through the person's proxy
/// unless NO_PROXY names the registry) and trusting the system's roots plus [`NetConfig`]'s CA
/// files. The proxy runs as long as this value lives.
#[derive(Debug)]
pub struct RegistryClient {
    /// The client; every request goes through the proxy.
    pub client: reqwest::Client,
    proxy: RegistryProxy,
}

impl RegistryClient {
    /// Starts the proxy and builds the client; `timeout` bounds each whole request.
    pub async fn start(
        registry: &Registry,
        net: &NetConfig,
        timeout: std::time::Duration,
    ) -> Result<Self, InstallError> {
        let proxy = RegistryProxy::start(registry, net).await?;
        let bad = |e: reqwest::Error| {
            InstallError::Network(format!("the registry client: {}", with_causes(&e)))
        };
        let origin = registry.origin();
        // The proxy refuses other hosts anyway; the policy says why in the error.
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 5 {
                attempt.error("more than 5 redirects")
            } else if Registry::origin_of(attempt.url()) == origin {
                attempt.follow()
            } else {
                let to = Registry::origin_of(attempt.url());
                attempt.error(format!(
                    "the registry redirected to {to}, which is not the allowed registry"
                ))
            }
        });
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .proxy(reqwest::Proxy::all(proxy.url()).map_err(bad)?)
            .redirect(redirects)
            .user_agent(concat!("wisp/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(timeout)
            .timeout(timeout);
        let pem = net.ca_pem()?;
        if !pem.is_empty() {
            let certs = reqwest::Certificate::from_pem_bundle(pem.as_bytes()).map_err(bad)?;
            builder = trusting(builder, certs)?;
        }
        Ok(Self {
            client: builder.build().map_err(bad)?,
            proxy,
        })
    }

    /// The proxy it goes through (what it refused, whether it is chained).
    pub fn proxy(&self) -> &RegistryProxy {
        &self.proxy
    }
}

/// The system's trust and the given certificates: the platform verifier takes them as extra
/// roots.
#[cfg(not(windows))]
fn trusting(
    builder: reqwest::ClientBuilder,
    certs: Vec<reqwest::Certificate>,
) -> Result<reqwest::ClientBuilder, InstallError> {
    Ok(builder.tls_certs_merge(certs))
}

/// Windows: the platform verifier's extra roots are a chain engine of their own, which Wine's
/// crypt32 refuses and which rustls-platform-verifier documents as behaving differently from
/// the system's own checks. The client verifies as npm will (Node with `NODE_EXTRA_CA_CERTS`):
/// with webpki, over exactly the certificates Node is given, which hold the system store's
/// roots unless `SSL_CERT_FILE` names a bundle instead.
#[cfg(windows)]
fn trusting(
    builder: reqwest::ClientBuilder,
    certs: Vec<reqwest::Certificate>,
) -> Result<reqwest::ClientBuilder, InstallError> {
    Ok(builder.tls_certs_only(certs))
}

/// The system's certificate store as PEM, on the platforms whose trust is a store and not a
/// bundle file (Windows, macOS). Node reads only its own roots and `NODE_EXTRA_CA_CERTS`, so
/// without this a workplace's CA, installed in the system store by its IT, would be trusted
/// by every program but npm. A root webpki cannot read is left out (stores hold old and odd
/// certificates); a store that cannot be read at all is an error, not silently Node's roots.
#[cfg(any(windows, target_os = "macos"))]
fn system_store_pem() -> Result<String, InstallError> {
    use base64::Engine as _;
    let native = rustls_native_certs::load_native_certs();
    if native.certs.is_empty() {
        let why: Vec<String> = native.errors.iter().map(ToString::to_string).collect();
        return Err(InstallError::Network(format!(
            "the system's certificate store could not be read ({}); set SSL_CERT_FILE to a CA \
             bundle",
            why.join("; ")
        )));
    }
    let mut pem = String::new();
    for der in native.certs {
        if rustls::RootCertStore::empty().add(der.clone()).is_err() {
            continue;
        }
        let text = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
        pem.push_str("-----BEGIN CERTIFICATE-----\n");
        for start in (0..text.len()).step_by(64) {
            pem.push_str(&text[start..text.len().min(start + 64)]);
            pem.push('\n');
        }
        pem.push_str("-----END CERTIFICATE-----\n");
    }
    Ok(pem)
}

/// Linux's trust is a bundle file ([`SYSTEM_CA_BUNDLES`]), read as the system CA.
#[cfg(not(any(windows, target_os = "macos")))]
fn system_store_pem() -> Result<String, InstallError> {
    Ok(String::new())
}

/// An error with what caused it (reqwest's own text is often just "builder error").
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn split_port(entry: &str) -> (&str, Option<u16>) {
    // `[::1]:443`, `host:443`; a bare IPv6 address has several colons and no port.
    if let Some((addr, tail)) = entry.strip_prefix('[').and_then(|r| r.split_once(']')) {
        return (addr, tail.strip_prefix(':').and_then(|p| p.parse().ok()));
    }
    match entry.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => match port.parse() {
            Ok(p) => (name, Some(p)),
            Err(_) => (entry, None),
        },
        _ => (entry, None),
    }
}

/// The person's proxy, parsed: where to connect and the `Proxy-Authorization` to send.
#[derive(Debug, Clone)]
struct Upstream {
    addr: String,
    authorization: Option<String>,
}

fn parse_upstream(text: &str) -> Result<Upstream, InstallError> {
    let shown = redact(text);
    let bad = |why: &str| InstallError::Network(format!("the proxy {shown} {why}"));
    // `host:port` without a scheme is common in these variables; it means http.
    let with_scheme = if text.contains("://") {
        text.to_owned()
    } else {
        format!("http://{text}")
    };
    let url = Url::parse(&with_scheme).map_err(|e| bad(&format!("is not a URL ({e})")))?;
    if url.scheme() != "http" {
        return Err(bad(&format!(
            "uses {}://; npm installs through Wisp support only http:// proxies (the TLS to the \
             registry is tunnelled through it)",
            url.scheme()
        )));
    }
    let host = url.host_str().ok_or_else(|| bad("has no host"))?;
    let port = url.port_or_known_default().unwrap_or(80);
    let authorization = if url.username().is_empty() {
        None
    } else {
        let decode = |s: &str| {
            url::form_urlencoded::parse(format!("x={s}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        };
        let user = decode(url.username());
        let pass = decode(url.password().unwrap_or(""));
        Some(format!(
            "Basic {}",
            base64(format!("{user}:{pass}").as_bytes())
        ))
    };
    Ok(Upstream {
        addr: format!("{host}:{port}"),
        authorization,
    })
}

/// The proxy URL without its credentials, for messages and logs.
fn redact(text: &str) -> String {
    match text.split_once('@') {
        Some((before, after)) => match before.split_once("://") {
            Some((scheme, _)) => format!("{scheme}://…@{after}"),
            None => format!("…@{after}"),
        },
        None => text.to_owned(),
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
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

/// What the proxy lets through.
#[derive(Debug)]
struct Rules {
    /// `https` or `http`.
    scheme: String,
    /// The registry's host, lowercase, IPv6 without brackets.
    host: String,
    port: u16,
    /// The registry's origin, for messages.
    origin: String,
    /// The person's proxy, unless NO_PROXY exempts the registry.
    upstream: Option<Upstream>,
    refused: Mutex<Vec<String>>,
}

/// The filtering proxy of one install (or one doctor check); it stops when dropped.
#[derive(Debug)]
pub struct RegistryProxy {
    addr: SocketAddr,
    rules: Arc<Rules>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for RegistryProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl RegistryProxy {
    /// Starts on an ephemeral port of 127.0.0.1, letting through only `registry`, chained to
    /// `net`'s proxy.
    pub async fn start(registry: &Registry, net: &NetConfig) -> Result<Self, InstallError> {
        let url = Url::parse(registry.as_str())
            .map_err(|e| InstallError::Registry(format!("{}: {e}", registry.as_str())))?;
        let host = match url.host() {
            Some(Host::Domain(d)) => d.to_ascii_lowercase(),
            Some(Host::Ipv4(ip)) => ip.to_string(),
            Some(Host::Ipv6(ip)) => ip.to_string(),
            None => return Err(InstallError::Registry("the registry has no host".into())),
        };
        let port = url.port_or_known_default().unwrap_or(443);
        let upstream = match &net.upstream_proxy {
            // An http registry is loopback only: it is always reached directly.
            Some(p) if url.scheme() == "https" && !net.bypasses_proxy(&host, port) => {
                Some(parse_upstream(p)?)
            }
            _ => None,
        };
        let origin = match url.port() {
            Some(p) => format!("{}://{}:{p}", url.scheme(), url.host_str().unwrap_or("")),
            None => format!("{}://{}", url.scheme(), url.host_str().unwrap_or("")),
        };
        let rules = Arc::new(Rules {
            scheme: url.scheme().to_owned(),
            host,
            port,
            origin,
            upstream,
            refused: Mutex::new(Vec::new()),
        });
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| InstallError::Network(format!("cannot start the npm proxy: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| InstallError::Network(format!("cannot start the npm proxy: {e}")))?;
        let served = rules.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, served.clone()));
            }
        });
        tracing::info!(%addr, registry = %rules.origin, chained = rules.upstream.is_some(), "npm proxy started");
        Ok(Self { addr, rules, task })
    }

    /// `http://127.0.0.1:PORT/`, for npm's `proxy` and `https-proxy`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Whether it tunnels through the person's proxy.
    pub fn is_chained(&self) -> bool {
        self.rules.upstream.is_some()
    }

    /// Every target it refused so far (`host:port` or a URL), in order.
    pub fn refused(&self) -> Vec<String> {
        self.rules
            .refused
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }
}

async fn serve(mut client: TcpStream, rules: Arc<Rules>) {
    let Some((head, rest)) = read_head(&mut client).await else {
        return;
    };
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method.eq_ignore_ascii_case("CONNECT") {
        if rules.scheme == "https" && connect_target_allowed(target, &rules) {
            tunnel(client, target, rest, &rules).await;
        } else {
            refuse(&mut client, target, &rules).await;
        }
        return;
    }
    match Url::parse(target) {
        Ok(url) if rules.scheme == "http" && origin_allowed(&url, &rules) => {
            forward(client, &url, lines.collect(), rest, method, &rules).await;
        }
        _ => refuse(&mut client, target, &rules).await,
    }
}

fn connect_target_allowed(target: &str, rules: &Rules) -> bool {
    let (host, port) = split_port(target);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    port == Some(rules.port) && host.eq_ignore_ascii_case(&rules.host)
}

fn origin_allowed(url: &Url, rules: &Rules) -> bool {
    let host = match url.host() {
        Some(Host::Domain(d)) => d.to_ascii_lowercase(),
        Some(Host::Ipv4(ip)) => ip.to_string(),
        Some(Host::Ipv6(ip)) => ip.to_string(),
        None => return false,
    };
    url.scheme() == rules.scheme
        && host == rules.host
        && url.port_or_known_default() == Some(rules.port)
        && url.username().is_empty()
        && url.password().is_none()
}

async fn refuse(client: &mut TcpStream, target: &str, rules: &Rules) {
    let shown: String = target.chars().take(200).collect();
    tracing::warn!(target = %shown, registry = %rules.origin, "npm proxy refused a request");
    if let Ok(mut refused) = rules.refused.lock()
        && refused.len() < MAX_REFUSED_RECORDED
        && !refused.contains(&shown)
    {
        refused.push(shown.clone());
    }
    let body = format!(
        "Wisp lets npm reach only the registry {}; {shown} was refused\n",
        rules.origin
    );
    let reply = format!(
        "HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(reply.as_bytes()).await;
    let _ = client.shutdown().await;
}

async fn connect(addr: &str) -> std::io::Result<TcpStream> {
    match tokio::time::timeout(PROXY_CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
        Ok(r) => r,
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("no connection within {PROXY_CONNECT_TIMEOUT:?}"),
        )),
    }
}

async fn bad_gateway(client: &mut TcpStream, why: &str) {
    tracing::warn!(why, "npm proxy could not reach the registry");
    let body = format!("{why}\n");
    let reply = format!(
        "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(reply.as_bytes()).await;
}

/// `CONNECT` to the registry, directly or through the person's proxy, then bytes both ways.
async fn tunnel(mut client: TcpStream, target: &str, rest: Vec<u8>, rules: &Rules) {
    let server = match &rules.upstream {
        None => match connect(target).await {
            Ok(s) => s,
            Err(e) => return bad_gateway(&mut client, &format!("{target}: {e}")).await,
        },
        Some(up) => match connect_via(up, target).await {
            Ok(s) => s,
            Err(why) => return bad_gateway(&mut client, &why).await,
        },
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .await
        .is_err()
    {
        return;
    }
    splice(client, server, rest).await;
}

/// Opens a tunnel to `target` through the person's proxy.
async fn connect_via(up: &Upstream, target: &str) -> Result<TcpStream, String> {
    let mut server = connect(&up.addr)
        .await
        .map_err(|e| format!("the proxy {}: {e}", up.addr))?;
    let mut request = format!("CONNECT {target} HTTP/1.1\r\nhost: {target}\r\n");
    if let Some(auth) = &up.authorization {
        request.push_str(&format!("proxy-authorization: {auth}\r\n"));
    }
    request.push_str("\r\n");
    server
        .write_all(request.as_bytes())
        .await
        .map_err(|e| format!("the proxy {}: {e}", up.addr))?;
    let Some((head, rest)) = read_head(&mut server).await else {
        return Err(format!("the proxy {} closed the connection", up.addr));
    };
    let status = head.lines().next().unwrap_or("");
    let ok = status
        .split(' ')
        .nth(1)
        .is_some_and(|code| code.starts_with('2'));
    if !ok || !rest.is_empty() {
        return Err(format!(
            "the proxy {} answered CONNECT {target} with {status:?}",
            up.addr
        ));
    }
    Ok(server)
}

/// One absolute-form request to an http registry: sent in origin form with `connection:
/// close` and its body (by `content-length`; a chunked body is refused), and the answer marked
/// `connection: close`. Nothing more the client sends on this connection reaches the
/// registry, so every request npm makes arrives here on a new connection and is checked.
async fn forward(
    mut client: TcpStream,
    url: &Url,
    headers: Vec<&str>,
    rest: Vec<u8>,
    method: &str,
    rules: &Rules,
) {
    let header = |name: &str| {
        headers.iter().find_map(|h| {
            let (n, v) = h.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    };
    if header("transfer-encoding").is_some() {
        return refuse(&mut client, "a chunked request body", rules).await;
    }
    let body_len: u64 = match header("content-length").map(str::parse) {
        None => 0,
        Some(Ok(n)) => n,
        Some(Err(_)) => return refuse(&mut client, "a malformed content-length", rules).await,
    };
    let addr = format!("{}:{}", bracketed(&rules.host), rules.port);
    let mut server = match connect(&addr).await {
        Ok(s) => s,
        Err(e) => return bad_gateway(&mut client, &format!("{addr}: {e}")).await,
    };
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let mut request = format!("{method} {path} HTTP/1.1\r\n");
    for h in &headers {
        let name = h
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !matches!(
            name.as_str(),
            "connection" | "proxy-connection" | "proxy-authorization" | "keep-alive" | ""
        ) {
            request.push_str(h);
            request.push_str("\r\n");
        }
    }
    request.push_str("connection: close\r\n\r\n");
    if server.write_all(request.as_bytes()).await.is_err() {
        return;
    }
    // The body: what came with the head, then the rest of content-length from the client.
    let first = rest
        .len()
        .min(usize::try_from(body_len).unwrap_or(usize::MAX));
    if server.write_all(&rest[..first]).await.is_err() {
        return;
    }
    let remaining = body_len.saturating_sub(first as u64);
    if remaining > 0 {
        let mut body = (&mut client).take(remaining);
        if tokio::io::copy(&mut body, &mut server).await.ok() != Some(remaining) {
            return;
        }
    }
    let Some((head, body_start)) = read_head(&mut server).await else {
        return bad_gateway(&mut client, "the registry closed the connection").await;
    };
    let mut reply = String::new();
    for (i, h) in head.split("\r\n").enumerate() {
        let name = h
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if i == 0 || !matches!(name.as_str(), "connection" | "keep-alive") {
            reply.push_str(h);
            reply.push_str("\r\n");
        }
    }
    reply.push_str("connection: close\r\n\r\n");
    if client.write_all(reply.as_bytes()).await.is_err()
        || client.write_all(&body_start).await.is_err()
    {
        return;
    }
    // The answer until the registry closes, or until the client closes (it does after a
    // `connection: close` answer) or sends anything more, which is not forwarded.
    let (mut client_read, mut client_write) = client.split();
    let mut probe = [0u8; 1];
    tokio::select! {
        _ = tokio::io::copy(&mut server, &mut client_write) => {}
        _ = client_read.read(&mut probe) => {}
    }
}

fn bracketed(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

/// Bytes both ways until either side closes.
async fn splice(mut client: TcpStream, mut server: TcpStream, rest: Vec<u8>) {
    if !rest.is_empty() && server.write_all(&rest).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}

/// Reads up to the end of an HTTP head (at most [`MAX_PROXY_HEAD_BYTES`]); returns the head
/// without its final blank line, and the bytes read after it.
async fn read_head<S: AsyncRead + AsyncWrite + Unpin>(socket: &mut S) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            return Some((head, buf[end + 4..].to_vec()));
        }
        if buf.len() > MAX_PROXY_HEAD_BYTES {
            return None;
        }
        let read = tokio::time::timeout(PROXY_CONNECT_TIMEOUT, socket.read(&mut chunk)).await;
        match read {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return None,
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn the_allow_listed_variables_in_either_case() {
        let net = NetConfig::from_vars(
            vars(&[
                ("HTTPS_PROXY", "http://proxy.corp:3128"),
                ("no_proxy", " localhost, .corp.example ,,"),
                ("NODE_EXTRA_CA_CERTS", "/etc/corp.pem"),
            ]),
            |_| false,
        );
        assert_eq!(
            net.upstream_proxy.as_deref(),
            Some("http://proxy.corp:3128")
        );
        assert_eq!(net.no_proxy, ["localhost", ".corp.example"]);
        assert_eq!(net.extra_ca, Some(PathBuf::from("/etc/corp.pem")));
        assert_eq!(net.system_ca, None);
        // Lowercase wins, like curl; HTTP_PROXY is used when no https proxy is set.
        let net = NetConfig::from_vars(
            vars(&[("HTTPS_PROXY", "http://a:1"), ("https_proxy", "http://b:1")]),
            |_| false,
        );
        assert_eq!(net.upstream_proxy.as_deref(), Some("http://b:1"));
        let net = NetConfig::from_vars(vars(&[("HTTP_PROXY", "http://c:1")]), |_| false);
        assert_eq!(net.upstream_proxy.as_deref(), Some("http://c:1"));
        // Nothing else is read: npm's own variables do not count.
        let net = NetConfig::from_vars(
            vars(&[
                ("npm_config_https_proxy", "http://x:1"),
                ("HTTPS_PROXY", ""),
            ]),
            |_| false,
        );
        assert_eq!(net, NetConfig::default());
    }

    #[test]
    fn the_system_bundle_is_ssl_cert_file_else_the_first_usual_path() {
        let net = NetConfig::from_vars(vars(&[]), |p| {
            p == Path::new("/etc/pki/tls/certs/ca-bundle.crt")
                || p == Path::new("/etc/ssl/cert.pem")
        });
        assert_eq!(
            net.system_ca,
            Some(PathBuf::from("/etc/pki/tls/certs/ca-bundle.crt"))
        );
        let net = NetConfig::from_vars(vars(&[("SSL_CERT_FILE", "/t/bundle.pem")]), |_| true);
        assert_eq!(net.system_ca, Some(PathBuf::from("/t/bundle.pem")));
    }

    #[test]
    fn the_ca_file_holds_the_system_bundle_and_the_extra_certificates_once() {
        let dir = tempfile::tempdir().unwrap();
        let cert =
            |n: &str| format!("-----BEGIN CERTIFICATE-----\n{n}\n-----END CERTIFICATE-----\n");
        let system = dir.path().join("system.pem");
        let extra = dir.path().join("extra.pem");
        std::fs::write(&system, cert("SYSTEM")).unwrap();
        std::fs::write(&extra, cert("EXTRA")).unwrap();
        let net = NetConfig {
            system_ca: Some(system.clone()),
            extra_ca: Some(extra.clone()),
            ..NetConfig::default()
        };
        let file = net.write_node_ca_file(dir.path()).unwrap().unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("SYSTEM") && text.contains("EXTRA"), "{text}");
        let same = NetConfig {
            system_ca: Some(system.clone()),
            extra_ca: Some(system.clone()),
            ..NetConfig::default()
        };
        assert_eq!(same.ca_pem().unwrap().matches("SYSTEM").count(), 1);
        // No bundle at all: nothing for Node on Linux; Windows and macOS give their store.
        let none = NetConfig::default().write_node_ca_file(dir.path()).unwrap();
        assert_eq!(none.is_some(), cfg!(any(windows, target_os = "macos")));
        // A named file that is not a bundle is an error naming it, not silently skipped.
        std::fs::write(&extra, "not a certificate").unwrap();
        let err = net.ca_pem().unwrap_err().to_string();
        assert!(
            err.contains("NODE_EXTRA_CA_CERTS") && err.contains("no PEM certificate"),
            "{err}"
        );
        let missing = NetConfig {
            system_ca: Some(dir.path().join("missing.pem")),
            ..NetConfig::default()
        };
        let err = missing.ca_pem().unwrap_err().to_string();
        assert!(err.contains("the system CA bundle at"), "{err}");
    }

    #[test]
    fn no_proxy_entries() {
        let net = NetConfig {
            no_proxy: [
                "example.com",
                ".corp.test",
                "10.0.0.1",
                "[::1]",
                "reg.x:8443",
            ]
            .map(String::from)
            .to_vec(),
            ..NetConfig::default()
        };
        for (host, port, bypass) in [
            ("example.com", 443, true),
            ("registry.example.com", 443, true),
            ("badexample.com", 443, false),
            ("a.corp.test", 443, true),
            ("corp.test", 443, true),
            ("10.0.0.1", 443, true),
            ("10.0.0.2", 443, false),
            ("[::1]", 443, true),
            ("reg.x", 8443, true),
            ("reg.x", 443, false),
            ("registry.npmjs.org", 443, false),
        ] {
            assert_eq!(net.bypasses_proxy(host, port), bypass, "{host}:{port}");
        }
        let all = NetConfig {
            no_proxy: vec!["*".into()],
            ..NetConfig::default()
        };
        assert!(all.bypasses_proxy("registry.npmjs.org", 443));
    }

    #[test]
    fn upstream_proxies() {
        let up = parse_upstream("http://user:p%40ss@proxy.corp:3128").unwrap();
        assert_eq!(up.addr, "proxy.corp:3128");
        assert_eq!(up.authorization.as_deref(), Some("Basic dXNlcjpwQHNz"));
        assert_eq!(
            parse_upstream("proxy.corp:8080").unwrap().addr,
            "proxy.corp:8080"
        );
        assert_eq!(
            parse_upstream("http://proxy.corp").unwrap().addr,
            "proxy.corp:80"
        );
        let err = parse_upstream("https://u:secret@proxy.corp:443")
            .unwrap_err()
            .to_string();
        assert!(err.contains("only http:// proxies"), "{err}");
        assert!(!err.contains("secret"), "{err}");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
    }

    /// A loopback server that counts accepts and answers each connection's first request.
    async fn counting_server() -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepts = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = accepts.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    let first = String::from_utf8_lossy(&buf[..n])
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_owned();
                    let body = format!("saw {first}");
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = socket.write_all(reply.as_bytes()).await;
                    let _ = socket.read(&mut buf).await;
                });
            }
        });
        (port, accepts)
    }

    /// Whether `text` ends with a whole response: its last head's content-length of body.
    fn complete(text: &str) -> bool {
        let Some(end) = text.rfind("\r\n\r\n") else {
            return false;
        };
        let head = &text[..end];
        let head = &head[head.rfind("HTTP/1.1").unwrap_or(0)..];
        let len = head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        });
        len.is_some_and(|len| text.len() - end - 4 >= len)
    }

    /// Sends `request` through the proxy; reads until the proxy closes or a whole answer
    /// (the tunnelled one, after a CONNECT) arrived.
    async fn ask(proxy: &RegistryProxy, request: &str) -> String {
        let mut socket = TcpStream::connect(proxy.addr).await.unwrap();
        socket.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let mut chunk = [0u8; 4096];
        let read_all = async {
            loop {
                match socket.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => answer.extend_from_slice(&chunk[..n]),
                }
                let text = String::from_utf8_lossy(&answer);
                if text.contains("saw ") && complete(&text) {
                    break;
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(30), read_all)
            .await
            .expect("the proxy neither answered nor closed");
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// The client is built with no bundle file at all (Windows and macOS have none: their
    /// trust is the system's store) and with an extra CA (`NODE_EXTRA_CA_CERTS`, common
    /// behind a TLS-inspecting proxy on any platform), and reaches the registry through its
    /// proxy either way.
    #[tokio::test]
    async fn the_client_builds_with_and_without_a_bundle_file_and_reaches_the_registry() {
        let ca = wisp_test_support::tls::TestCa::new();
        let (port, accepts) = counting_server().await;
        let registry = Registry::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
        for (n, net) in [
            NetConfig::default(),
            NetConfig {
                extra_ca: Some(ca.bundle.clone()),
                ..NetConfig::default()
            },
        ]
        .into_iter()
        .enumerate()
        {
            let client = RegistryClient::start(&registry, &net, std::time::Duration::from_secs(30))
                .await
                .unwrap_or_else(|e| panic!("{net:?}: {e}"));
            let answer = client
                .client
                .get(format!("http://127.0.0.1:{port}/pkg"))
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);
            assert_eq!(accepts.load(std::sync::atomic::Ordering::SeqCst), n + 1);
        }
    }

    /// With no bundle file, Node is given the system store on Windows and macOS (where a
    /// workplace's CA is installed), and nothing on Linux (whose trust is a bundle file).
    #[test]
    fn without_a_bundle_file_node_is_given_the_system_store_on_windows_and_macos() {
        let pem = NetConfig::default().ca_pem().unwrap();
        let certs = reqwest::Certificate::from_pem_bundle(pem.as_bytes()).unwrap();
        if cfg!(any(windows, target_os = "macos")) {
            assert!(!certs.is_empty(), "no certificate of the system store");
            assert_eq!(
                certs.len(),
                pem.matches("-----BEGIN CERTIFICATE-----").count()
            );
            assert!(
                pem.lines().all(|l| l.len() <= 64),
                "PEM lines are at most 64 long"
            );
        } else {
            assert_eq!(pem, "");
        }
        // A bundle named by SSL_CERT_FILE is the system CA instead of the store.
        let ca = wisp_test_support::tls::TestCa::new();
        let named = NetConfig {
            system_ca: Some(ca.bundle.clone()),
            ..NetConfig::default()
        };
        let pem = named.ca_pem().unwrap();
        assert_eq!(
            pem.matches("-----BEGIN CERTIFICATE-----").count(),
            1,
            "{pem}"
        );
    }

    /// An https registry whose certificate only the extra CA vouches for (a TLS-inspecting
    /// proxy at work): read with the extra CA, refused without it. On Windows this is the
    /// webpki path over the system store, on Linux the platform verifier's extra roots.
    #[tokio::test]
    async fn an_https_registry_is_trusted_through_the_extra_ca_and_only_through_it() {
        let ca = wisp_test_support::tls::TestCa::new();
        let port = ca.serve("vouched!").await;
        let registry = Registry::parse(&format!("https://127.0.0.1:{port}/")).unwrap();
        let url = format!("https://127.0.0.1:{port}/pkg");
        let timeout = std::time::Duration::from_secs(30);

        let trusted = NetConfig {
            extra_ca: Some(ca.bundle.clone()),
            ..NetConfig::default()
        };
        let client = RegistryClient::start(&registry, &trusted, timeout)
            .await
            .unwrap();
        let answer = client.client.get(&url).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        assert_eq!(answer.text().await.unwrap(), "vouched!");

        let client = RegistryClient::start(&registry, &NetConfig::default(), timeout)
            .await
            .unwrap();
        let e = client.client.get(&url).send().await.unwrap_err();
        let said = with_causes(&e).to_lowercase();
        assert!(said.contains("certificate"), "{said}");
    }

    #[test]
    fn an_error_names_its_causes() {
        #[derive(Debug, thiserror::Error)]
        #[error("builder error")]
        struct Outer(#[source] std::io::Error);
        assert_eq!(
            with_causes(&Outer(std::io::Error::other("no roots"))),
            "builder error: no roots"
        );
    }

    #[tokio::test]
    async fn the_proxy_passes_the_http_registry_and_refuses_everything_else_unconnected() {
        let (registry_port, registry_accepts) = counting_server().await;
        let (other_port, other_accepts) = counting_server().await;
        let registry = Registry::parse(&format!("http://127.0.0.1:{registry_port}/")).unwrap();
        let proxy = RegistryProxy::start(&registry, &NetConfig::default())
            .await
            .unwrap();

        let ok = ask(
            &proxy,
            &format!("GET http://127.0.0.1:{registry_port}/pkg HTTP/1.1\r\nhost: x\r\n\r\n"),
        )
        .await;
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        assert!(ok.contains("saw GET /pkg HTTP/1.1"), "{ok}");
        assert!(ok.contains("connection: close"), "{ok}");

        for request in [
            format!("GET http://127.0.0.1:{other_port}/x.tgz HTTP/1.1\r\n\r\n"),
            format!("GET http://localhost:{registry_port}/pkg HTTP/1.1\r\n\r\n"),
            format!("CONNECT 127.0.0.1:{other_port} HTTP/1.1\r\n\r\n"),
            format!("CONNECT 127.0.0.1:{registry_port} HTTP/1.1\r\n\r\n"),
            "GET /pkg HTTP/1.1\r\n\r\n".to_owned(),
        ] {
            let answer = ask(&proxy, &request).await;
            assert!(answer.starts_with("HTTP/1.1 403"), "{request}: {answer}");
        }
        // A second request pipelined behind an allowed one is not forwarded.
        let both = ask(
            &proxy,
            &format!(
                "GET http://127.0.0.1:{registry_port}/a HTTP/1.1\r\n\r\nGET http://127.0.0.1:{other_port}/b HTTP/1.1\r\n\r\n"
            ),
        )
        .await;
        assert!(both.contains("saw GET /a"), "{both}");
        assert!(!both.contains("/b"), "{both}");
        assert_eq!(other_accepts.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert_eq!(
            registry_accepts.load(std::sync::atomic::Ordering::SeqCst),
            2
        );
        let refused = proxy.refused();
        assert!(
            refused.contains(&format!("http://127.0.0.1:{other_port}/x.tgz")),
            "{refused:?}"
        );
        assert!(
            refused.contains(&format!("127.0.0.1:{other_port}")),
            "{refused:?}"
        );
        // Dropped, it stops listening.
        let addr = proxy.addr;
        drop(proxy);
        tokio::task::yield_now().await;
        assert!(TcpStream::connect(addr).await.is_err());
    }

    #[tokio::test]
    async fn the_proxy_tunnels_only_to_the_https_registry() {
        let (registry_port, registry_accepts) = counting_server().await;
        let (other_port, other_accepts) = counting_server().await;
        let registry = Registry::parse(&format!("https://127.0.0.1:{registry_port}/")).unwrap();
        let proxy = RegistryProxy::start(&registry, &NetConfig::default())
            .await
            .unwrap();
        let tunnel = ask(
            &proxy,
            &format!("CONNECT 127.0.0.1:{registry_port} HTTP/1.1\r\n\r\nPING / HTTP/1.1\r\n\r\n"),
        )
        .await;
        assert!(
            tunnel.starts_with("HTTP/1.1 200 Connection Established"),
            "{tunnel}"
        );
        assert!(tunnel.contains("saw PING / HTTP/1.1"), "{tunnel}");
        for request in [
            format!("CONNECT 127.0.0.1:{other_port} HTTP/1.1\r\n\r\n"),
            format!("CONNECT localhost:{registry_port} HTTP/1.1\r\n\r\n"),
            format!("GET http://127.0.0.1:{registry_port}/pkg HTTP/1.1\r\n\r\n"),
        ] {
            let answer = ask(&proxy, &request).await;
            assert!(answer.starts_with("HTTP/1.1 403"), "{request}: {answer}");
        }
        assert_eq!(other_accepts.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert_eq!(
            registry_accepts.load(std::sync::atomic::Ordering::SeqCst),
            1
        );
    }

    #[test]
    fn connect_targets() {
        let rules = Rules {
            scheme: "https".into(),
            host: "registry.npmjs.org".into(),
            port: 443,
            origin: "https://registry.npmjs.org".into(),
            upstream: None,
            refused: Mutex::new(Vec::new()),
        };
        assert!(connect_target_allowed("registry.npmjs.org:443", &rules));
        assert!(connect_target_allowed("Registry.NPMjs.org:443", &rules));
        for bad in [
            "registry.npmjs.org:80",
            "registry.npmjs.org",
            "github.com:443",
            "registry.npmjs.org.evil:443",
            "127.0.0.1:443",
        ] {
            assert!(!connect_target_allowed(bad, &rules), "{bad}");
        }
    }
}
