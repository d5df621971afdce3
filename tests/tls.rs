//! HTTPS on the standalone server (`HttpConfig::tls`): calls over TLS with
//! HTTP/1.1 and HTTP/2 chosen by ALPN, a renewed certificate served without
//! a restart (noticed by what the files hold, whatever their modification
//! times say), handshakes that never wait for the files, and files that do
//! not read refused at start, naming the file.

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
use mcp_tests::http_wire::{STUCK, stateless_meta};
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

/// [`serve`] on a runtime of its own, in a thread of its own that nothing
/// waits for: a server whose worker is stuck (in a handshake that waits
/// for a file) stops neither the test's clock nor its end, so the test
/// fails rather than waits with it.
#[cfg(unix)]
fn serve_apart(cert: &Path, key: &Path) -> SocketAddr {
    let (cert, key) = (cert.to_owned(), key.to_owned());
    let (bound, address) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime");
        runtime.block_on(async move {
            bound.send(serve(&cert, &key).await).expect("told");
            std::future::pending::<()>().await
        });
    });
    address.recv().expect("the server's address")
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
                      "params": {"name": "hello", "_meta": stateless_meta(json!({}))}});
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

/// The first certificate of the chain a handshake was served.
fn served(stream: &tokio_rustls::client::TlsStream<tokio::net::TcpStream>) -> Option<CertificateDer<'static>> {
    stream.get_ref().1.peer_certificates().and_then(|chain| chain.first().cloned())
}

/// Handshakes, a tenth of a second apart, until one trusting only
/// `renewed` succeeds: the server serves it. The files are looked at once
/// a second: 20 s is room enough for a busy machine.
async fn until_served(addr: SocketAddr, renewed: &Certificate) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    // Until then the old certificate fails each handshake.
    while tokio::time::timeout(STUCK, try_connect(addr, &renewed.der)).await.expect("a handshake in time").is_none() {
        assert!(tokio::time::Instant::now() < deadline, "the renewed certificate was not served within 20 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(served(&connect(addr, &renewed.der, &[b"http/1.1"]).await), Some(renewed.der.clone()));
}

#[tokio::test]
async fn a_renewed_certificate_is_served_without_a_restart() {
    let (first, second) = (certificate(), certificate());
    let dir = folder("renewed");
    let (cert, key) = write(&dir, &first);
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).expect("a modification time");
    let stamps = (modified(&cert), modified(&key));
    let addr = serve(&cert, &key).await;
    assert_eq!(served(&connect(addr, &first.der, &[b"http/1.1"]).await), Some(first.der.clone()));

    // Renewed with the modification times of the old files (a copy that keeps them, or a
    // write within the same tick of a coarse clock): what changed is what they hold.
    write(&dir, &second);
    for (path, stamp) in [(&cert, stamps.0), (&key, stamps.1)] {
        let file = std::fs::File::options().write(true).open(path).expect("opened");
        file.set_modified(stamp).expect("the old modification time");
    }
    assert_eq!((modified(&cert), modified(&key)), stamps);
    until_served(addr, &second).await;
}

/// Undoes a stuck read of a named pipe when the test ends: a reader
/// waiting on it is given a writer, and an empty file.
#[cfg(unix)]
struct Unblock(PathBuf);

#[cfg(unix)]
impl Drop for Unblock {
    fn drop(&mut self) {
        use std::os::unix::fs::FileTypeExt as _;
        if std::fs::symlink_metadata(&self.0).is_ok_and(|m| m.file_type().is_fifo()) {
            // Read and write: opening never waits, and a reader's open returns.
            drop(std::fs::File::options().read(true).write(true).open(&self.0));
        }
    }
}

