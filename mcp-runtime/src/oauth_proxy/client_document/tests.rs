//! Whole fetches, from local servers: what is refused before any connection,
//! and what a server may and may not answer.

use std::convert::Infallible;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HOST};
use http::{Request, Response};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Body, Frame, Incoming};
use serde_json::{Value, json};

use super::*;

#[test]
fn client_ids_that_name_no_document_are_refused() {
    let refused: &[(&str, &str)] = &[
        ("http://example.com/client.json", "not an https URL"),
        ("ftp://example.com/client.json", "not an https URL"),
        ("HTTPS://example.com/client.json", "not an https URL"),
        ("https://example.com", "no path"),
        ("https://example.com/", "no path"),
        ("https://user@example.com/client.json", "user info"),
        ("https://user:pass@example.com/client.json", "user info"),
        ("https://@example.com/client.json", "user info"),
        ("https://example.com/client.json#x", "fragment"),
        ("https://example.com/client.json#", "fragment"),
        ("https://example.com/client.json?v=1", "query"),
        ("https://example.com/client.json?", "query"),
        ("https://example.com/a/../client.json", ". or .."),
        ("https://example.com/./client.json", ". or .."),
        ("https://example.com/a/%2e%2E/client.json", ". or .."),
        ("https://example.com/a/.%2e", ". or .."),
        ("https://example.com/a\\..\\client.json", "backslash"),
        ("https://example.com/client .json", "spaces"),
        ("https://example.com/client\t.json", "spaces"),
        ("https://exämple.com/client.json", "non-ASCII"),
        ("https:///client.json", "no host"),
        ("https://exa mple.com/client.json", "spaces"),
        ("https://[::1/client.json", "not a URL"),
    ];
    for (client_id, why) in refused {
        let error = check_url(client_id, false).expect_err(client_id).to_string();
        assert!(error.contains(why), "{client_id}: {error}");
    }
    let long = format!("https://example.com/{}", "a".repeat(2048));
    assert!(check_url(&long, false).expect_err("too long").to_string().contains("longer than 2048"));

    for fine in [
        "https://example.com/client.json",
        "https://example.com:8443/clients/a.json",
        "https://example.com/a/.well-known/b",
        "https://93.184.216.34/client",
        "https://[2001:4860::1]/client",
    ] {
        check_url(fine, false).expect(fine);
    }
    assert!(matches!(check_url("http://example.com/client.json", false), Err(DocumentError::NotHttps)));
    check_url("http://example.com/client.json", true).expect("plain http when allowed");
    assert!(matches!(check_url("ftp://example.com/client.json", true), Err(DocumentError::NotHttps)));

    let documents = ClientDocuments::new();
    assert!(documents.is_document_url("https://example.com/client.json"));
    assert!(documents.is_document_url("https://example.com"), "meant as one, even if no document can be there");
    assert!(!documents.is_document_url("http://example.com/client.json"));
    assert!(!documents.is_document_url("a1b2c3"));
    assert!(ClientDocuments::new().allow_plain_http().is_document_url("http://127.0.0.1:8080/client.json"));
}

#[tokio::test]
async fn private_hosts_are_refused_before_any_connection() {
    let documents = ClientDocuments::new();
    for (client_id, address) in [
        ("https://10.0.0.3/client.json", "10.0.0.3"),
        ("https://0x7f.1/client.json", "127.0.0.1"), // the parser reads it as 127.0.0.1
        ("https://[::1]/client.json", "::1"),
        ("https://[::ffff:a9fe:a9fe]/client.json", "::ffff:169.254.169.254"),
        ("https://169.254.169.254/latest/meta-data", "169.254.169.254"),
    ] {
        let error = documents.fetch(client_id).await.expect_err(client_id);
        assert_eq!(
            error.to_string(),
            format!("the document's host resolves to a private address ({address})"),
            "{client_id}"
        );
        assert!(!error.is_unreachable());
    }
    // A name, resolved here.
    let error = documents.fetch("https://localhost:1/client.json").await.expect_err("localhost");
    assert!(matches!(error, DocumentError::PrivateAddress(ip) if ip.is_loopback()), "{error}");
}

