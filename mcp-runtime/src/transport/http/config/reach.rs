//! The settings of who reaches the server, and by which names: the
//! `Host` and `Origin` checks, the public URL, the proxies in front, CORS.

use super::HttpConfig;
use crate::transport::http::forwarded::{ForwardedHeader, TrustedProxies};

impl HttpConfig {
    /// Accepts these `Host` values instead of the loopback names (or,
    /// bound to a wider address, instead of the loopback names and
    /// addresses): a name without a port (`mcp.example.com`) accepts any
    /// port, one with a port (`mcp.example.com:8443`) only that port. An
    /// `Origin` naming an allowed host is accepted too. Add `localhost`
    /// yourself if you still want it. The [public URL](Self::public_url)'s
    /// host is accepted besides.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.origin.allow_hosts(hosts.into_iter().map(Into::into));
        self
    }

    /// Accepts any `Host`, for servers reached through names that cannot be
    /// listed. An `Origin`, when sent, must then be same-origin (its host
    /// equals the `Host` header) or [allowed](Self::allowed_origins).
    ///
    /// This gives up the protection against DNS rebinding: a web page whose
    /// name resolves to this server's address can call it. Use it only for
    /// a server that authenticates its callers, or that no browser can
    /// reach.
    pub fn allow_any_host(mut self) -> Self {
        self.origin.allow_any_host();
        self
    }

    /// Accepts requests carrying these exact `Origin` values (such as
    /// `https://app.example.com`) in addition to the ones the host rule
    /// accepts.
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.origin.allow_origins(origins.into_iter().map(Into::into));
        self
    }

    /// Lets web pages call the standalone server from other origins
    /// (default off): it answers CORS preflights (`OPTIONS`, 204) and adds
    /// `Access-Control-Allow-Origin` to its responses, for the origins the
    /// `Origin`/`Host` check accepts (so loopback pages by default, plus
    /// [`allowed_origins`](Self::allowed_origins)); other origins are still
    /// refused with 403. Browsers may then send the MCP headers
    /// ([`CORS_REQUEST_HEADERS`](crate::transport::http::CORS_REQUEST_HEADERS), and `Mcp-Param-*`) and read
    /// [`CORS_EXPOSED_HEADERS`](crate::transport::http::CORS_EXPOSED_HEADERS). Off, a preflight is answered 405 and no
    /// page of another origin can read a response.
    ///
    /// ```
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// let config = HttpConfig::default().allowed_origins(["https://app.example.com"]).cors(true);
    /// # let _ = config;
    /// ```
    ///
    /// A service [mounted](crate::Server::http_service) in another application
    /// leaves CORS to that application's layers; see
    /// [`CORS_REQUEST_HEADERS`](crate::transport::http::CORS_REQUEST_HEADERS) for `tower-http`'s `CorsLayer`.
    pub fn cors(mut self, enabled: bool) -> Self {
        self.cors = enabled;
        self
    }

    /// The URL clients reach this server's endpoint by
    /// (`https://mcp.example.com/mcp`), when it is not the address it is
    /// bound to: behind a proxy or a balancer, or under a name. Its host
    /// is then accepted as `Host` (and its origin as `Origin`) whatever the
    /// other rules say: a server bound to `0.0.0.0` answers for its
    /// loopback names and its addresses only, until told its name. Later
    /// features that must name the server read it from here.
    ///
    /// A URL that does not read (no scheme or host) is ignored, with a
    /// warning.
    ///
    /// ```
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// let config = HttpConfig::default().public_url("https://mcp.example.com/mcp");
    /// # let _ = config;
    /// ```
    pub fn public_url(mut self, url: impl AsRef<str>) -> Self {
        match url.as_ref().parse::<http::Uri>() {
            Ok(uri) if uri.scheme().is_some() && uri.host().is_some() => {
                self.origin.allow_public(&uri);
                self.public_url = Some(uri);
            }
            _ => tracing::warn!(url = url.as_ref(), "HttpConfig::public_url: not an absolute http(s) URL, ignored"),
        }
        self
    }

    /// Believes the `hops` proxies in front of the server (at least 1)
    /// about who the client is: the address they write into `header` is
    /// the one rate limits, caches, quotas and logs key callers by,
    /// instead of the connection's peer, which is the nearest proxy (so
    /// that behind HAProxy every caller is not one).
    ///
    /// Each proxy appends the address it received the request from, so the
    /// client is the `hops`-th address from the end of the header: what a
    /// client wrote into the header itself comes before and is not
    /// believed. A request with fewer addresses than `hops` is keyed by the
    /// first it has; one whose address does not read, by the peer.
    ///
    /// Off by default, and to be set only when every request does come
    /// through those proxies: a client that reaches the server directly
    /// would choose its own address. With it set, the
    /// [per-address connection limit](Self::max_connections_per_address)
    /// is off (the peers are the proxies), unless set too.
    ///
    /// ```
    /// use mcp_runtime::transport::http::{ForwardedHeader, HttpConfig};
    ///
    /// // One HAProxy in front, `option forwardfor`.
    /// let config = HttpConfig::default().trusted_proxies(1, ForwardedHeader::XForwardedFor);
    /// # let _ = config;
    /// ```
    pub fn trusted_proxies(mut self, hops: usize, header: ForwardedHeader) -> Self {
        self.trusted_proxies = Some(TrustedProxies { hops: hops.max(1), header });
        self
    }
}
