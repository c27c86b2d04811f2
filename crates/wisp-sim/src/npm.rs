//! A tiny npm registry on loopback for simulation mode, so an install runs the real npm
//! procedure without the network: it holds one package, the
//! demo MCP server of `crates/wisp-install/demo-package/` (plain JavaScript, no dependencies,
//! one `echo` tool), packed at start into a real `.tgz` with a real sha512 integrity, and
//! answers `GET /<name>` with its packument (with the version's `time`), `GET /<name>/<version>`
//! with the version's document (what Wisp reads before the approval) and
//! `GET /<name>/-/<name>-<version>.tgz` with the tarball — what the real npm client asks for.
//! `wisp serve --simulate` makes it the allowed registry, so `[demo:install]` runs the real npm
//! without the internet.
//!
//! The tarball is a ustar archive (`package/…` entries) inside a gzip member whose deflate
//! data are stored blocks: valid for every gzip reader, and no compression crate is needed.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha512};
use tokio::sync::oneshot;

/// The demo package's name.
pub const DEMO_PACKAGE: &str = "wisp-demo-mcp";
/// Its one version.
pub const DEMO_VERSION: &str = "1.0.0";
/// Its bin.
pub const DEMO_BIN: &str = "wisp-demo-mcp";

const DEMO_MANIFEST: &str = include_str!("../../wisp-install/demo-package/package.json");
const DEMO_SERVER: &str = include_str!("../../wisp-install/demo-package/server.js");

/// A packed package.
struct Packed {
    packument: Value,
    version: Value,
    tarball: Vec<u8>,
}

/// The demo version's publish time in its packument.
const DEMO_PUBLISHED: &str = "2026-09-01T00:00:00.000Z";

/// The running registry. Dropping it stops it.
pub struct NpmRegistry {
    addr: SocketAddr,
    integrity: String,
    stop: Option<oneshot::Sender<()>>,
}

impl NpmRegistry {
    /// Packs the demo package and serves it on `127.0.0.1` at a free port.
    pub async fn start() -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let addr = listener.local_addr()?;
        let url = format!("http://{addr}/");
        let manifest: Value = serde_json::from_str(DEMO_MANIFEST)
            .map_err(|e| std::io::Error::other(format!("demo package.json: {e}")))?;
        let tarball = tgz(&[
            ("package/package.json", DEMO_MANIFEST.as_bytes(), 0o644),
            ("package/server.js", DEMO_SERVER.as_bytes(), 0o755),
        ]);
        let integrity = format!(
            "sha512-{}",
            base64::engine::general_purpose::STANDARD.encode(Sha512::digest(&tarball))
        );
        let mut version = manifest.clone();
        version["dist"] = json!({
            "tarball": format!("{url}{DEMO_PACKAGE}/-/{DEMO_PACKAGE}-{DEMO_VERSION}.tgz"),
            "integrity": integrity,
        });
        let packument = json!({
            "name": DEMO_PACKAGE,
            "dist-tags": {"latest": DEMO_VERSION},
            "versions": {DEMO_VERSION: version.clone()},
            "time": {DEMO_VERSION: DEMO_PUBLISHED},
        });
        let packed = Arc::new(Packed {
            packument,
            version,
            tarball,
        });
        let app = Router::new()
            .route("/{name}", get(serve_packument))
            .route("/{name}/{version}", get(serve_version))
            .route("/{name}/-/{file}", get(serve_tarball))
            .with_state(packed);
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            if let Err(e) = serve.await {
                tracing::warn!(error = %e, "simulated npm registry stopped");
            }
        });
        tracing::info!(%addr, "simulated npm registry listening");
        Ok(Self {
            addr,
            integrity,
            stop: Some(stop),
        })
    }

    /// `http://127.0.0.1:PORT/`, the registry URL npm gets.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The demo tarball's `sha512-…` integrity.
    pub fn integrity(&self) -> &str {
        &self.integrity
    }
}

impl Drop for NpmRegistry {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"error": "not found"})),
    )
        .into_response()
}

async fn serve_packument(State(packed): State<Arc<Packed>>, Path(name): Path<String>) -> Response {
    if name != DEMO_PACKAGE {
        return not_found();
    }
    axum::Json(packed.packument.clone()).into_response()
}

async fn serve_version(
    State(packed): State<Arc<Packed>>,
    Path((name, version)): Path<(String, String)>,
) -> Response {
    if name != DEMO_PACKAGE || version != DEMO_VERSION {
        return not_found();
    }
    axum::Json(packed.version.clone()).into_response()
}

async fn serve_tarball(
    State(packed): State<Arc<Packed>>,
    Path((name, file)): Path<(String, String)>,
) -> Response {
    if name != DEMO_PACKAGE || file != format!("{DEMO_PACKAGE}-{DEMO_VERSION}.tgz") {
        return not_found();
    }
    (
        [(header::CONTENT_TYPE, "application/octet-stream")],
        packed.tarball.clone(),
    )
        .into_response()
}

/// A gzip member of a ustar archive of `files` (path, bytes, mode).
fn tgz(files: &[(&str, &[u8], u32)]) -> Vec<u8> {
    let mut tar = Vec::new();
    for (path, data, mode) in files {
        tar.extend_from_slice(&ustar_header(path, data.len(), *mode));
        tar.extend_from_slice(data);
        tar.resize(tar.len().div_ceil(512) * 512, 0);
    }
    // Two zero blocks end the archive.
    tar.resize(tar.len() + 1024, 0);
    gzip_stored(&tar)
}

fn octal(field: &mut [u8], value: u64) {
    // Digits right-aligned, zero-padded, then a NUL.
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    field[..width].copy_from_slice(&text.as_bytes()[text.len() - width..]);
    field[width] = 0;
}

fn ustar_header(path: &str, size: usize, mode: u32) -> [u8; 512] {
    let mut h = [0u8; 512];
    let name = path.as_bytes();
    h[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
    octal(&mut h[100..108], u64::from(mode));
    octal(&mut h[108..116], 0);
    octal(&mut h[116..124], 0);
    octal(&mut h[124..136], size as u64);
    // A fixed time (1985-10-26, what npm pack writes), so the integrity never changes.
    octal(&mut h[136..148], 499_162_500);
    h[156] = b'0';
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    // The checksum is taken with its own field as spaces.
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    let text = format!("{sum:06o}\0 ");
    h[148..156].copy_from_slice(text.as_bytes());
    h
}

/// RFC 1952 gzip around RFC 1951 stored blocks.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let mut chunks = data.chunks(0xffff).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        out.push(u8::from(last));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_a_known_string() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn ustar_headers_checksum_and_sizes() {
        let h = ustar_header("package/a.js", 1234, 0o644);
        assert_eq!(&h[124..136], b"00000002322\0");
        let stored: u32 =
            u32::from_str_radix(std::str::from_utf8(&h[148..154]).unwrap(), 8).unwrap();
        let mut blank = h;
        blank[148..156].copy_from_slice(b"        ");
        assert_eq!(stored, blank.iter().map(|&b| u32::from(b)).sum::<u32>());
    }

    #[test]
    fn the_tarball_is_a_gzip_of_512_byte_blocks() {
        let t = tgz(&[("package/x", b"hi", 0o644)]);
        assert_eq!(&t[..3], &[0x1f, 0x8b, 8]);
        let len = u32::from_le_bytes(t[t.len() - 4..].try_into().unwrap());
        assert_eq!(len as usize % 512, 0);
        assert_eq!(len, 512 * 2 + 1024);
    }
}
