//! A request as telemetry describes it: where it came from ([`Origin`]) and
//! what it names ([`Target`]).

/// Where a request came from, as far as the conventions describe it.
#[derive(Clone, Copy, Default)]
pub(crate) struct Origin<'a> {
    /// `network.transport`: `tcp` or `pipe`; `None` in process.
    pub(super) transport: Option<&'static str>,
    /// The head of the HTTP request that carried it.
    #[cfg(feature = "http")]
    pub(super) http: Option<&'a http::request::Parts>,
    #[cfg(not(feature = "http"))]
    pub(super) http: std::marker::PhantomData<&'a ()>,
    /// Served inside another request's span (a 2025-era session's request
    /// rewritten for the dispatcher): observed by that one.
    nested: bool,
}

impl<'a> Origin<'a> {
    /// A line of the stdio transport (or a 2025-era request that came
    /// without an HTTP head).
    #[cfg(any(feature = "stdio", feature = "session"))]
    pub(crate) fn stdio() -> Self {
        Origin { transport: Some("pipe"), ..Origin::default() }
    }

    /// An HTTP request, with its head.
    #[cfg(feature = "http")]
    pub(crate) fn http(parts: &'a http::request::Parts) -> Self {
        Origin { transport: Some("tcp"), http: Some(parts), nested: false }
    }

    /// A request observed by the one it is served for.
    #[cfg(all(feature = "session", not(feature = "http")))]
    pub(crate) fn nested() -> Self {
        Origin { nested: true, ..Origin::default() }
    }

    /// A request observed by the one it is served for, which came over
    /// HTTP with the head `parts`: what its caller may see is known as it
    /// is routed.
    #[cfg(all(feature = "session", feature = "http"))]
    pub(crate) fn nested_over(parts: Option<&'a http::request::Parts>) -> Self {
        Origin { nested: true, http: parts, ..Origin::default() }
    }

    /// The head of the HTTP request that carried it.
    #[cfg(feature = "http")]
    pub(crate) fn http_parts(&self) -> Option<&'a http::request::Parts> {
        self.http
    }

    /// Whether the request is observed by another.
    pub(crate) fn is_nested(&self) -> bool {
        self.nested
    }

    /// `network.transport`.
    pub(super) fn transport(&self) -> Option<&'static str> {
        self.transport
    }

    /// `network.protocol.version` of an HTTP request.
    pub(super) fn http_version(&self) -> Option<&'static str> {
        #[cfg(feature = "http")]
        if let Some(parts) = self.http {
            return Some(match parts.version {
                http::Version::HTTP_09 => "0.9",
                http::Version::HTTP_10 => "1.0",
                http::Version::HTTP_2 => "2",
                http::Version::HTTP_3 => "3",
                _ => "1.1",
            });
        }
        None
    }
}

/// What a routed request is about.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    /// Nothing named (lists, discovery, ...).
    None,
    /// A tool; `arguments` (their JSON) only when the tool opted in to
    /// having its content recorded, which `trace` says.
    Tool { name: &'a str, trace: bool, arguments: Option<&'a str> },
    /// A prompt.
    Prompt(&'a str),
    /// A resource, by URI.
    Resource(&'a str),
}
