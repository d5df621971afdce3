//! HTTPS on the standalone server (`HttpConfig::tls`): calls over TLS with
//! HTTP/1.1 and HTTP/2 chosen by ALPN, a renewed certificate served without
//! a restart, and files that do not read refused at start, naming the file.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::transport::http::HttpConfig;
use mcp_tests::http_wire::{STUCK, modern_meta};
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};

/// A self-signed certificate for `localhost`, written as PEM files in a
/// folder of its own; its DER to trust it.
struct Certificate {
    der: CertificateDer<'static>,
    cert_pem: String,
    key_pem: String,
}

fn certificate() -> Certificate {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
    Certificate { der: made.cert.der().clone(), cert_pem: made.cert.pem(), key_pem: made.key_pair.serialize_pem() }
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-tls-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    dir
}

fn write(dir: &Path, certificate: &Certificate) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    // Written aside and renamed: a reader never sees half a file.
    for (path, text) in [(&cert, &certificate.cert_pem), (&key, &certificate.key_pem)] {
        let aside = path.with_extension("new");
        std::fs::write(&aside, text).expect("written");
        std::fs::rename(&aside, path).expect("renamed");
    }
    (cert, key)
}

async fn serve(cert: &Path, key: &Path) -> SocketAddr {
    let server = mcp_runtime::Server::builder("tls", "1.0.0")
        .tool(ToolEntry::new("hello", || async { "Hello over TLS" }))
        .build()
        .expect("a server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    let config = HttpConfig::default().tls(cert, key);
    tokio::spawn(server.serve_http_with_shutdown(listener, config, std::future::pending()));
    addr
}

/// A TLS connection trusting only `trusted`, offering `alpn`.
async fn connect(
    addr: SocketAddr,
    trusted: &CertificateDer<'static>,
    alpn: &[&[u8]],
) -> tokio_rustls::client::TlsStream<tokio::net::TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(trusted.clone()).expect("trusted");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let name = ServerName::try_from("localhost").expect("a name");
    tokio::time::timeout(STUCK, tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp))
        .await
        .expect("a handshake in time")
        .expect("a handshake")
}

fn call(addr: SocketAddr) -> Request<Full<Bytes>> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "hello", "_meta": modern_meta(json!({}))}});
    Request::post(format!("https://localhost:{}/mcp", addr.port()))
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "hello")
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("a request")
}

async fn answer(response: http::Response<hyper::body::Incoming>) -> Value {
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.into_body().collect().await.expect("a body").to_bytes();
    serde_json::from_slice(&body).expect("JSON")
}

#[tokio::test]
async fn calls_are_served_over_tls_with_http1_or_http2_as_alpn_chooses() {
    let certificate = certificate();
    let (cert, key) = write(&folder("alpn"), &certificate);
    let addr = serve(&cert, &key).await;

    let stream = connect(addr, &certificate.der, &[b"h2", b"http/1.1"]).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"h2"[..]), "HTTP/2 when the client offers it");
    let (mut h2, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.expect("h2");
    tokio::spawn(connection);
    let response = tokio::time::timeout(STUCK, h2.send_request(call(addr))).await.expect("in time").expect("sent");
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(answer(response).await["result"]["content"][0]["text"], "Hello over TLS");

    let stream = connect(addr, &certificate.der, &[b"http/1.1"]).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    let (mut h1, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("h1");
    tokio::spawn(connection);
    let response = tokio::time::timeout(STUCK, h1.send_request(call(addr))).await.expect("in time").expect("sent");
    assert_eq!(answer(response).await["result"]["content"][0]["text"], "Hello over TLS");
}

#[tokio::test]
async fn a_renewed_certificate_is_served_without_a_restart() {
    let (first, second) = (certificate(), certificate());
    let dir = folder("renewed");
    let (cert, key) = write(&dir, &first);
    let addr = serve(&cert, &key).await;
    let served = |stream: &tokio_rustls::client::TlsStream<tokio::net::TcpStream>| {
        stream.get_ref().1.peer_certificates().and_then(|chain| chain.first().cloned())
    };
    assert_eq!(served(&connect(addr, &first.der, &[b"http/1.1"]).await), Some(first.der.clone()));

    write(&dir, &second);
    // The files are looked at once a second, at a handshake: the new one comes soon.
    let renewed = tokio::time::timeout(Duration::from_secs(20), async {
        // Each attempt is a handshake, which looks; until then the old one fails it.
        while tokio::time::timeout(STUCK, try_connect(addr, &second.der)).await.expect("in time").is_none() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(renewed.is_ok(), "the renewed certificate was never served");
    assert_eq!(served(&connect(addr, &second.der, &[b"http/1.1"]).await), Some(second.der.clone()));
}

/// A handshake trusting only `trusted`, if the server's certificate is it.
async fn try_connect(addr: SocketAddr, trusted: &CertificateDer<'static>) -> Option<()> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(trusted.clone()).ok()?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(addr).await.ok()?;
    let name = ServerName::try_from("localhost").ok()?;
    tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp).await.ok().map(|_| ())
}

#[tokio::test]
async fn files_that_do_not_read_stop_the_server_naming_the_file() {
    let dir = folder("unreadable");
    let certificate = certificate();
    let (cert, key) = write(&dir, &certificate);
    std::fs::write(&key, "not a key").expect("written");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let server = mcp_runtime::Server::builder("tls", "1.0.0").build().expect("a server");
    let error = server
        .serve_http_with_shutdown(listener, HttpConfig::default().tls(&cert, &key), std::future::pending())
        .await
        .expect_err("refused at start");
    assert!(error.to_string().contains("key.pem"), "{error}");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let server = mcp_runtime::Server::builder("tls", "1.0.0").build().expect("a server");
    let missing = dir.join("missing.pem");
    let error = server
        .serve_http_with_shutdown(listener, HttpConfig::default().tls(&missing, &key), std::future::pending())
        .await
        .expect_err("refused at start");
    assert!(error.to_string().contains("missing.pem"), "{error}");
}
