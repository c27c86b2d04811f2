//! What Wisp's tests share across crates, so a fixture is written once: a loopback web site
//! with fixed answers (the preview tabs' tests against real Chromium), the request loop of a
//! keep-alive HTTP/1.1 connection the test npm registries answer on ([`keep_alive`]), a browser
//! profile that would save downloads silently ([`silent_download_profile`]), a FIFO
//! ([`mkfifo`]), bounded waits for a state ([`eventually`]) or a message ([`next_taken`]), the
//! live processes
//! ([`processes`], [`group_members`]), a package packed by the real
//! `npm pack` ([`npm_pack`]), and with the `tls` feature a test CA for TLS-inspection cases
//! ([`tls::TestCa`]). A dev-dependency only; nothing shipped uses it.
//!
//! ```no_run
//! # async fn demo() {
//! let base = wisp_test_support::site(&[("/", "<p>hello</p>")]).await;
//! assert!(base.starts_with("http://127.0.0.1:"));
//! # }
//! ```

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test support: a fixture that cannot be set up should stop the test at once"
)]

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "tls")]
pub mod tls;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A whole HTTP/1.0 answer: the status line's tail (`200 OK`), the `headers` in order, then
/// `Content-Length` and `body`.
pub fn answer(status: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut head = format!("HTTP/1.0 {status}\r\n");
    for (name, value) in headers {
        head += &format!("{name}: {value}\r\n");
    }
    format!("{head}Content-Length: {}\r\n\r\n{body}", body.len())
}

/// A whole HTTP/1.0 answer with an HTML page.
pub fn html(body: &str) -> String {
    answer("200 OK", &[("Content-Type", "text/html")], body)
}

/// A whole HTTP/1.0 redirect (302) to `to`, with no body.
pub fn redirect(to: &str) -> String {
    answer("302 Found", &[("Location", to)], "")
}

/// A whole HTTP/1.0 answer with a file the browser saves as `name` rather than shows.
pub fn attachment(name: &str, body: &str) -> String {
    let disposition = format!("attachment; filename=\"{name}\"");
    answer(
        "200 OK",
        &[
            ("Content-Type", "application/octet-stream"),
            ("Content-Disposition", &disposition),
        ],
        body,
    )
}

/// Asks `probe` every `every` until it answers `Ok`, and returns that; an `Err` that still comes
/// once `within` has passed fails the test with what it says.
pub async fn eventually<T, F>(within: Duration, every: Duration, mut probe: impl FnMut() -> F) -> T
where
    F: Future<Output = Result<T, String>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match probe().await {
            Ok(done) => return done,
            Err(why) => assert!(tokio::time::Instant::now() < deadline, "{why}"),
        }
        tokio::time::sleep(every).await;
    }
}

/// The first message on `rx` that `pick` takes (a lagging or closed receiver reads on), within
/// `within`; none by then fails the test.
pub async fn next_taken<T: Clone, U>(
    rx: &mut tokio::sync::broadcast::Receiver<T>,
    within: Duration,
    mut pick: impl FnMut(T) -> Option<U>,
) -> U {
    let wait = async {
        loop {
            if let Ok(message) = rx.recv().await
                && let Some(taken) = pick(message)
            {
                return taken;
            }
        }
    };
    tokio::time::timeout(within, wait)
        .await
        .unwrap_or_else(|_| panic!("nothing taken within {within:?}"))
}

