//! Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document;
//! client registration in MCP 2025-11-25): a client id that is an `https`
//! URL names a JSON document, at that URL, describing the client.
//!
//! Fetching it means making a request to a URL an unauthenticated caller
//! chose, from inside the server's network: the classic server-side
//! request forgery. So the fetch is narrow. The host is resolved here and
//! every address it resolves to must be a public one; the connection goes
//! to an address so checked, never to the name again (a second DNS answer
//! cannot point it elsewhere); no redirect is followed; the answer is
//! read up to a few kilobytes and within a few seconds, DNS, connection
//! and TLS included.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HOST, USER_AGENT};
use http::{HeaderMap, Request};
use http_body_util::{BodyExt as _, Empty, LengthLimitError, Limited};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Map, Value};
use url::{Host, Position, Url};

use crate::auth::client::chain;

/// How long a whole fetch may take by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// How large a document may be by default: a name and a few redirect URIs
/// take a few hundred bytes.
const DEFAULT_MAX_BYTES: usize = 16 * 1024;

/// The longest client id, and the longest redirect URI, in bytes.
const MAX_URL_BYTES: usize = 2048;

/// The most redirect URIs a document may name.
const MAX_REDIRECT_URIS: usize = 20;

/// The longest `client_name`, in characters: it is shown on the consent page.
const MAX_NAME_CHARS: usize = 200;

/// The bounds of how long a fetched document is kept: not fetched again on
/// every authorization, yet a change (a redirect URI withdrawn) is seen
/// within a day.
const MIN_CACHE: Duration = Duration::from_secs(60);
/// The longest a fetched document is kept (see [`MIN_CACHE`]).
const MAX_CACHE: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a document without a `max-age` is kept.
const DEFAULT_CACHE: Duration = Duration::from_secs(60 * 60);

/// The most the answer's status line and headers may take: hyper's own
/// limit is some hundreds of kilobytes, far more than a document server
/// needs to say.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The most of a value a client developer is shown in an error.
const SHOWN_CHARS: usize = 100;

/// How the front fetches the Client ID Metadata Document of a client whose
/// id is an `https` URL: within how long, how much of it, and which
/// exceptions to the rules against server-side request forgery it makes.
///
/// By default: 5 seconds for the whole fetch (DNS, connection, TLS and
/// body), 16 KiB, `https` only, public addresses only, the platform's
/// certificate roots.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::oauth_proxy::ClientDocuments;
///
/// let documents = ClientDocuments::new().timeout(Duration::from_secs(3)).max_bytes(8 * 1024);
/// # let _ = documents;
/// ```
#[derive(Debug, Clone)]
pub struct ClientDocuments {
    timeout: Duration,
    max_bytes: usize,
    private_addresses: bool,
    plain_http: bool,
    extra_roots: Vec<CertificateDer<'static>>,
    tls: Tls,
}

impl ClientDocuments {
    /// The default policy: 5 s, 16 KiB, `https` to public addresses only.
    pub fn new() -> Self {
        ClientDocuments {
            timeout: DEFAULT_TIMEOUT,
            max_bytes: DEFAULT_MAX_BYTES,
            private_addresses: false,
            plain_http: false,
            extra_roots: Vec::new(),
            tls: Tls::default(),
        }
    }

    /// How long a whole fetch may take: resolving the host, connecting,
    /// the TLS handshake, the answer and its body (5 s by default). The
    /// person waits for it on their first authorization.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How large a document may be, in bytes (16 KiB by default). A larger
    /// answer is refused as soon as that is known, without reading the
    /// rest.
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Permits documents on any address: loopback, private networks
    /// (RFC 1918, `fc00::/7`), link-local, shared address space
    /// (`100.64.0.0/10`) and the other special-purpose ranges.
    ///
    /// **Unsafe** outside tests and closed intranets: anyone who can reach
    /// the authorization endpoint could then make the server send requests
    /// into its own network (and learn, from the errors, what answers there).
    pub fn allow_private_addresses(mut self) -> Self {
        self.private_addresses = true;
        self
    }

    /// Permits `http://` client ids too.
    ///
    /// **Unsafe** outside tests: a document fetched in clear can be
    /// replaced on its way, redirect URIs included. It permits no address
    /// by itself: a test on loopback needs
    /// [`allow_private_addresses`](Self::allow_private_addresses) as well.
    pub fn allow_plain_http(mut self) -> Self {
        self.plain_http = true;
        self
    }

    /// Certificate authorities trusted besides the platform's roots: an
    /// intranet's CA, or a test's.
    pub fn extra_roots(mut self, roots: Vec<CertificateDer<'static>>) -> Self {
        self.extra_roots = roots;
        // A TLS client already made trusts the former roots.
        self.tls = Tls::default();
        self
    }

