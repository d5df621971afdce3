//! OAuth 2.1 for a client of a protected server (`client-auth` feature):
//! the server's `401` followed to its authorization server, and the token
//! it issues sent with every request.
//!
//! On a `401` the client reads the server's Protected Resource Metadata
//! (the URL its challenge names, else the well-known ones) and checks that
//! it names this server; reads its authorization server's metadata (RFC
//! 8414, then OpenID Connect), which must name that very issuer and offer
//! PKCE; gets a client id (one registered beforehand for that issuer, a
//! Client ID Metadata Document, or dynamic registration, in that order);
//! sends the person to the authorization URL with PKCE (S256), a `state`,
//! the `resource` and the scopes asked for (the challenge's, else those the
//! server lists, else none); checks the redirect's `state` and `iss` (RFC
//! 9207) before the code goes anywhere; and trades the code for tokens. A
//! `401` with a refresh token at hand refreshes first; a `403` with
//! `insufficient_scope` authorizes again with the scopes asked for so far
//! and those now needed, at most three times for one request. One flow at
//! a time: a gateway's concurrent calls wait for the one under way.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::client::Error> {
//! use mcp_runtime::client::Client;
//! use mcp_runtime::client::oauth::OAuth;
//!
//! let oauth = OAuth::new("http://127.0.0.1:8976/callback").on_authorize(|url| async move {
//!     // Show `url` to the person; the URL their browser was sent back to
//!     // (with `code` and `state`) is the answer.
//!     println!("Open {url}");
//!     Err("no browser here".to_owned())
//! });
//! let client = Client::http("https://mcp.example.com/mcp").oauth(oauth);
//! let tools = client.list_tools().await?;
//! # let _ = tools; Ok(()) }
//! ```

mod challenge;
mod discovery;
mod flow;
mod pkce;
mod store;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub(crate) use flow::{Asked, Authorizer};
pub use store::{FileTokenStore, MemoryTokenStore, StoredTokens, TokenStore};

use crate::handler::functions::BoxFuture;

