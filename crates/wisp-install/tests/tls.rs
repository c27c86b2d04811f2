//! A test CA whose certificate only a test-written "system bundle" holds, a loopback server
//! certificate signed by it, and a test upstream proxy (the person's `HTTPS_PROXY`) that
//! counts and tunnels `CONNECT`s.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls;

/// The CA, its bundle file, and an acceptor for 127.0.0.1 / localhost signed by it.
pub struct TestCa {
    pub bundle: PathBuf,
    pub acceptor: tokio_rustls::TlsAcceptor,
    _dir: tempfile::TempDir,
}

impl TestCa {
    pub fn new() -> Self {
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Wisp test interception CA");
        ca_params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
        ];
        let ca =
            rcgen::CertifiedIssuer::self_signed(ca_params, rcgen::KeyPair::generate().unwrap())
                .unwrap();
        let leaf_key = rcgen::KeyPair::generate().unwrap();
        let mut leaf_params =
            rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
                .unwrap();
        leaf_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "127.0.0.1");
        let leaf = leaf_params.signed_by(&leaf_key, &ca).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join("system-bundle.pem");
        std::fs::write(&bundle, ca.pem()).unwrap();
        let key = rustls::pki_types::PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone(), ca.der().clone()], key)
        .unwrap();
        Self {
            bundle,
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            _dir: dir,
        }
    }
}

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