    /// Whether `client_id` is meant as the URL of a document (rather than
    /// the id of a registration made here), valid or not: one that starts
    /// with `https://`, or `http://` where plain HTTP is allowed.
    pub(crate) fn is_document_url(&self, client_id: &str) -> bool {
        client_id.starts_with("https://") || (self.plain_http && client_id.starts_with("http://"))
    }

    /// Fetches the document `client_id` names and checks it: the document,
    /// and how long it may be kept (its `Cache-Control: max-age`, within a
    /// minute and a day; an hour without one).
    pub(crate) async fn fetch(&self, client_id: &str) -> Result<(ClientDocument, Duration), DocumentError> {
        let url = check_url(client_id, self.plain_http)?;
        let (body, lifetime) = tokio::time::timeout(self.timeout, self.get(&url))
            .await
            .map_err(|_| DocumentError::Timeout(self.timeout))??;
        Ok((read_document(client_id, &body)?, lifetime))
    }

    /// GETs `url` (checked by [`check_url`]): its body and how long it may
    /// be kept.
    async fn get(&self, url: &Url) -> Result<(Bytes, Duration), DocumentError> {
        let port = url.port_or_known_default().unwrap_or(443);
        let host = url.host().ok_or(DocumentError::InvalidUrl("it has no host"))?;
        let addresses = self.resolve(&host, port).await?;
        let tcp = connect(&addresses).await?;
        if url.scheme() == "http" {
            return exchange(TokioIo::new(tcp), url, self.max_bytes).await;
        }
        let name = match host {
            Host::Domain(name) => ServerName::try_from(name.to_owned())
                .map_err(|_| DocumentError::InvalidUrl("its host is not a DNS name"))?,
            Host::Ipv4(ip) => ServerName::IpAddress(IpAddr::V4(ip).into()),
            Host::Ipv6(ip) => ServerName::IpAddress(IpAddr::V6(ip).into()),
        };
        let tls = tokio_rustls::TlsConnector::from(self.tls_config()?)
            .connect(name, tcp)
            .await
            .map_err(|e| DocumentError::Unreachable(format!("no TLS connection: {}", chain(&e))))?;
        exchange(TokioIo::new(tls), url, self.max_bytes).await
    }

    /// The addresses of `host`, each checked: a name resolved here, once,
    /// and refused if any of its addresses is not public, since the one
    /// connected to could be any of them.
    async fn resolve(&self, host: &Host<&str>, port: u16) -> Result<Vec<SocketAddr>, DocumentError> {
        let mut addresses: Vec<SocketAddr> = match *host {
            Host::Ipv4(ip) => vec![SocketAddr::new(IpAddr::V4(ip), port)],
            Host::Ipv6(ip) => vec![SocketAddr::new(IpAddr::V6(ip), port)],
            Host::Domain(name) => tokio::net::lookup_host((name, port))
                .await
                .map_err(|e| DocumentError::Unreachable(format!("the host {name} could not be resolved: {e}")))?
                .collect(),
        };
        // The resolver lists an address once per socket type.
        let mut seen = Vec::with_capacity(addresses.len());
        addresses.retain(|address| {
            let new = !seen.contains(address);
            seen.push(*address);
            new
        });
        if addresses.is_empty() {
            return Err(DocumentError::Unreachable(format!("the host {host} resolves to no address")));
        }
        if !self.private_addresses
            && let Some(private) = addresses.iter().map(SocketAddr::ip).find(|ip| !is_public(*ip))
        {
            return Err(DocumentError::PrivateAddress(private));
        }
        Ok(addresses)
    }

    /// The TLS client, made once per set of roots: reading the platform's
    /// roots is not for every fetch.
    fn tls_config(&self) -> Result<Arc<rustls::ClientConfig>, DocumentError> {
        if let Some(config) = self.tls.0.get() {
            return Ok(Arc::clone(config));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier =
            rustls_platform_verifier::Verifier::new_with_extra_roots(self.extra_roots.clone(), Arc::clone(&provider))
                .map_err(|e| DocumentError::Unreachable(format!("no TLS client could be made: {e}")))?;
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| DocumentError::Unreachable(format!("no TLS client could be made: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        // The request is made in HTTP/1.1, whatever else the server speaks.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        // Two fetches racing here make two equal clients; one is kept.
        Ok(Arc::clone(self.tls.0.get_or_init(|| Arc::new(config))))
    }
}

impl Default for ClientDocuments {
    fn default() -> Self {
        Self::new()
    }
}

/// The TLS client of a policy, made on its first `https` fetch and shared
/// by its clones.
#[derive(Clone, Default)]
struct Tls(Arc<OnceLock<Arc<rustls::ClientConfig>>>);

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() { "Tls(made)" } else { "Tls(not yet made)" })
    }
}

