//! How a [`Client`] is set up: what answers the server's requests for
//! input, what the client declares and asks for, what sees its messages,
//! and the limits it keeps to. Set before the first request: clones share
//! what the first request settles.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::Client;
use super::Observed;
use super::Revision;
use crate::answering;
use crate::input::Root;
use crate::protocol::{
    ClientCapabilities, CreateMessageResult, ElicitRequest, ElicitResult, Implementation, LoggingLevel,
};

impl Client {
    /// The client's `_meta`, to change: what was written of it once is
    /// written again.
    fn meta_mut(&mut self) -> &mut crate::protocol::RequestMeta {
        self.fixed_meta = Arc::default();
        Arc::make_mut(&mut self.meta)
    }

    /// Answers the server's elicitations with `callback`, and declares
    /// elicitation (form and URL) unless
    /// [`capabilities`](Self::capabilities) declares it. Set before the
    /// first request: clones share the callbacks.
    ///
    /// A form the callback accepts is sent with the default its schema
    /// gives each field the answer leaves out, as a form shown to a person
    /// would have had them filled in. In a 2025-era session over HTTP, a
    /// client with a callback for the server's questions also reads the
    /// session's standalone stream, where a server may ask them outside any
    /// request.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_runtime::client::Error> {
    /// use mcp_runtime::client::Client;
    /// use mcp_runtime::protocol::{ElicitRequest, ElicitResult};
    ///
    /// let client = Client::http("http://127.0.0.1:3000/mcp").on_elicitation(|request| async move {
    ///     match request {
    ///         ElicitRequest::Form { .. } => ElicitResult::accept(serde_json::json!({"name": "Ada"})),
    ///         _ => ElicitResult::decline(),
    ///     }
    /// });
    /// let greeting = client.call_tool("greet", serde_json::json!({})).await?;
    /// # let _ = greeting; Ok(()) }
    /// ```
    pub fn on_elicitation<F, Fut>(self, callback: F) -> Self
    where
        F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.with_callbacks(|callbacks| callbacks.elicitation = Some(Arc::new(move |r| Box::pin(callback(r)))))
    }

    /// Answers the server's sampling requests with `callback`, which gets
    /// the `sampling/createMessage` params, and declares sampling unless
    /// [`capabilities`](Self::capabilities) declares it.
    pub fn on_sampling<F, Fut>(self, callback: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.with_callbacks(|callbacks| callbacks.sampling = Some(Arc::new(move |params| Box::pin(callback(params)))))
    }

    /// Answers the server's roots requests with `callback`, and declares
    /// roots unless [`capabilities`](Self::capabilities) declares it.
    pub fn on_roots<F, Fut>(self, callback: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Root>> + Send + 'static,
    {
        self.with_callbacks(|callbacks| callbacks.roots = Some(Arc::new(move || Box::pin(callback()))))
    }

    /// Hears each request of the server this client refuses, with its
    /// method and params, before the refusal goes out: one it has no
    /// callback for (sampling without [`on_sampling`](Self::on_sampling),
    /// ...), or a URL-mode elicitation when the client declared form
    /// elicitation only ([`capabilities`](Self::capabilities)). A 2025-era
    /// server's request is refused with a JSON-RPC error (`-32601`, or
    /// `-32602` for the mode); in 2026-07-28 the request that asked fails
    /// with [`Error::InputRequired`](super::Error::InputRequired). For a
    /// user who should hear what was refused (a command line says it on
    /// stderr); it answers nothing.
    pub fn on_refusal<F>(self, callback: F) -> Self
    where
        F: Fn(&str, &Value) + Send + Sync + 'static,
    {
        self.with_callbacks(|callbacks| callbacks.refused = Some(Arc::new(callback)))
    }

    fn with_callbacks(mut self, set: impl FnOnce(&mut answering::Callbacks)) -> Self {
        let declared = {
            let mut callbacks = self.callbacks.write().unwrap_or_else(|e| e.into_inner());
            set(&mut callbacks);
            let declared = callbacks.declare(self.meta.client_capabilities.clone());
            callbacks.forms_only = forms_only(&declared);
            declared
        };
        self.meta_mut().client_capabilities = declared;
        self
    }

    /// The revision to speak (default [`Revision::Auto`]). Set before the
    /// first request: the first request settles it for every clone.
    pub fn revision(mut self, revision: Revision) -> Self {
        self.revision = revision;
        self.negotiated = Arc::new(tokio::sync::OnceCell::new());
        self.discovered = Arc::default();
        self
    }

    /// Calls `observer` with every message of a request, as JSON text, in
    /// order: the request (each retry with answers too), the notifications
    /// the server sends within it, its answer. Several observers are called
    /// in the order added; an observer is the client's and its later clones'
    /// (one added to a clone is that clone's alone). One that panics
    /// fails the request's caller at the message it rejects (a test's
    /// check against the protocol's schema, say). The notifications of a
    /// session (`initialized`, cancellations) and a 2025-era server's own
    /// requests on its stream are not requests of the client, and are not
    /// seen.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use mcp_runtime::{Server, client::{Client, MessageKind}};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let server = Server::builder("s", "1.0.0").build().unwrap();
    /// let client =
    ///     Client::in_process(server).observe(move |m| log.lock().unwrap().push((m.kind, m.method.to_owned())));
    /// client.discover().await.unwrap();
    /// let seen = seen.lock().unwrap();
    /// assert_eq!(seen[0], (MessageKind::Request, "server/discover".to_owned()));
    /// assert_eq!(seen[1], (MessageKind::Response, "server/discover".to_owned()));
    /// # });
    /// ```
    pub fn observe(mut self, observer: impl Fn(&Observed<'_>) + Send + Sync + 'static) -> Self {
        self.observers.add(Arc::new(observer));
        self
    }

    /// Asks for the server's log messages at `level` and above, in each
    /// 2026-07-28 request's `_meta` (a 2025-era session is asked with a
    /// `logging/setLevel` request, sent with [`request`](Self::request)).
    /// They are heard by what hears a request's notifications
    /// ([`observe`](Self::observe)).
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.meta_mut().log_level = Some(level);
        self
    }

    /// The capabilities the client declares: those given to
    /// [`capabilities`](Self::capabilities), and those of its callbacks.
    ///
    /// ```
    /// use mcp_runtime::{Server, client::Client, protocol::{ClientCapabilities, ElicitResult}};
    /// let server = Server::builder("s", "1.0.0").build().unwrap();
    /// let client = Client::in_process(server)
    ///     .capabilities(ClientCapabilities::default().with_roots())
    ///     .on_elicitation(|_| async { ElicitResult::decline() });
    /// let declared = client.declared_capabilities();
    /// assert!(declared.roots.is_some() && declared.elicitation.as_ref().is_some_and(|e| e.supports_form()));
    /// ```
    pub fn declared_capabilities(&self) -> &ClientCapabilities {
        &self.meta.client_capabilities
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(Arc::from(token.into()));
        self
    }

    /// Authorizes with the server's authorization server as `oauth` says
    /// when the server refuses a request for want of a token (`401`) or of
    /// a scope (`403` with `insufficient_scope`), and sends the token it
    /// gets with every request (see [`oauth`](super::oauth)). Replaces any
    /// [`bearer`](Self::bearer) token. A client of a pipe or of this
    /// process has no use for it. Set before the first request.
    #[cfg(feature = "client-auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client-auth")))]
    pub fn oauth(mut self, oauth: super::oauth::OAuth) -> Self {
        self.bearer = None;
        if let super::Transport::Http(http) = &mut self.transport {
            http.authorize_with(oauth);
        }
        self
    }

    /// Trusts the certificates in `pem` (PEM text, one certificate or
    /// more) as roots for an `https://` server, besides the platform's
    /// (which honour `SSL_CERT_FILE` and `SSL_CERT_DIR`): a server whose
    /// certificate a private authority signed, or a test's own. Added
    /// before the first request; a client of a pipe or of this process has
    /// no use for them. PEM without a certificate is
    /// [`Error::Invalid`](super::Error::Invalid).
    ///
    /// ```no_run
    /// # fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::client::Client;
    /// let pem = std::fs::read("internal-ca.pem")?;
    /// let client = Client::http("https://tools.internal/mcp").root_certificates(&pem)?;
    /// # let _ = client; Ok(()) }
    /// ```
    #[cfg(feature = "client")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client")))]
    pub fn root_certificates(self, pem: impl AsRef<[u8]>) -> Result<Self, super::Error> {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject as _;
        let roots = CertificateDer::pem_slice_iter(pem.as_ref())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| super::Error::Invalid(format!("certificates that do not read: {e}")))?;
        if roots.is_empty() {
            return Err(super::Error::Invalid("no certificate in the PEM given".to_owned()));
        }
        if let super::Transport::Http(http) = &self.transport {
            http.add_roots(roots);
        }
        Ok(self)
    }

    /// How long a request may take before [`Error::Timeout`](super::Error::Timeout) (default 60 s).
    /// With OAuth, each try of it: getting a token between tries is not
    /// counted (a person may be authorizing).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The longest message taken from the server (default 16 MiB, at
    /// least 1 KiB): an answer, an event of a stream, a line of a pipe. A
    /// longer one fails its request; on a pipe, whose next message cannot
    /// be found without reading it, the connection is given up. Shared by
    /// the client's clones.
    pub fn max_message_bytes(self, bytes: usize) -> Self {
        self.limits.set_message_bytes(bytes);
        self
    }

    /// The most items one list may have over all its pages (default
    /// 100,000, at least 1; a list is also followed for at most 1,000
    /// pages): a server whose lists never end fails the listing instead.
    /// Shared by the client's clones.
    pub fn max_list_items(self, items: usize) -> Self {
        self.limits.set_list_items(items);
        self
    }

    /// The most announcements a [`Listener`](super::Listener) holds for a reader that does
    /// not read them (default 1024, at least 1), besides list changes,
    /// which are held as one each however often they come; beyond it the
    /// rest is dropped and the reader told [`Change::Lagged`](super::Change::Lagged). Shared by
    /// the client's clones.
    #[cfg(feature = "client")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client")))]
    pub fn max_pending_changes(self, changes: usize) -> Self {
        self.limits.set_pending_changes(changes);
        self
    }

    /// The most requests of the server (a 2025-era server's elicitations,
    /// pings, ...) answered at once (default 16, at least 1): one more is
    /// refused at once with `-32603`, so that a server cannot make the
    /// client hold any number of them. Also the most questions one
    /// `input_required` round may ask of a server that relays them (a
    /// gateway). Shared by the client's clones.
    pub fn max_questions_at_once(self, questions: usize) -> Self {
        self.limits.set_questions_at_once(questions);
        self
    }

    /// How many rounds of `input_required` answers one request is sent
    /// again with before the client gives up on a server that keeps asking
    /// (default 16, at least 1); a server that relays a remote's questions
    /// (a gateway, and the tasks it follows there) keeps to it too. Shared
    /// by the client's clones.
    pub fn max_rounds(self, rounds: usize) -> Self {
        self.limits.set_rounds(rounds);
        self
    }

    /// The name and version the client gives of itself.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.meta_mut().client_info = Some(Implementation::new(name, version));
        self
    }

    /// The capabilities the client declares, besides those its callbacks
    /// declare (whichever is set first): a capability given here is
    /// declared as given, so that, say, elicitation in form mode only
    /// narrows what [`on_elicitation`](Self::on_elicitation) would declare.
    /// Declaring elicitation without URL mode also refuses a URL-mode
    /// elicitation a server sends anyway (see
    /// [`on_refusal`](Self::on_refusal)).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        let declared = {
            let mut callbacks = self.callbacks.write().unwrap_or_else(|e| e.into_inner());
            let declared = callbacks.declare(capabilities);
            callbacks.forms_only = forms_only(&declared);
            declared
        };
        self.meta_mut().client_capabilities = declared;
        self
    }
}

/// Whether `declared` has elicitation in form mode only.
fn forms_only(declared: &ClientCapabilities) -> bool {
    declared.elicitation.as_ref().is_some_and(|elicitation| !elicitation.supports_url())
}