/// A handshake takes the certificate in place and reads no file: with the
/// certificate's file a named pipe that nobody writes (any read of it
/// waits), handshakes are served at once, with the old certificate, for
/// three seconds of checks; once the pipe is written, the certificate it
/// held is served.
#[cfg(unix)]
#[tokio::test]
async fn a_handshake_never_waits_for_the_files() {
    use std::io::Write as _;

    let (first, second) = (certificate(), certificate());
    let dir = folder("handshake");
    let (cert, key) = write(&dir, &first);
    let addr = serve_apart(&cert, &key);
    assert_eq!(served(&connect(addr, &first.der, &[b"http/1.1"]).await), Some(first.der.clone()));

    let pipe = dir.join("cert.fifo");
    let made = std::process::Command::new("mkfifo").arg(&pipe).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", pipe.display());
    std::fs::rename(&pipe, &cert).expect("the pipe in the certificate's place");
    let _unblock = Unblock(cert.clone());
    std::fs::write(&key, &second.key_pem).expect("the new key");

    let until = tokio::time::Instant::now() + Duration::from_secs(3);
    while tokio::time::Instant::now() < until {
        // Within STUCK, or `connect` fails the test: a handshake that reads the pipe never ends.
        assert_eq!(served(&connect(addr, &first.der, &[b"http/1.1"]).await), Some(first.der.clone()));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // A writer first (a read waiting on the pipe goes on), then the new file in the pipe's
    // place (for any read after this), then the pipe's content (for the one waiting).
    let mut writer = std::fs::File::options().read(true).write(true).open(&cert).expect("the pipe, opened");
    let aside = dir.join("cert.new");
    std::fs::write(&aside, &second.cert_pem).expect("written");
    std::fs::rename(&aside, &cert).expect("renamed");
    writer.write_all(second.cert_pem.as_bytes()).expect("the pipe, written");
    drop(writer);
    until_served(addr, &second).await;
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

/// A server whose one tool says which HTTP version carried it, served with
/// `config` (over TLS, or not) on loopback.
async fn serve_versions(config: HttpConfig) -> SocketAddr {
    let server = mcp_runtime::Server::builder("versions", "1.0.0")
        .tool(ToolEntry::new("version", |cx: mcp_runtime::RequestContext| async move {
            format!("{:?}", cx.http_request().map(|parts| parts.version))
        }))
        .build()
        .expect("a server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(server.serve_http_with_shutdown(listener, config, std::future::pending()));
    addr
}

#[tokio::test]
async fn the_client_speaks_https_to_a_server_it_is_given_the_root_of() {
    use mcp_runtime::client::{Client, Error};
    let certificate = certificate();
    let (cert, key) = write(&folder("client"), &certificate);
    let addr = serve_versions(HttpConfig::default().tls(&cert, &key)).await;
    let url = format!("https://localhost:{}/mcp", addr.port());
    // Neither the platform's roots nor `SSL_CERT_FILE` have the test's own.
    let refused = Client::http(&url).timeout(STUCK).call_tool("version", json!({})).await.expect_err("untrusted");
    assert!(matches!(refused, Error::Transport(ref why) if why.contains("certificate")), "{refused:?}");
    let client = Client::http(&url).timeout(STUCK).root_certificates(&certificate.cert_pem).expect("a root");
    // HTTP/2, as the server offers it by ALPN; calls at once share it.
    let calls = (0..8).map(|_| client.call_tool("version", json!({})));
    for called in futures_util::future::join_all(calls).await {
        assert_eq!(called.expect("called").first_text(), Some("Some(HTTP/2.0)"));
    }
    // PEM without a certificate is refused where it is given.
    let none = Client::http(&url).root_certificates("not a certificate").expect_err("no certificate");
    assert!(matches!(none, Error::Invalid(ref why) if why.contains("no certificate")), "{none:?}");
}

#[tokio::test]
async fn the_client_speaks_http1_over_tls_to_a_server_that_offers_nothing_else() {
    use mcp_runtime::client::Client;
    let certificate = certificate();
    // A TLS server of this test's own, offering HTTP/1.1 alone by ALPN, in
    // front of a plain one.
    let plain = serve_versions(HttpConfig::default()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    let mut tls = rustls::ServerConfig::builder_with_provider(rustls::crypto::ring::default_provider().into())
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![certificate.der.clone()],
            rustls::pki_types::PrivateKeyDer::try_from(
                rcgen::KeyPair::from_pem(&certificate.key_pem).expect("a key").serialize_der(),
            )
            .expect("a key"),
        )
        .expect("a config");
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(stream).await else { return };
                let Ok(mut inner) = tokio::net::TcpStream::connect(plain).await else { return };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut inner).await;
            });
        }
    });
    let url = format!("https://localhost:{}/mcp", addr.port());
    let client = Client::http(&url).timeout(STUCK).root_certificates(&certificate.cert_pem).expect("a root");
    for _ in 0..3 {
        let called = client.call_tool("version", json!({})).await.expect("called");
        assert_eq!(called.first_text(), Some("Some(HTTP/1.1)"));
    }
}