/// A Client ID Metadata Document, checked: what the front keeps of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ClientDocument {
    /// The document's URL, which is its `client_id`.
    pub(crate) client_id: String,
    /// What the consent page calls the client: at most 200 characters,
    /// none a control or bidirectional formatting character.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_name: Option<String>,
    /// Where the client may be sent back: 1 to 20 absolute URIs without a
    /// fragment, each at most 2048 bytes.
    pub(crate) redirect_uris: Vec<String>,
    /// The client's home page: an `http` or `https` URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_uri: Option<String>,
}

/// Why a client id's document cannot be used, in words for the client's
/// developer (they reach them as an `error_description`, or on the error
/// page the person sees).
#[derive(Debug, thiserror::Error)]
pub(crate) enum DocumentError {
    /// The client id is not an `https` URL (or `http`, where allowed).
    #[error("the client id is not an https URL")]
    NotHttps,
    /// The client id is a URL no document may have.
    #[error("the client id is not a usable document URL: {0}")]
    InvalidUrl(&'static str),
    /// The host is, or resolves to, an address that is not public.
    #[error("the document's host resolves to a private address ({0})")]
    PrivateAddress(IpAddr),
    /// No answer: the host unknown, no connection, TLS failed, the
    /// connection broken. Another try may succeed.
    #[error("the document could not be fetched: {0}")]
    Unreachable(String),
    /// No whole answer within the policy's timeout.
    #[error("fetching the document took longer than {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// A redirect, which is not followed: the client id must be where the
    /// document is.
    #[error(
        "the document server answered {0}, a redirect, which is not followed: the client id must be the document's own URL"
    )]
    Redirect(u16),
    /// A status other than 200.
    #[error("the document server answered {0}")]
    Status(u16),
    /// A `Content-Type` other than `application/json`.
    #[error("the document's content type is {0}, not application/json")]
    ContentType(String),
    /// A document larger than the policy's limit.
    #[error("the document is larger than {0} bytes")]
    TooLarge(usize),
    /// A body that is not a JSON object.
    #[error("the document is not a JSON object: {0}")]
    NotJson(String),
    /// A document whose `client_id` is not the URL it was fetched from.
    #[error("the document's client_id is not its URL: {0}")]
    ClientIdMismatch(String),
    /// A document with no redirect URI, or an empty list of them.
    #[error("the document names no redirect_uris")]
    NoRedirectUris,
    /// A document with a secret: it is public, so whatever secret it holds
    /// is known to everyone.
    #[error("the document holds a {0}: a client metadata document is public and cannot hold a secret")]
    Secret(&'static str),
    /// A `token_endpoint_auth_method` other than `none`.
    #[error(
        "the document's token_endpoint_auth_method is {0}: only \"none\" is accepted, as this server cannot verify private_key_jwt or any other authentication of a client known by its document"
    )]
    AuthMethod(String),
    /// A field of the wrong type or value.
    #[error("the document's {field} {reason}")]
    InvalidField {
        /// The field, as the document names it.
        field: &'static str,
        /// What is wrong with it, a phrase after the field's name.
        reason: String,
    },
}

impl DocumentError {
    /// Whether the document could not be had, rather than was had and is
    /// unusable: no answer, no answer in time, or a server error, all of
    /// which another try may mend.
    pub(crate) fn is_unreachable(&self) -> bool {
        match self {
            DocumentError::Unreachable(_) | DocumentError::Timeout(_) => true,
            DocumentError::Status(status) => *status >= 500,
            _ => false,
        }
    }
}