/// What a person does with an authorization URL: the URL their browser was
/// sent back to, or why there is none.
type AuthorizeFn = Arc<dyn Fn(String) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// How a client authorizes with a protected server's authorization server.
/// Given to [`Client::oauth`](super::Client::oauth).
#[derive(Clone)]
pub struct OAuth {
    /// A program acting for itself: a grant without a person.
    grant: Option<Grant>,
    redirect_uri: String,
    client_name: String,
    metadata_document: Option<String>,
    registered: Vec<RegisteredClient>,
    authorize: Option<AuthorizeFn>,
    store: Arc<dyn TokenStore>,
    max_authorizations: usize,
    timeout: Duration,
    /// Tokens bound to a key of the client's (DPoP).
    dpop: bool,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("redirect_uri", &self.redirect_uri)
            .field("client_name", &self.client_name)
            .field("metadata_document", &self.metadata_document)
            .field("registered", &self.registered)
            .field("max_authorizations", &self.max_authorizations)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// Authorization that sends the person back to `redirect_uri` (a
    /// loopback URL of the program, say) once they approved. Tokens are kept
    /// in memory ([`MemoryTokenStore`]) unless [`token_store`](Self::token_store)
    /// says otherwise.
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        OAuth {
            grant: None,
            redirect_uri: redirect_uri.into(),
            client_name: "mcp-runtime-client".to_owned(),
            metadata_document: None,
            registered: Vec::new(),
            authorize: None,
            store: Arc::new(MemoryTokenStore::default()),
            max_authorizations: 3,
            timeout: Duration::from_secs(30),
            dpop: false,
        }
    }

    /// Authorization of a program acting for itself (the
    /// `io.modelcontextprotocol/oauth-client-credentials` extension): the
    /// `client_credentials` grant at the token endpoint that the server's
    /// metadata leads to, with `credentials` (a secret sent with HTTP
    /// Basic, or a private key signing an RFC 7523 assertion), the
    /// `resource`, and the scopes the server asks for. No person, no
    /// registration, no redirect.
    ///
    /// ```
    /// use mcp_runtime::client::oauth::{ClientCredentials, OAuth};
    /// let oauth = OAuth::client_credentials(ClientCredentials::secret("reporting-job", "s3cret"));
    /// # let _ = oauth;
    /// ```
    pub fn client_credentials(credentials: ClientCredentials) -> Self {
        OAuth { grant: Some(Grant::Credentials(credentials)), ..OAuth::new("") }
    }

    /// Authorization of a workload by the token its platform gives it
    /// (workload identity federation): the JWT that `token` returns (read
    /// afresh for each token request: platforms rotate them) sent as the
    /// `assertion` of the `jwt-bearer` grant (RFC 7523), with the `resource`
    /// and the scopes the server asks for. No client secret, no
    /// registration; a refusal is returned as it is, not tried again.
    ///
    /// ```no_run
    /// use mcp_runtime::client::oauth::OAuth;
    /// let oauth = OAuth::workload_identity(|| async {
    ///     std::fs::read_to_string("/var/run/secrets/tokens/mcp").map_err(|e| e.to_string())
    /// });
    /// # let _ = oauth;
    /// ```
    pub fn workload_identity<F, Fut>(token: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        OAuth { grant: Some(Grant::Workload(Arc::new(move || Box::pin(token())))), ..OAuth::new("") }
    }

    /// Enterprise-managed authorization (the
    /// `io.modelcontextprotocol/enterprise-managed-authorization`
    /// extension): the person's identity token from the enterprise's
    /// identity provider traded there for an identity assertion grant for
    /// the server's authorization server (RFC 8693 token exchange), which
    /// then issues the token for it (the `jwt-bearer` grant, the client
    /// authenticated with its secret).
    pub fn enterprise(login: EnterpriseLogin) -> Self {
        OAuth { grant: Some(Grant::Enterprise(login)), ..OAuth::new("") }
    }

    /// The step the person takes: `callback` gets the authorization URL and
    /// returns the URL the authorization server sent them back to (the
    /// redirect URI with `code`, `state` and `iss`), or why there is none.
    /// Without it, a server that needs authorization fails the request.
    /// The person's time is not the request's: the time limit
    /// ([`Client::timeout`](crate::client::Client::timeout)) bounds each
    /// try of the request, not the authorization between them, which the
    /// callback bounds as it sees fit.
    pub fn on_authorize<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        self.authorize = Some(Arc::new(move |url| Box::pin(callback(url))));
        self
    }

    /// The name given in dynamic registration (default `mcp-runtime-client`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The `https` URL of this client's Client ID Metadata Document, used as
    /// its client id with an authorization server that supports them
    /// (instead of registering).
    pub fn client_metadata_document(mut self, url: impl Into<String>) -> Self {
        self.metadata_document = Some(url.into());
        self
    }

    /// A client registered beforehand, used instead of any other way to get
    /// a client id with the authorization server it names (or with any,
    /// when it names none).
    pub fn registered(mut self, client: RegisteredClient) -> Self {
        self.registered.push(client);
        self
    }

    /// Where tokens are kept between requests and runs (default: in memory).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How many times one request may send the person to authorize
    /// (default 3, at least 1): a server that keeps refusing for want of a
    /// scope is given up on after as many.
    pub fn max_authorizations(mut self, most: usize) -> Self {
        self.max_authorizations = most.max(1);
        self
    }

    /// Asks for tokens bound to a key of this client's (DPoP, RFC 9449,
    /// the `io.modelcontextprotocol/auth/dpop` extension): a key pair made
    /// for the client (ES256), a proof of it with each token request and
    /// each request to the server (`Authorization: DPoP`), and the nonces
    /// either server asks proofs to carry. A token taken from the wire is
    /// then of no use without the key.
    pub fn dpop(mut self) -> Self {
        self.dpop = true;
        self
    }

    /// How long each request to the authorization server may take (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// A client id (and secret) registered beforehand with an authorization
/// server.
///
/// ```
/// use mcp_runtime::client::oauth::RegisteredClient;
/// let client = RegisteredClient::new("my-app").secret("s3cret").issuer("https://login.example.com");
/// # let _ = client;
/// ```
#[derive(Clone)]
pub struct RegisteredClient {
    id: String,
    secret: Option<String>,
    issuer: Option<String>,
}

impl std::fmt::Debug for RegisteredClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredClient")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "…"))
            .field("issuer", &self.issuer)
            .finish()
    }
}

impl RegisteredClient {
    /// The client id `id`, without a secret (a public client).
    pub fn new(id: impl Into<String>) -> Self {
        RegisteredClient { id: id.into(), secret: None, issuer: None }
    }

    /// Its secret, sent with HTTP Basic (or in the form, when the server
    /// takes only that).
    pub fn secret(mut self, secret: impl Into<String>) -> Self {
        self.secret = Some(secret.into());
        self
    }

    /// The issuer it is registered with: used with that authorization
    /// server only, never sent to another.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }
}

/// A token a program gets from elsewhere: a workload's, an identity
/// provider's.
type TokenFn = Arc<dyn Fn() -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// How a program acting for itself gets its tokens.
#[derive(Clone)]
pub(crate) enum Grant {
    Credentials(ClientCredentials),
    Workload(TokenFn),
    Enterprise(EnterpriseLogin),
}

