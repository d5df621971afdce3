//! Delegation (RFC 8693 token exchange): a remote mounted behind this
//! server reached with a token obtained *for the caller*, rather than with
//! this server's one credential whoever calls.
//!
//! The caller's verified access token is the subject of the exchange; it
//! is never sent to the remote (the protocol forbids passing a token
//! through), only to the authorization server, which decides what the
//! remote may be told of the caller.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::auth::client::{Answered, AsClient, FetchError, form_body};
use crate::handler::principal::Principal;

/// The grant type of a token exchange (RFC 8693 §2.1).
const GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// The type of the subject token: an access token (RFC 8693 §3).
const ACCESS_TOKEN: &str = "urn:ietf:params:oauth:token-type:access_token";

/// How long before its end an exchanged token is no longer used.
const MARGIN: Duration = Duration::from_secs(30);

/// The longest an exchanged token is kept, whatever it says.
const MAX_KEPT: Duration = Duration::from_secs(3600);

/// The most exchanged tokens kept.
const MAX_ENTRIES: usize = 10_000;

/// The caller's verified access token, put in the request's extensions by
/// the HTTP transport of a server that delegates, for the exchange alone:
/// a handler cannot name this type.
#[derive(Clone)]
pub(crate) struct CallerToken(pub(crate) Arc<str>);

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerToken(..)")
    }
}

/// Reaches a mounted remote as each caller (RFC 8693): the caller's
/// verified access token is exchanged at the authorization server's token
/// endpoint for one meant for the remote, and that token goes with the
/// caller's calls, gets, reads and completions.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::client::{Client, Remote, TokenExchange};
///
/// let exchange = TokenExchange::new("https://auth.example.com/token", "gateway", "s3cret")
///     .scope("notes:read")
///     .resource("https://notes.internal/mcp");
/// // The client's own credential lists the remote's entries when it is
/// // mounted and follows their changes; callers' requests carry theirs.
/// let notes = Remote::connect(Client::http("https://notes.internal/mcp").bearer("the gateway's token"))
///     .await?
///     .token_exchange(exchange);
/// # let _ = notes; Ok(()) }
/// ```
///
/// The request sent: `grant_type=urn:ietf:params:oauth:grant-type:token-exchange`,
/// the caller's token as `subject_token` (of type `access_token`), the
/// [`resource`](Self::resource), [`audience`](Self::audience) and
/// [`scope`](Self::scope) given, with this server's client credentials
/// (HTTP Basic). A token obtained is kept for its caller (its issuer,
/// subject and client), the remote and the scope, until 30 seconds before
/// it expires or the caller's own token does, at most an hour; a caller
/// the authorization server refuses gets no token, and its request an
/// error, never this server's credential instead. A request without a
/// verified caller (a server without authorization, stdio) is refused.
#[derive(Clone)]
pub struct TokenExchange {
    endpoint: String,
    client_id: String,
    client_secret: String,
    scope: Option<String>,
    resource: Option<String>,
    audience: Option<String>,
    timeout: Duration,
}

impl std::fmt::Debug for TokenExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret stays out of logs.
        f.debug_struct("TokenExchange")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .field("scope", &self.scope)
            .field("resource", &self.resource)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

impl TokenExchange {
    /// Exchanges at `token_endpoint`, authenticating as `client_id` with
    /// `client_secret` (this server's registration at the authorization
    /// server, allowed the token-exchange grant).
    pub fn new(
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        TokenExchange {
            endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scope: None,
            resource: None,
            audience: None,
            timeout: Duration::from_secs(10),
        }
    }

    /// The scopes asked for (space-separated), which the caller must have
    /// been granted for the authorization server to agree.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// The remote's resource URI (RFC 8707), the exchanged token's audience.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }

    /// The remote's logical name, where the authorization server wants one
    /// (RFC 8693 §2.1).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// How long one exchange may take (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Why no token could be had for the caller.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The request has no verified caller to act for.
    NoCaller,
    /// The authorization server refused: its `error` code, if it said one.
    Declined(String),
    /// It could not be asked, or answered nonsense.
    Unavailable(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NoCaller => f.write_str("the request has no verified caller to act for"),
            Refused::Declined(error) => write!(f, "the authorization server would not act for the caller ({error})"),
            Refused::Unavailable(why) => write!(f, "the authorization server could not be asked: {why}"),
        }
    }
}

/// A token kept for one caller.
struct Kept {
    token: Arc<str>,
    until: Instant,
}

/// A mount's exchanges and the tokens they gave.
pub(crate) struct Delegation {
    config: TokenExchange,
    http: AsClient,
    /// By the caller's identity (issuer, subject, client); one remote and
    /// one scope per delegation.
    kept: Mutex<HashMap<[u8; 16], Kept>>,
}

impl std::fmt::Debug for Delegation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delegation").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Delegation {
    pub(crate) fn new(config: TokenExchange) -> Self {
        Delegation { http: AsClient::new(config.timeout), config, kept: Mutex::new(HashMap::new()) }
    }

    /// The token to send the remote for `caller`, whose verified access
    /// token is `subject`.
    pub(crate) async fn token_for(&self, caller: &Principal, subject: &str) -> Result<Arc<str>, Refused> {
        let key = caller.identity();
        let now = Instant::now();
        if let Some(kept) = crate::sync::lock(&self.kept).get(&key)
            && now < kept.until
        {
            return Ok(Arc::clone(&kept.token));
        }
        let mut form = vec![("grant_type", GRANT), ("subject_token", subject), ("subject_token_type", ACCESS_TOKEN)];
        let optional =
            [("scope", &self.config.scope), ("resource", &self.config.resource), ("audience", &self.config.audience)];
        form.extend(optional.iter().filter_map(|(name, value)| Some((*name, value.as_deref()?))));
        let credentials = (self.config.client_id.as_str(), self.config.client_secret.as_str());
        let body = form_body(&form).into_bytes();
        let answer =
            self.http.post(&self.config.endpoint, "application/x-www-form-urlencoded", body, Some(credentials), None);
        let Answered { status, body, .. } = answer.await.map_err(|e| match e {
            FetchError::Status(status) => Refused::Declined(format!("HTTP status {status}")),
            other => Refused::Unavailable(other.to_string()),
        })?;
        if !(200..300).contains(&status) {
            let error = body.get("error").and_then(Value::as_str).unwrap_or("no error code");
            // A code is a token of printable ASCII; anything else is not repeated.
            let error = match error.len() <= 64 && error.bytes().all(|b| b.is_ascii_graphic()) {
                true => error.to_owned(),
                false => "an unreadable error code".to_owned(),
            };
            return Err(Refused::Declined(error));
        }
        let token = body
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty() && t.len() <= 16 * 1024 && t.bytes().all(|b| b.is_ascii_graphic()))
            .ok_or_else(|| Refused::Unavailable("an answer without a usable access_token".into()))?;
        let token: Arc<str> = token.into();
        let lasts = body.get("expires_in").and_then(Value::as_u64).map_or(MAX_KEPT, Duration::from_secs);
        let mut keep = lasts.min(MAX_KEPT).saturating_sub(MARGIN);
        // Never past the caller's own token.
        if let Some(exp) = caller.claim("exp").and_then(Value::as_u64) {
            let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
            keep = keep.min(Duration::from_secs(exp).saturating_sub(since_epoch));
        }
        if !keep.is_zero() {
            let mut kept = crate::sync::lock(&self.kept);
            if kept.len() >= MAX_ENTRIES {
                kept.retain(|_, entry| now < entry.until);
                if kept.len() >= MAX_ENTRIES {
                    kept.clear();
                }
            }
            kept.insert(key, Kept { token: Arc::clone(&token), until: now + keep });
        }
        Ok(token)
    }
}