/// `client_id` parsed, if it is a URL a document may have: `https` (or
/// `http` if `plain_http`), a host, a path, and nothing else (no user
/// info, query or fragment, no dot segments).
fn check_url(client_id: &str, plain_http: bool) -> Result<Url, DocumentError> {
    let rest = match client_id.strip_prefix("https://") {
        Some(rest) => rest,
        None if plain_http => client_id.strip_prefix("http://").ok_or(DocumentError::NotHttps)?,
        None => return Err(DocumentError::NotHttps),
    };
    if client_id.len() > MAX_URL_BYTES {
        return Err(DocumentError::InvalidUrl("it is longer than 2048 bytes"));
    }
    // The URL parser drops spaces and controls, takes `\` for `/`, and
    // resolves dot segments: the client id is compared with the document's
    // byte for byte, so what was asked for must be what is fetched.
    if !client_id.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(DocumentError::InvalidUrl("it has spaces, control or non-ASCII characters"));
    }
    if client_id.contains('\\') {
        return Err(DocumentError::InvalidUrl("it has a backslash"));
    }
    if client_id.contains('#') {
        return Err(DocumentError::InvalidUrl("it has a fragment"));
    }
    if client_id.contains('?') {
        return Err(DocumentError::InvalidUrl("it has a query"));
    }
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    // `https:///x` is `https://x/` to the parser.
    if authority.is_empty() {
        return Err(DocumentError::InvalidUrl("it has no host"));
    }
    if authority.contains('@') {
        return Err(DocumentError::InvalidUrl("it has user info"));
    }
    if path.split('/').any(is_dot_segment) {
        return Err(DocumentError::InvalidUrl("its path has . or .. segments"));
    }
    let url = Url::parse(client_id).map_err(|_| DocumentError::InvalidUrl("it is not a URL"))?;
    if url.host().is_none() {
        return Err(DocumentError::InvalidUrl("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(DocumentError::InvalidUrl("it has user info"));
    }
    if url.query().is_some() {
        return Err(DocumentError::InvalidUrl("it has a query"));
    }
    if url.fragment().is_some() {
        return Err(DocumentError::InvalidUrl("it has a fragment"));
    }
    if url.path() == "/" || url.path().is_empty() {
        return Err(DocumentError::InvalidUrl("it has no path (a document cannot be at /)"));
    }
    Ok(url)
}

/// Whether a path segment is `.` or `..`, spelled out or percent-encoded,
/// as the URL parser takes them.
fn is_dot_segment(segment: &str) -> bool {
    let segment = segment.to_ascii_lowercase();
    matches!(segment.as_str(), "." | ".." | "%2e" | "%2e%2e" | ".%2e" | "%2e.")
}

/// Whether `ip` is a public unicast address: none of the special-purpose
/// ranges (RFC 6890 and its updates) where a server's private neighbours
/// live, or that reach them (IPv4 mapped, NAT64, 6to4).
fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => is_public_v6(ip),
    }
}

/// [`is_public`] of an IPv4 address: outside every range IANA's
/// special-purpose registry lists, reachable from the Internet or not.
fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (b & 0xc0) == 64) // shared address space (CGNAT), 100.64/10
        || (a == 169 && b == 254) // link-local
        || (a == 172 && (b & 0xf0) == 16)
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast, deprecated
        || (a == 198 && (b & 0xfe) == 18) // benchmarking, 198.18/15
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || a >= 224) // multicast, reserved, broadcast
}

/// [`is_public`] of an IPv6 address: global unicast, outside the special
/// ranges within it, or carrying a public IPv4 address.
fn is_public_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    // An IPv4 address carried inside is where the packets go.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [_, _, _, _, _, _, high, low] = segments;
        return is_public_v4(Ipv4Addr::from((u32::from(high) << 16) | u32::from(low)));
    }
    if segments[0] == 0x2002 {
        return is_public_v4(Ipv4Addr::from((u32::from(segments[1]) << 16) | u32::from(segments[2])));
    }
    // Global unicast is 2000::/3; outside it are ::, ::1, IPv4-compatible,
    // the local NAT64 prefix, discard-only, unique local fc00::/7,
    // link-local fe80::/10, site-local, multicast ff00::/8.
    let special = match segments {
        // IETF protocol assignments 2001::/23 (Teredo, benchmarking,
        // ORCHID), documentation 2001:db8::/32.
        [0x2001, second, ..] => second < 0x0200 || second == 0x0db8,
        // Documentation, 3fff::/20.
        [first, ..] => (first & 0xfff0) == 0x3ff0,
    };
    (segments[0] & 0xe000) == 0x2000 && !special
}

/// A connection to the first of `addresses` that takes one.
async fn connect(addresses: &[SocketAddr]) -> Result<tokio::net::TcpStream, DocumentError> {
    let mut failure = None;
    for address in addresses {
        match tokio::net::TcpStream::connect(address).await {
            Ok(tcp) => return Ok(tcp),
            Err(e) => failure = Some(format!("no connection to {address}: {e}")),
        }
    }
    Err(DocumentError::Unreachable(failure.unwrap_or_else(|| "no address to connect to".into())))
}

