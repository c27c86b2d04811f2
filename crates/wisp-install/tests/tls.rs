//! The test CA (from `wisp-test-support`), and a test upstream proxy (the person's `HTTPS_PROXY`) that
//! counts and tunnels `CONNECT`s.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
pub use wisp_test_support::tls::TestCa;

/// The person's proxy: records every `CONNECT` target and tunnels it.
pub struct UpstreamProxy {
    pub url: String,
    connects: Arc<Mutex<Vec<String>>>,
}

impl UpstreamProxy {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connects = Arc::new(Mutex::new(Vec::new()));
        let seen = connects.clone();
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let seen = seen.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 1024];
                    let end = loop {
                        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break end;
                        }
                        match client.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
                    let mut words = head.split_whitespace();
                    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
                    seen.lock().unwrap().push(format!("{method} {target}"));
                    if method != "CONNECT" {
                        let _ = client
                            .write_all(b"HTTP/1.1 405 No\r\ncontent-length: 0\r\n\r\n")
                            .await;
                        return;
                    }
                    let Ok(mut server) = TcpStream::connect(target).await else {
                        let _ = client
                            .write_all(b"HTTP/1.1 502 No\r\ncontent-length: 0\r\n\r\n")
                            .await;
                        return;
                    };
                    let _ = client.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await;
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                });
            }
        });
        Self {
            url: format!("http://127.0.0.1:{port}"),
            connects,
        }
    }

    /// Every request line's method and target so far.
    pub fn connects(&self) -> Vec<String> {
        self.connects.lock().unwrap().clone()
    }
}