/// What a test server answers.
enum Answer {
    /// 200, `application/json`, `Cache-Control: max-age=600`.
    Document(Value),
    /// Any status, headers and body.
    Raw(u16, Vec<(&'static str, String)>, String),
    /// 200, `application/json`, a body that never ends, of unknown
    /// length.
    Endless,
    /// Nothing at all.
    Never,
}

/// A test server: the client id it serves, how many connections it
/// took, the requests it was sent.
struct Served {
    client_id: String,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<http::request::Parts>>>,
}

/// A body of spaces that goes on forever, sent chunked.
struct Endless;

impl Body for Endless {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&[b' '; 1024])))))
    }
}

/// Serves `answer` (given the client id) on 127.0.0.1, in plain HTTP
/// or, with an acceptor, in TLS as `localhost`.
async fn serve(
    tls: Option<tokio_rustls::TlsAcceptor>,
    answer: impl Fn(&str) -> Answer + Send + Sync + 'static,
) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("an address").port();
    let client_id = match tls {
        Some(_) => format!("https://localhost:{port}/client.json"),
        None => format!("http://127.0.0.1:{port}/client.json"),
    };
    let connections = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let served = Served { client_id: client_id.clone(), connections: connections.clone(), requests: requests.clone() };
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else { return };
            connections.fetch_add(1, Ordering::SeqCst);
            let (answer, requests, client_id, tls) = (answer.clone(), requests.clone(), client_id.clone(), tls.clone());
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                requests.lock().expect("not poisoned").push(request.into_parts().0);
                let answer = answer(&client_id);
                async move {
                    let response = match answer {
                        Answer::Document(document) => Response::builder()
                            .header(CONTENT_TYPE, "application/json; charset=utf-8")
                            .header(CACHE_CONTROL, "max-age=600")
                            .body(Full::new(Bytes::from(document.to_string())).boxed()),
                        Answer::Raw(status, headers, body) => {
                            let mut response = Response::builder().status(status);
                            for (name, value) in headers {
                                response = response.header(name, value);
                            }
                            response.body(Full::new(Bytes::from(body)).boxed())
                        }
                        Answer::Endless => {
                            Response::builder().header(CONTENT_TYPE, "application/json").body(BoxBody::new(Endless))
                        }
                        Answer::Never => std::future::pending().await,
                    };
                    Ok::<_, Infallible>(response.expect("a response"))
                }
            });
            tokio::spawn(async move {
                let http = hyper::server::conn::http1::Builder::new();
                let _ = match tls {
                    Some(tls) => match tls.accept(tcp).await {
                        Ok(tls) => http.serve_connection(TokioIo::new(tls), service).await,
                        Err(_) => return,
                    },
                    None => http.serve_connection(TokioIo::new(tcp), service).await,
                };
            });
        }
    });
    served
}

/// Plain HTTP to loopback: the test servers' policy.
fn local() -> ClientDocuments {
    ClientDocuments::new().allow_plain_http().allow_private_addresses()
}

/// A valid document of `client_id`.
fn document(client_id: &str) -> Value {
    json!({"client_id": client_id, "client_name": "Test", "redirect_uris": ["http://127.0.0.1/callback"]})
}

#[tokio::test]
async fn a_document_is_fetched() {
    let served = serve(None, |client_id| Answer::Document(document(client_id))).await;
    let (fetched, lifetime) = local().fetch(&served.client_id).await.expect("the document");
    assert_eq!(fetched.client_id, served.client_id);
    assert_eq!(fetched.client_name.as_deref(), Some("Test"));
    assert_eq!(fetched.redirect_uris, ["http://127.0.0.1/callback"]);
    assert_eq!(lifetime, Duration::from_secs(600));

    let requests = served.requests.lock().expect("not poisoned");
    let [request] = &requests[..] else { panic!("one request, not {}", requests.len()) };
    assert_eq!(request.method, http::Method::GET);
    assert_eq!(request.uri, "/client.json");
    let port = served.client_id.split(':').nth(2).and_then(|rest| rest.split('/').next()).expect("a port");
    assert_eq!(request.headers[HOST], format!("127.0.0.1:{port}").as_str());
    assert_eq!(request.headers[ACCEPT], "application/json");
    for header in ["cookie", "authorization"] {
        assert!(!request.headers.contains_key(header), "{header}");
    }
}