/// One GET of `url` over `io` in HTTP/1.1: the body of a 200 answer in
/// JSON, and how long it may be kept.
async fn exchange<T>(io: T, url: &Url, max_bytes: usize) -> Result<(Bytes, Duration), DocumentError>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin,
{
    let broken = |e: hyper::Error| DocumentError::Unreachable(chain(&e));
    let (mut sender, connection) =
        hyper::client::conn::http1::Builder::new().max_buf_size(MAX_HEAD_BYTES).handshake(io).await.map_err(broken)?;
    // No cookie, no credentials: the request says nothing of this server.
    let request = Request::get(url.path())
        .header(HOST, &url[Position::BeforeHost..Position::AfterPort])
        .header(ACCEPT, "application/json")
        .header(USER_AGENT, concat!("mcp-runtime/", env!("CARGO_PKG_VERSION")))
        .body(Empty::<Bytes>::new())
        .map_err(|_| DocumentError::InvalidUrl("it is not a URL"))?;
    let answer = async move {
        let response = sender.send_request(request).await.map_err(broken)?;
        let (head, body) = response.into_parts();
        let lifetime = check_head(&head, max_bytes)?;
        let body = Limited::new(body, max_bytes).collect().await.map_err(|e| {
            if e.downcast_ref::<LengthLimitError>().is_some() {
                DocumentError::TooLarge(max_bytes)
            } else {
                DocumentError::Unreachable(chain(&*e))
            }
        })?;
        Ok((body.to_bytes(), lifetime))
    };
    // The connection is driven here, not by a task of its own, so that a
    // timeout, dropping this future, closes it.
    let mut answer = pin!(answer);
    let mut connection = pin!(connection);
    tokio::select! {
        biased;
        answer = &mut answer => answer,
        ended = &mut connection => match ended {
            // The body may still be on its way to the reader.
            Ok(()) => answer.as_mut().await,
            Err(e) => Err(broken(e)),
        },
    }
}

/// Checks the answer's status and headers before its body is read: how
/// long the document may be kept.
fn check_head(head: &http::response::Parts, max_bytes: usize) -> Result<Duration, DocumentError> {
    let status = head.status.as_u16();
    if head.status.is_redirection() {
        return Err(DocumentError::Redirect(status));
    }
    if status != 200 {
        return Err(DocumentError::Status(status));
    }
    let content_type = head.headers.get(CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let essence = content_type.as_deref().and_then(|v| v.split(';').next()).unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return Err(DocumentError::ContentType(match content_type {
            Some(content_type) => format!("{:?}", shorten(&content_type)),
            None => "missing".into(),
        }));
    }
    let length = head.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if length.is_some_and(|length| length > max_bytes as u64) {
        return Err(DocumentError::TooLarge(max_bytes));
    }
    Ok(cache_lifetime(&head.headers))
}

/// How long an answer with these headers may be kept: its `max-age`
/// within [`MIN_CACHE`] and [`MAX_CACHE`] (the shortest if several),
/// [`MIN_CACHE`] for `no-store` or `no-cache`, [`DEFAULT_CACHE`] without
/// either.
fn cache_lifetime(headers: &HeaderMap) -> Duration {
    let mut max_age: Option<u64> = None;
    let directives = headers.get_all(CACHE_CONTROL).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','));
    for directive in directives {
        let (name, value) = match directive.split_once('=') {
            Some((name, value)) => (name.trim(), Some(value.trim().trim_matches('"'))),
            None => (directive.trim(), None),
        };
        if name.eq_ignore_ascii_case("no-store") || name.eq_ignore_ascii_case("no-cache") {
            return MIN_CACHE;
        }
        if name.eq_ignore_ascii_case("max-age") {
            // RFC 9111 §1.2.2: too large a number is as large as can be; a
            // value that is not a number, stale.
            let seconds = match value {
                Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => v.parse().unwrap_or(u64::MAX),
                _ => 0,
            };
            max_age = Some(max_age.map_or(seconds, |shortest| shortest.min(seconds)));
        }
    }
    max_age.map_or(DEFAULT_CACHE, |seconds| Duration::from_secs(seconds).clamp(MIN_CACHE, MAX_CACHE))
}

