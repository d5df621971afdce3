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
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, ServerName};
use url::{Host, Url};

use crate::auth::client::chain;

mod address;
mod client_id;
mod document;
mod error;
mod fetch;

use address::is_public;
use client_id::check_url;
pub(crate) use document::ClientDocument;
use document::read_document;
pub(crate) use error::DocumentError;
use fetch::{connect, exchange};

/// How long a whole fetch may take by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// How large a document may be by default: a name and a few redirect URIs
/// take a few hundred bytes.
const DEFAULT_MAX_BYTES: usize = 16 * 1024;

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

#[cfg(test)]
mod tests;
