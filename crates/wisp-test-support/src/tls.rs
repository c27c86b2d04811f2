//! A test CA whose certificate only a test-written "system bundle" holds, and an acceptor for
//! a loopback server certificate it signed: what a TLS-inspecting proxy looks like to a client.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_rustls::rustls;

/// The CA, its bundle file, and an acceptor for 127.0.0.1 / localhost signed by it.
pub struct TestCa {
    /// The PEM file holding the CA's certificate (the test's "system bundle").
    pub bundle: PathBuf,
    /// Accepts TLS for 127.0.0.1 and localhost with the CA-signed certificate.
    pub acceptor: tokio_rustls::TlsAcceptor,
    _dir: tempfile::TempDir,
}

impl TestCa {
    /// A new CA, its bundle file and the acceptor.
    #[expect(
        clippy::new_without_default,
        reason = "each call makes a new CA: not a default value"
    )]
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

impl TestCa {
    /// A loopback https server with the CA-signed certificate: it answers every request `200`
    /// with `body` and closes the connection. Its port; it runs as long as the runtime.
    pub async fn serve(&self, body: &'static str) -> u16 {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let acceptor = self.acceptor.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(socket).await else {
                        return;
                    };
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match tls.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = tls.write_all(reply.as_bytes()).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        port
    }
}