/// The document in `body`, fetched from `client_id`, checked.
fn read_document(client_id: &str, body: &[u8]) -> Result<ClientDocument, DocumentError> {
    let document = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(document)) => document,
        Ok(_) => return Err(DocumentError::NotJson("it is JSON of another kind".into())),
        Err(e) => return Err(DocumentError::NotJson(e.to_string())),
    };
    for secret in ["client_secret", "client_secret_expires_at"] {
        if document.contains_key(secret) {
            return Err(DocumentError::Secret(secret));
        }
    }
    match document.get("client_id") {
        Some(Value::String(id)) if id == client_id => {}
        Some(Value::String(id)) => return Err(DocumentError::ClientIdMismatch(format!("it is {:?}", shorten(id)))),
        Some(_) => return Err(DocumentError::ClientIdMismatch("it is not a string".into())),
        None => return Err(DocumentError::ClientIdMismatch("it has none".into())),
    }
    let redirect_uris = strings(&document, "redirect_uris")?.ok_or(DocumentError::NoRedirectUris)?;
    if redirect_uris.is_empty() {
        return Err(DocumentError::NoRedirectUris);
    }
    if redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(invalid("redirect_uris", format!("has more than {MAX_REDIRECT_URIS} entries")));
    }
    for uri in &redirect_uris {
        check_redirect_uri(uri)?;
    }
    if let Some(method) = string(&document, "token_endpoint_auth_method")?
        && method != "none"
    {
        return Err(DocumentError::AuthMethod(format!("{:?}", shorten(method))));
    }
    if let Some(grant_types) = strings(&document, "grant_types")?
        && !grant_types.contains(&"authorization_code")
    {
        return Err(invalid("grant_types", "does not include \"authorization_code\"".into()));
    }
    if let Some(response_types) = strings(&document, "response_types")?
        && !response_types.contains(&"code")
    {
        return Err(invalid("response_types", "does not include \"code\"".into()));
    }
    let client_name = string(&document, "client_name")?;
    if let Some(name) = client_name {
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(invalid("client_name", format!("is longer than {MAX_NAME_CHARS} characters")));
        }
        // Bidirectional overrides would let a name read, on the consent
        // page, as another one.
        if name.chars().any(|c| c.is_control() || is_bidi_control(c)) {
            return Err(invalid("client_name", "has control or bidirectional formatting characters".into()));
        }
    }
    let client_uri = string(&document, "client_uri")?;
    // The consent page links it: a `javascript:` URL there would run.
    if let Some(uri) = client_uri
        && (uri.len() > MAX_URL_BYTES || !Url::parse(uri).is_ok_and(|url| matches!(url.scheme(), "https" | "http")))
    {
        return Err(invalid("client_uri", format!("is not an http or https URL of at most {MAX_URL_BYTES} bytes")));
    }
    Ok(ClientDocument {
        client_id: client_id.to_owned(),
        client_name: client_name.map(str::to_owned),
        redirect_uris: redirect_uris.into_iter().map(str::to_owned).collect(),
        client_uri: client_uri.map(str::to_owned),
    })
}

/// Whether `c` is one of the invisible characters that change the
/// direction of the text around them (Unicode Bidi_Control).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Checks one of a document's redirect URIs: an absolute URI, without a
/// fragment (RFC 6749 §3.1.2), short enough; kept as written, since
/// requests must name it exactly.
fn check_redirect_uri(uri: &str) -> Result<(), DocumentError> {
    let shown = shorten(uri);
    if uri.len() > MAX_URL_BYTES {
        return Err(invalid("redirect_uris", format!("has an entry longer than {MAX_URL_BYTES} bytes ({shown:?})")));
    }
    // The parser would drop these, and the URI compared would not be the
    // one used.
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid("redirect_uris", format!("has an entry with spaces or control characters ({shown:?})")));
    }
    if uri.contains('#') {
        return Err(invalid("redirect_uris", format!("has an entry with a fragment ({shown:?})")));
    }
    if Url::parse(uri).is_err() {
        return Err(invalid("redirect_uris", format!("has an entry that is not an absolute URI ({shown:?})")));
    }
    Ok(())
}

/// The string `field` of `document`, if present (`null` is absent).
fn string<'a>(document: &'a Map<String, Value>, field: &'static str) -> Result<Option<&'a str>, DocumentError> {
    match document.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(value)) => Ok(Some(value)),
        Some(_) => Err(invalid(field, "is not a string".into())),
    }
}

/// The array of strings `field` of `document`, if present (`null` is
/// absent).
fn strings<'a>(document: &'a Map<String, Value>, field: &'static str) -> Result<Option<Vec<&'a str>>, DocumentError> {
    match document.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(values)) => values
            .iter()
            .map(|value| value.as_str().ok_or_else(|| invalid(field, "is not an array of strings".into())))
            .collect::<Result<_, _>>()
            .map(Some),
        Some(_) => Err(invalid(field, "is not an array of strings".into())),
    }
}

/// A [`DocumentError::InvalidField`].
fn invalid(field: &'static str, reason: String) -> DocumentError {
    DocumentError::InvalidField { field, reason }
}

