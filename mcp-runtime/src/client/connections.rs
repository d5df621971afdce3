//! The connections of a client to its one server, over plain HTTP or HTTPS
//! (rustls: the platform's roots, which honour `SSL_CERT_FILE`, and any the
//! client adds), HTTP/2 when the server offers it by ALPN, HTTP/1.1
//! otherwise. One server, so no key to look connections up by and no pool
//! shared between servers.
//!
//! An HTTP/1.1 connection carries one exchange at a time (its response read
//! to the end, an event stream included, before it carries another): a
//! request takes the first free one, and gives it back as soon as its
//! response has begun (the connection is free again once that response is
//! read). An HTTP/2 connection carries every request at once, and is kept
//! while it lives.
//!
//! A connection the server closed while it was kept is dropped when next
//! looked at; a request it could not carry is sent on another, since it was
//! never written. Connections unused for [`IDLE`] are closed; at most
//! [`KEPT`] are kept.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::{http1, http2};
use hyper_rustls::{HttpsConnector, MaybeHttpsStream};
use hyper_util::client::legacy::connect::{Connection as _, HttpConnector};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::CertificateDer;
use tower_service::Service as _;

use crate::sync::lock;

/// How long a connection is kept unused.
const IDLE: Duration = Duration::from_secs(90);
/// How many connections are kept at most, in use or not: past it, a
/// connection given back is closed.
const KEPT: usize = 64;

type Body = Full<Bytes>;
type TlsStream = MaybeHttpsStream<TokioIo<tokio::net::TcpStream>>;

/// The connections to one server.
#[derive(Clone)]
pub(super) struct Connections {
    /// What connects over TLS: made at the first `https` connection, from
    /// the roots added until then.
    tls: Arc<OnceLock<Result<HttpsConnector<HttpConnector>, String>>>,
    /// Roots trusted besides the platform's.
    roots: Arc<Mutex<Vec<CertificateDer<'static>>>>,
    kept: Arc<Mutex<Vec<Kept>>>,
}

/// A kept connection, and when it was last given back.
struct Kept {
    sender: Sender,
    since: Instant,
}

/// What sends requests on one connection.
enum Sender {
    Http1(http1::SendRequest<Body>),
    Http2(http2::SendRequest<Body>),
}

impl Sender {
    fn is_ready(&self) -> bool {
        match self {
            Sender::Http1(sender) => sender.is_ready(),
            Sender::Http2(sender) => sender.is_ready(),
        }
    }

    fn is_closed(&self) -> bool {
        match self {
            Sender::Http1(sender) => sender.is_closed(),
            Sender::Http2(sender) => sender.is_closed(),
        }
    }
}

impl Connections {
    pub(super) fn new() -> Self {
        Connections { tls: Arc::default(), roots: Arc::default(), kept: Arc::default() }
    }