/// A loopback site with fixed pages (any other path is a small "404" page); its base URL,
/// `http://127.0.0.1:PORT`.
pub async fn site(pages: &[(&'static str, &str)]) -> String {
    let replies = pages
        .iter()
        .map(|(path, body)| (*path, html(body)))
        .collect();
    format!("http://127.0.0.1:{}", raw_site(replies).await)
}

/// A loopback site answering each path with a whole HTTP response (a page, a redirect, a
/// download); any other path is a small "404" page (status 200, so the page loads). One
/// answer per connection; the query is ignored. Its port.
pub async fn raw_site(replies: Vec<(&'static str, String)>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let replies = Arc::new(replies);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let replies = replies.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 2048];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&request);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                let path = path.split('?').next().unwrap_or(path);
                let answer = replies
                    .iter()
                    .find(|(p, _)| *p == path)
                    .map_or_else(|| html("<p>404</p>"), |(_, r)| r.clone());
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    port
}

/// What a test server does with one request.
pub enum Reply {
    /// Never answers it (the connection stays open): a stalled server.
    Hold,
    /// Answers; `content-length` and keep-alive are added.
    Send {
        /// The status line's tail: `200 OK`.
        status: String,
        /// Extra header lines, each ending in `\r\n`.
        headers: String,
        /// The body.
        body: Vec<u8>,
    },
}

/// Answers the HTTP/1.1 requests of one keep-alive connection in order, each by what `answer`
/// makes of its request head (the request line and headers, without the blank line). Ends when
/// the client closes the connection or a write fails.
pub async fn keep_alive(
    mut socket: impl AsyncRead + AsyncWrite + Unpin,
    mut answer: impl FnMut(&str) -> Reply,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            buf.drain(..end + 4);
            let Reply::Send {
                status,
                headers,
                body,
            } = answer(&head)
            else {
                std::future::pending::<()>().await;
                return;
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\n{headers}content-length: {}\r\nconnection: keep-alive\r\n\r\n",
                body.len()
            );
            if socket.write_all(reply.as_bytes()).await.is_err()
                || socket.write_all(&body).await.is_err()
            {
                return;
            }
        }
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// A JPEG's width and height, read from its start-of-frame segment (what a live view's frame
/// measures).
pub fn jpeg_size(jpeg: &[u8]) -> (u32, u32) {
    let mut i = 2;
    while i + 9 < jpeg.len() {
        assert_eq!(jpeg[i], 0xFF, "a JPEG segment at {i}");
        let marker = jpeg[i + 1];
        let len = usize::from(u16::from_be_bytes([jpeg[i + 2], jpeg[i + 3]]));
        if matches!(marker, 0xC0..=0xC3) {
            let height = u16::from_be_bytes([jpeg[i + 5], jpeg[i + 6]]);
            let width = u16::from_be_bytes([jpeg[i + 7], jpeg[i + 8]]);
            return (u32::from(width), u32::from(height));
        }
        i += 2 + len;
    }
    panic!("no start of frame in the JPEG")
}

/// The path a request head asks for, with `%2f` (npm's scoped names) read as `/`.
pub fn request_path(head: &str) -> String {
    head.split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .replace("%2f", "/")
        .replace("%2F", "/")
}

/// Makes a FIFO at `path` with the system's `mkfifo`: a file whose plain open blocks until a
/// writer comes, as a read on a hung file system would.
pub fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// True while `pid` names a live process (a zombie counts as gone), from /proc.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// `(pid, ppid, pgrp)` of every live (not zombie) process, from /proc.
pub fn processes() -> Vec<(u32, u32, u32)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // After the command name (which may hold spaces): state, ppid, pgrp.
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() > 2 && f[0] != "Z" {
            found.push((pid, f[1].parse().unwrap_or(0), f[2].parse().unwrap_or(0)));
        }
    }
    found
}

/// The live (not zombie) processes of process group `pgid`, from /proc.
pub fn group_members(pgid: u32) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|&(_, _, pgrp)| pgrp == pgid)
        .map(|(pid, _, _)| pid)
        .collect()
}

/// A fresh browser profile whose preferences would save every download silently into the
/// second folder: what a test needs to show that the preview refuses downloads itself, since
/// the browser, left to its settings, would not ask. (The profile, the downloads folder.)
pub fn silent_download_profile() -> (tempfile::TempDir, tempfile::TempDir) {
    let profile = tempfile::tempdir().unwrap();
    let downloads = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(profile.path().join("Default")).unwrap();
    let prefs = serde_json::json!({"download": {
        "default_directory": downloads.path(),
        "prompt_for_download": false,
        "directory_upgrade": true,
    }});
    std::fs::write(
        profile.path().join("Default/Preferences"),
        prefs.to_string(),
    )
    .unwrap();
    (profile, downloads)
}

/// Packs the npm package in `dir` with the real `npm pack` (scripts off, an environment built
/// from nothing, its own cache): the tarball's bytes and the sha512 integrity npm computed.
pub fn npm_pack(npm: &std::path::Path, dir: &std::path::Path) -> (Vec<u8>, String) {
    let work = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(npm)
        .args(["pack", "--json", "--ignore-scripts", "--pack-destination"])
        .arg(work.path())
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", work.path())
        .env("npm_config_cache", work.path().join("cache"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "npm pack: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let filename = report[0]["filename"].as_str().unwrap();
    let integrity = report[0]["integrity"].as_str().unwrap().to_owned();
    assert!(integrity.starts_with("sha512-"), "{integrity}");
    (
        std::fs::read(work.path().join(filename)).unwrap(),
        integrity,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(base: &str, path: &str) -> String {
        let addr = base.trim_start_matches("http://");
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    }

    #[tokio::test]
    async fn the_site_answers_its_pages_and_a_404_page_for_any_other_path() {
        let base = site(&[("/a", "<p>page a</p>"), ("/b", "<p>b</p>")]).await;
        let a = get(&base, "/a?x=1").await;
        assert!(a.starts_with("HTTP/1.0 200 OK\r\n"), "{a}");
        assert!(a.ends_with("\r\n\r\n<p>page a</p>"), "{a}");
        assert!(a.contains("Content-Length: 13\r\n"), "{a}");
        assert!(get(&base, "/b").await.ends_with("<p>b</p>"));
        assert!(get(&base, "/elsewhere").await.ends_with("<p>404</p>"));
    }

    #[test]
    fn a_redirect_and_an_attachment_are_whole_answers() {
        assert_eq!(
            redirect("/a"),
            "HTTP/1.0 302 Found\r\nLocation: /a\r\nContent-Length: 0\r\n\r\n"
        );
        assert_eq!(
            attachment("evil.sh", "echo hi"),
            "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n\
             Content-Disposition: attachment; filename=\"evil.sh\"\r\nContent-Length: 7\r\n\r\necho hi"
        );
    }

    #[tokio::test]
    async fn a_raw_answer_is_sent_as_it_is() {
        let redirect = "HTTP/1.0 302 Found\r\nLocation: /a\r\n\r\n".to_owned();
        let port = raw_site(vec![("/go", redirect.clone())]).await;
        assert_eq!(
            get(&format!("http://127.0.0.1:{port}"), "/go").await,
            redirect
        );
    }
}