/// `value`, cut to what an error message may show of it.
fn shorten(value: &str) -> String {
    match value.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll};

    use http::Response;
    use http_body_util::Full;
    use http_body_util::combinators::BoxBody;
    use hyper::body::{Body, Frame, Incoming};
    use serde_json::json;

    use super::*;

    #[test]
    fn addresses_are_classified() {
        let table: &[(&str, bool)] = &[
            // IPv4
            ("0.0.0.0", false),
            ("0.1.2.3", false),
            ("10.0.0.3", false),
            ("10.255.255.255", false),
            ("100.63.255.255", true),
            ("100.64.0.1", false),
            ("100.127.255.255", false),
            ("100.128.0.0", true),
            ("127.0.0.1", false),
            ("127.255.0.1", false),
            ("169.254.169.254", false),
            ("172.15.255.255", true),
            ("172.16.0.1", false),
            ("172.31.255.255", false),
            ("172.32.0.0", true),
            ("192.0.0.8", false),
            ("192.0.2.1", false),
            ("192.88.99.1", false),
            ("192.168.1.1", false),
            ("192.169.0.1", true),
            ("198.17.255.255", true),
            ("198.18.0.1", false),
            ("198.19.255.255", false),
            ("198.20.0.0", true),
            ("198.51.100.7", false),
            ("203.0.113.9", false),
            ("224.0.0.1", false),
            ("239.255.255.250", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            ("1.1.1.1", true),
            ("8.8.8.8", true),
            ("93.184.216.34", true),
            ("223.255.255.254", true),
            // IPv6
            ("::", false),
            ("::1", false),
            ("::a00:3", false), // IPv4-compatible, deprecated
            ("fc00::1", false),
            ("fd12:3456::1", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("ff02::1", false),
            ("ff0e::1", false),
            ("2001:db8::1", false),
            ("2001::1", false),   // Teredo
            ("2001:2::1", false), // benchmarking
            ("3fff::1", false),
            ("100::1", false),
            ("64:ff9b:1::1", false),
            ("::ffff:10.0.0.3", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:169.254.169.254", false),
            ("::ffff:8.8.8.8", true),
            ("64:ff9b::10.0.0.3", false),
            ("64:ff9b::127.0.0.1", false),
            ("64:ff9b::8.8.8.8", true),
            ("2002:0a00:0003::1", false), // 6to4 of 10.0.0.3
            ("2002:0808:0808::1", true),  // 6to4 of 8.8.8.8
            ("2001:4860:4860::8888", true),
            ("2606:4700:4700::1111", true),
            ("2a00:1450::1", true),
        ];
        for (address, public) in table {
            let ip: IpAddr = address.parse().expect("an address");
            assert_eq!(is_public(ip), *public, "{address}");
        }
    }

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

    #[test]
    fn max_age_is_read_and_bounded() {
        fn lifetime(values: &[&str]) -> Duration {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(CACHE_CONTROL, value.parse().expect("a header value"));
            }
            cache_lifetime(&headers)
        }
        let minute = Duration::from_secs(60);
        let hour = Duration::from_secs(3600);
        let day = Duration::from_secs(86_400);
        assert_eq!(lifetime(&[]), hour);
        assert_eq!(lifetime(&["public"]), hour);
        assert_eq!(lifetime(&["max-age=600"]), Duration::from_secs(600));
        assert_eq!(lifetime(&["public, MAX-AGE = 7200 , must-revalidate"]), Duration::from_secs(7200));
        assert_eq!(lifetime(&["max-age=\"900\""]), Duration::from_secs(900));
        assert_eq!(lifetime(&["max-age=5"]), minute);
        assert_eq!(lifetime(&["max-age=0"]), minute);
        assert_eq!(lifetime(&["max-age=31536000"]), day);
        assert_eq!(lifetime(&["max-age=99999999999999999999999"]), day);
        assert_eq!(lifetime(&["max-age=-1"]), minute);
        assert_eq!(lifetime(&["max-age=soon"]), minute);
        assert_eq!(lifetime(&["max-age=600", "max-age=300"]), Duration::from_secs(300));
        assert_eq!(lifetime(&["no-store"]), minute);
        assert_eq!(lifetime(&["max-age=3600, no-cache"]), minute);
        assert_eq!(lifetime(&["s-maxage=600"]), hour);
    }

    /// The client id of the documents checked without a fetch.
    const ID: &str = "https://app.example.com/client.json";

    /// [`read_document`] of `document` as fetched from [`ID`].
    fn read(document: Value) -> Result<ClientDocument, DocumentError> {
        read_document(ID, document.to_string().as_bytes())
    }

    #[test]
    fn documents_are_checked() {
        let good = json!({
            "client_id": ID,
            "client_name": "Example App",
            "client_uri": "https://app.example.com",
            "redirect_uris": ["http://127.0.0.1/callback", "com.example.app:/callback"],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "logo_uri": "https://app.example.com/logo.png",
        });
        let document = read(good.clone()).expect("a good document");
        assert_eq!(
            document,
            ClientDocument {
                client_id: ID.into(),
                client_name: Some("Example App".into()),
                redirect_uris: vec!["http://127.0.0.1/callback".into(), "com.example.app:/callback".into()],
                client_uri: Some("https://app.example.com".into()),
            }
        );
        let minimal = read(json!({"client_id": ID, "redirect_uris": ["https://app.example.com/cb"]})).expect("minimal");
        assert_eq!(minimal.client_name, None);
        assert_eq!(minimal.client_uri, None);

        let with = |field: &str, value: Value| {
            let mut document = good.clone();
            document[field] = value;
            read(document).expect_err(field).to_string()
        };
        let without = |field: &str| {
            let mut document = good.clone();
            document.as_object_mut().expect("an object").remove(field);
            read(document).expect_err(field).to_string()
        };
        assert_eq!(
            with("client_id", json!("https://app.example.com/other.json")),
            "the document's client_id is not its URL: it is \"https://app.example.com/other.json\""
        );
        assert!(with("client_id", json!("https://app.example.com/client.json/")).contains("not its URL"));
        assert!(with("client_id", json!("https://APP.example.com/client.json")).contains("not its URL"));
        assert!(with("client_id", json!(7)).contains("not its URL"));
        assert!(without("client_id").contains("not its URL"));
        assert_eq!(without("redirect_uris"), "the document names no redirect_uris");
        assert_eq!(with("redirect_uris", json!([])), "the document names no redirect_uris");
        assert!(with("redirect_uris", json!(null)).contains("no redirect_uris"));
        assert!(with("redirect_uris", json!("https://a.example/cb")).contains("not an array of strings"));
        assert!(with("redirect_uris", json!([1])).contains("not an array of strings"));
        let many: Vec<String> = (0..21).map(|i| format!("https://app.example.com/cb{i}")).collect();
        assert!(with("redirect_uris", json!(many)).contains("more than 20"));
        let long = format!("https://app.example.com/{}", "a".repeat(2048));
        assert!(with("redirect_uris", json!([long])).contains("longer than 2048 bytes"));
        assert!(with("redirect_uris", json!(["https://app.example.com/cb#top"])).contains("fragment"));
        assert!(with("redirect_uris", json!(["/callback"])).contains("not an absolute URI"));
        assert!(with("redirect_uris", json!([" https://app.example.com/cb"])).contains("spaces"));
        assert!(with("token_endpoint_auth_method", json!("private_key_jwt")).contains("cannot verify private_key_jwt"));
        assert!(with("token_endpoint_auth_method", json!("client_secret_basic")).contains("only \"none\""));
        assert!(with("grant_types", json!(["client_credentials"])).contains("authorization_code"));
        assert!(with("response_types", json!(["token"])).contains("\"code\""));
        assert!(with("client_name", json!("x".repeat(201))).contains("longer than 200 characters"));
        assert!(with("client_name", json!("Evil\u{202e}ppA")).contains("bidirectional formatting"));
        assert!(with("client_name", json!("Line\nbreak")).contains("control"));
        assert!(with("client_name", json!(["a"])).contains("is not a string"));
        assert!(with("client_uri", json!("javascript:alert(1)")).contains("not an http or https URL"));
        assert_eq!(
            with("client_secret", json!("s3cret")),
            "the document holds a client_secret: a client metadata document is public and cannot hold a secret"
        );
        assert!(with("client_secret_expires_at", json!(0)).contains("cannot hold a secret"));
        read(json!({"client_id": ID, "redirect_uris": ["https://a.example/cb"], "client_name": "é".repeat(200)}))
            .expect("200 characters, not bytes");
        assert!(read_document(ID, b"[1]").expect_err("an array").to_string().contains("not a JSON object"));
        assert!(read_document(ID, b"{").expect_err("no JSON").to_string().contains("not a JSON object"));
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
        let served =
            Served { client_id: client_id.clone(), connections: connections.clone(), requests: requests.clone() };
        let answer = Arc::new(answer);
        tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else { return };
                connections.fetch_add(1, Ordering::SeqCst);
                let (answer, requests, client_id, tls) =
                    (answer.clone(), requests.clone(), client_id.clone(), tls.clone());
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
        let served =
            serve(None, |_| Answer::Raw(200, vec![("content-type", "application/json".into())], "{".into())).await;
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
        let error =
            ClientDocuments::new().allow_private_addresses().fetch(&served.client_id).await.expect_err("untrusted");
        assert!(matches!(error, DocumentError::Unreachable(_)), "{error}");
        assert!(error.to_string().contains("TLS"), "{error}");
    }
}