    /// The roots trusted besides the platform's, shared: those added later
    /// are in it too.
    #[cfg(feature = "client-auth")]
    pub(super) fn roots(&self) -> Arc<Mutex<Vec<CertificateDer<'static>>>> {
        Arc::clone(&self.roots)
    }

    /// Trusts `roots` besides the platform's, for the connections made from
    /// now on (the first connection settles the set).
    pub(super) fn add_roots(&self, roots: Vec<CertificateDer<'static>>) {
        lock(&self.roots).extend(roots);
    }

    /// Sends `request` (with an origin-form URI and a `Host`) to the server
    /// at `uri`, on a free connection or a new one.
    pub(super) async fn send(
        &self,
        uri: &http::Uri,
        mut request: http::Request<Body>,
    ) -> Result<http::Response<Incoming>, String> {
        loop {
            let now = Instant::now();
            let (sender, reused) = match self.free(now) {
                Some(sender) => (sender, true),
                // Boxed: connecting (resolving, trying each address, the
                // TLS handshake) takes far more room than sending, and
                // every request's future would be that large, and moved
                // whole.
                None => (Box::pin(self.connect(uri)).await?, false),
            };
            let sent = match sender {
                Sender::Http1(mut sender) => {
                    let sent = sender.try_send_request(request).await;
                    if sent.is_ok() {
                        self.give_back(Sender::Http1(sender), now);
                    }
                    sent
                }
                Sender::Http2(mut sender) => {
                    // HTTP/2 names the scheme and authority itself.
                    *request.uri_mut() = uri.clone();
                    request.headers_mut().remove(http::header::HOST);
                    if !reused {
                        self.give_back(Sender::Http2(sender.clone()), now);
                    }
                    sender.try_send_request(request).await
                }
            };
            match sent {
                Ok(response) => return Ok(response),
                // Closed before the request was written: another connection
                // carries it. A new one that fails so has failed.
                Err(mut refused) => match refused.take_message() {
                    Some(unsent) if reused => request = unsent,
                    _ => return Err(refused.into_error().to_string()),
                },
            }
        }
    }

    /// A kept connection that is free, if any; the closed and the stale are
    /// dropped on the way. An HTTP/2 connection stays kept for others.
    fn free(&self, now: Instant) -> Option<Sender> {
        let mut kept = lock(&self.kept);
        kept.retain(|k| !k.sender.is_closed() && now.duration_since(k.since) < IDLE);
        let at = kept.iter().rposition(|k| k.sender.is_ready())?;
        if let Sender::Http2(sender) = &kept[at].sender {
            let shared = sender.clone();
            kept[at].since = now;
            return Some(Sender::Http2(shared));
        }
        Some(kept.swap_remove(at).sender)
    }

    /// Keeps `sender` for the requests to come, unless enough are kept; it
    /// was last used at `now`.
    fn give_back(&self, sender: Sender, now: Instant) {
        let mut kept = lock(&self.kept);
        if kept.len() < KEPT {
            kept.push(Kept { sender, since: now });
        }
    }

    /// A new connection to the server at `uri`, served by a task of its own:
    /// over TLS for `https`, in HTTP/2 when the TLS handshake chose it.
    async fn connect(&self, uri: &http::Uri) -> Result<Sender, String> {
        if uri.scheme() != Some(&http::uri::Scheme::HTTPS) {
            // Plain TCP, without TLS's wrapper around every read and write.
            let stream = HttpConnector::new().call(uri.clone()).await.map_err(|e| e.to_string())?;
            return http1_over(stream).await;
        }
        let connector = self.tls.get_or_init(|| tls_connector(lock(&self.roots).clone())).clone()?;
        let stream: TlsStream = connector.clone().call(uri.clone()).await.map_err(|e| e.to_string())?;
        if !stream.connected().is_negotiated_h2() {
            return http1_over(stream).await;
        }
        let (sender, connection) = http2::handshake(TokioExecutor::new(), stream).await.map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "a connection to the server ended");
            }
        });
        Ok(Sender::Http2(sender))
    }
}

/// HTTP/1.1 on `stream`, served by a task of its own.
async fn http1_over<S>(stream: S) -> Result<Sender, String>
where
    S: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = http1::handshake(stream).await.map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "a connection to the server ended");
        }
    });
    sender.ready().await.map_err(|e| e.to_string())?;
    Ok(Sender::Http1(sender))
}

/// What connects to an `https` server: TCP, then TLS (rustls with ring,
/// the platform's roots and `extra_roots`, ALPN offering HTTP/2 and
/// HTTP/1.1).
fn tls_connector(extra_roots: Vec<CertificateDer<'static>>) -> Result<HttpsConnector<HttpConnector>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(extra_roots, Arc::clone(&provider))
        .map_err(|e| format!("no roots to verify the server's certificate with: {e}"))?;
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("no TLS client: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    let mut http = HttpConnector::new();
    // The TCP under the TLS: its URL says `https`.
    http.enforce_http(false);
    Ok(hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_only()
        .enable_http1()
        .enable_http2()
        .wrap_connector(http))
}