/// What enterprise-managed authorization needs ([`OAuth::enterprise`]).
///
/// ```no_run
/// use mcp_runtime::client::oauth::{ClientCredentials, EnterpriseLogin, OAuth};
/// let login = EnterpriseLogin::new(
///     "https://idp.example.com/oauth2/token",
///     ClientCredentials::secret("mcp-agent", "s3cret"),
///     || async { Ok("eyJ...the person's ID token".to_owned()) },
/// )
/// .idp_client_id("agent-at-idp");
/// let oauth = OAuth::enterprise(login);
/// # let _ = oauth;
/// ```
#[derive(Clone)]
pub struct EnterpriseLogin {
    idp_token_endpoint: String,
    idp_client_id: Option<String>,
    id_token: TokenFn,
    client: ClientCredentials,
}

impl std::fmt::Debug for EnterpriseLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterpriseLogin")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

impl EnterpriseLogin {
    /// The identity provider's token endpoint, the client registered with
    /// the server's authorization server (its secret sent with HTTP Basic),
    /// and what gives the person's identity token (an OpenID Connect ID
    /// token), read for each exchange.
    pub fn new<F, Fut>(idp_token_endpoint: impl Into<String>, client: ClientCredentials, id_token: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        EnterpriseLogin {
            idp_token_endpoint: idp_token_endpoint.into(),
            idp_client_id: None,
            id_token: Arc::new(move || Box::pin(id_token())),
            client,
        }
    }

    /// The client id this program has at the identity provider, sent with
    /// the exchange.
    pub fn idp_client_id(mut self, id: impl Into<String>) -> Self {
        self.idp_client_id = Some(id.into());
        self
    }
}

/// What a program authorizes with for itself
/// ([`OAuth::client_credentials`]).
#[derive(Clone)]
pub struct ClientCredentials {
    id: String,
    proof: Proof,
    issuer: Option<String>,
}

#[derive(Clone)]
enum Proof {
    /// `client_secret_basic`.
    Secret(String),
    /// `private_key_jwt`, ES256: the key's PKCS#8 DER.
    PrivateKey(Arc<[u8]>),
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let proof = match self.proof {
            Proof::Secret(_) => "client_secret_basic",
            Proof::PrivateKey(_) => "private_key_jwt",
        };
        f.debug_struct("ClientCredentials")
            .field("id", &self.id)
            .field("proof", &proof)
            .field("issuer", &self.issuer)
            .finish()
    }
}

impl ClientCredentials {
    /// The client `id` and its `secret`, sent with HTTP Basic.
    pub fn secret(id: impl Into<String>, secret: impl Into<String>) -> Self {
        ClientCredentials { id: id.into(), proof: Proof::Secret(secret.into()), issuer: None }
    }

    /// The client `id` and its P-256 private key (`pem`, PKCS#8), which
    /// signs an assertion (ES256, RFC 7523) for each token request. A key
    /// that does not read is [`Error::Invalid`](super::Error::Invalid).
    pub fn private_key(id: impl Into<String>, pem: impl AsRef<[u8]>) -> Result<Self, super::Error> {
        use rustls::pki_types::PrivatePkcs8KeyDer;
        use rustls::pki_types::pem::PemObject as _;
        let key = PrivatePkcs8KeyDer::from_pem_slice(pem.as_ref())
            .map_err(|e| super::Error::Invalid(format!("a private key that does not read as PKCS#8 PEM: {e}")))?;
        // Signed with once now, so that a key of another kind fails here.
        let signer = jsonwebtoken::EncodingKey::from_ec_der(key.secret_pkcs8_der());
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256),
            &serde_json::json!({}),
            &signer,
        )
        .map_err(|e| super::Error::Invalid(format!("a private key that does not sign with ES256 (P-256): {e}")))?;
        Ok(ClientCredentials {
            id: id.into(),
            proof: Proof::PrivateKey(Arc::from(key.secret_pkcs8_der())),
            issuer: None,
        })
    }

    /// The issuer these are registered with: sent to that authorization
    /// server only.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }
}

/// Why authorization failed: the step, the URL it was at, and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthError {
    step: &'static str,
    url: String,
    reason: String,
}

impl AuthError {
    fn new(step: &'static str, url: &str, reason: impl Into<String>) -> Self {
        AuthError { step, url: url.to_owned(), reason: reason.into() }
    }
}

impl From<AuthError> for super::Error {
    fn from(error: AuthError) -> Self {
        super::Error::Authorization(format!(
            "authorization failed at the {} ({}): {}",
            error.step, error.url, error.reason
        ))
    }
}