#[tokio::test]
async fn a_document_of_another_client_is_refused() {
    let served = serve(None, |_| Answer::Document(document("http://127.0.0.1/other.json"))).await;
    let error = local().fetch(&served.client_id).await.expect_err("another client's");
    assert!(matches!(error, DocumentError::ClientIdMismatch(_)), "{error}");
    assert!(!error.is_unreachable());
}

#[tokio::test]
async fn a_document_without_redirect_uris_is_refused() {
    let served = serve(None, |client_id| Answer::Document(json!({"client_id": client_id}))).await;
    let error = local().fetch(&served.client_id).await.expect_err("no redirect URI");
    assert_eq!(error.to_string(), "the document names no redirect_uris");
}

#[tokio::test]
async fn a_large_document_is_refused() {
    let big = |client_id: &str| {
        let mut document = document(client_id);
        document["padding"] = json!("x".repeat(20_000));
        Answer::Raw(200, vec![("content-type", "application/json".into())], document.to_string())
    };
    // Its length announced.
    let served = serve(None, big).await;
    let error = local().fetch(&served.client_id).await.expect_err("too large");
    assert_eq!(error.to_string(), "the document is larger than 16384 bytes");
    // A smaller limit.
    let served = serve(None, |client_id| Answer::Document(document(client_id))).await;
    let error = local().max_bytes(50).fetch(&served.client_id).await.expect_err("over 50 bytes");
    assert_eq!(error.to_string(), "the document is larger than 50 bytes");
    // Its length unknown, and no end to it: reading stops at the limit,
    // long before the timeout.
    let served = serve(None, |_| Answer::Endless).await;
    let started = std::time::Instant::now();
    let error = local().timeout(Duration::from_secs(10)).fetch(&served.client_id).await.expect_err("endless");
    assert!(matches!(error, DocumentError::TooLarge(16_384)), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let served =
        serve(None, |client_id| Answer::Raw(302, vec![("location", format!("{client_id}.moved"))], String::new()))
            .await;
    let error = local().fetch(&served.client_id).await.expect_err("a redirect");
    assert!(matches!(error, DocumentError::Redirect(302)), "{error}");
    assert_eq!(served.requests.lock().expect("not poisoned").len(), 1, "one request, not two");

    let served = serve(None, |_| Answer::Raw(404, Vec::new(), "not here".into())).await;
    let error = local().fetch(&served.client_id).await.expect_err("not found");
    assert_eq!(error.to_string(), "the document server answered 404");
    assert!(!error.is_unreachable());
    let served = serve(None, |_| Answer::Raw(503, Vec::new(), String::new())).await;
    assert!(local().fetch(&served.client_id).await.expect_err("unavailable").is_unreachable());
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let served = serve(None, |_| Answer::Never).await;
    let started = std::time::Instant::now();
    let error = local().timeout(Duration::from_millis(300)).fetch(&served.client_id).await.expect_err("no answer");
    assert_eq!(error.to_string(), "fetching the document took longer than 0.3 s");
    assert!(error.is_unreachable());
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_document_of_another_type_is_refused() {
    let served = serve(None, |client_id| {
        Answer::Raw(200, vec![("content-type", "text/html".into())], document(client_id).to_string())
    })
    .await;
    let error = local().fetch(&served.client_id).await.expect_err("HTML");
    assert_eq!(error.to_string(), "the document's content type is \"text/html\", not application/json");
    let served = serve(None, |client_id| Answer::Raw(200, Vec::new(), document(client_id).to_string())).await;
    let error = local().fetch(&served.client_id).await.expect_err("no type");
    assert!(matches!(error, DocumentError::ContentType(_)), "{error}");
    let served = serve(None, |_| Answer::Raw(200, vec![("content-type", "application/json".into())], "{".into())).await;
    let error = local().fetch(&served.client_id).await.expect_err("no JSON");
    assert!(matches!(error, DocumentError::NotJson(_)), "{error}");
}

#[tokio::test]
async fn loopback_is_refused_unless_allowed() {
    let served = serve(None, |client_id| Answer::Document(document(client_id))).await;
    let error = ClientDocuments::new().allow_plain_http().fetch(&served.client_id).await.expect_err("loopback");
    assert_eq!(error.to_string(), "the document's host resolves to a private address (127.0.0.1)");
    let error = ClientDocuments::new().fetch(&served.client_id).await.expect_err("plain HTTP");
    assert!(matches!(error, DocumentError::NotHttps), "{error}");
    // The server takes connections in order: one made by the refused
    // fetches would have been counted before this one.
    local().fetch(&served.client_id).await.expect("allowed");
    assert_eq!(served.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn nothing_listening_is_unreachable() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("an address").port();
    drop(listener);
    let error = local().fetch(&format!("http://127.0.0.1:{port}/client.json")).await.expect_err("refused");
    assert!(matches!(error, DocumentError::Unreachable(_)), "{error}");
    assert!(error.is_unreachable());
}

/// A self-signed certificate for `localhost` (P-256, valid 2000 to
/// 9999), made for these tests with OpenSSL: rcgen is no dependency of
/// this crate.
const CERTIFICATE: &str = "-----BEGIN CERTIFICATE-----
MIIBXjCCAQSgAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlsb2NhbGhv
c3QwIBcNMDAwMTAxMDAwMDAwWhgPOTk5OTEyMzEyMzU5NTlaMBQxEjAQBgNVBAMM
CWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABDU0mQgcJYv0LgRH
fLvfFO0h4Ag8IY00n9fa/FqYTNgK5Lfp1m613MEliry6Kwcem0CkMgYMV7BiNpPy
ZzKNQaijRTBDMBQGA1UdEQQNMAuCCWxvY2FsaG9zdDAMBgNVHRMBAf8EAjAAMB0G
A1UdDgQWBBSDXHdM07bg8mQpSpOPiurXq3OzLjAKBggqhkjOPQQDAgNIADBFAiAr
not9+K7GDKdU5bXIWoW/XQayNuSz9EY+oYpasLjtPQIhAMYIzBwb7T1n+znxp/yh
ENB6Y+VVGozZc9QWlxWpjLu7
-----END CERTIFICATE-----
";
/// Its key, known to anyone who reads this.
const KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgfv/90j4g4QeEKMg8
DWUT/TOebjqsh4nhkm6sWqOQRx+hRANCAAQ1NJkIHCWL9C4ER3y73xTtIeAIPCGN
NJ/X2vxamEzYCuS36dZutdzBJYq8uisHHptApDIGDFewYjaT8mcyjUGo
-----END PRIVATE KEY-----
";

/// [`CERTIFICATE`] in DER, to trust it.
fn certificate() -> CertificateDer<'static> {
    use rustls::pki_types::pem::PemObject as _;
    CertificateDer::from_pem_slice(CERTIFICATE.as_bytes()).expect("a certificate")
}

/// A TLS server's side, with [`CERTIFICATE`].
fn acceptor() -> tokio_rustls::TlsAcceptor {
    use rustls::pki_types::PrivateKeyDer;
    use rustls::pki_types::pem::PemObject as _;
    let key = PrivateKeyDer::from_pem_slice(KEY.as_bytes()).expect("a key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![certificate()], key)
        .expect("a TLS server");
    tokio_rustls::TlsAcceptor::from(Arc::new(config))
}

#[tokio::test]
async fn a_document_is_fetched_over_tls() {
    let served = serve(Some(acceptor()), |client_id| Answer::Document(document(client_id))).await;
    let trusting = ClientDocuments::new().allow_private_addresses().extra_roots(vec![certificate()]);
    let (fetched, _) = trusting.fetch(&served.client_id).await.expect("the document over TLS");
    assert_eq!(fetched.client_id, served.client_id);
    // Again, with the TLS client made the first time.
    trusting.clone().fetch(&served.client_id).await.expect("again");

    // Without the test's root the certificate is no one's.
    let error = ClientDocuments::new().allow_private_addresses().fetch(&served.client_id).await.expect_err("untrusted");
    assert!(matches!(error, DocumentError::Unreachable(_)), "{error}");
    assert!(error.to_string().contains("TLS"), "{error}");
}
