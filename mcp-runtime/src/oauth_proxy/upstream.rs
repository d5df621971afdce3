//! The identity provider, seen from the front: its endpoints (given or
//! discovered once), the person sent there, the code exchanged, and the
//! ID token verified before anyone is named.

use std::time::Duration;

use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::config::Upstream;
use crate::auth::client::{AsClient, FetchError, form_body};
use crate::auth::discovery::metadata_urls;
use crate::auth::jwks::Jwks;
use crate::auth::jwt;

/// How long a request to the provider may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The least time between two fetches of the provider's keys.
const JWKS_INTERVAL: Duration = Duration::from_secs(30);

/// Why the provider did not say who the person is.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UpstreamError {
    /// It could not be reached, or failed: the client may try again later.
    #[error("the identity provider is unreachable: {0}")]
    Unreachable(String),
    /// It answered something the front cannot accept.
    #[error("the identity provider's answer is unusable: {0}")]
    Refused(String),
}

impl From<FetchError> for UpstreamError {
    fn from(error: FetchError) -> Self {
        match error {
            FetchError::Unreachable(reason) => UpstreamError::Unreachable(reason),
            other => UpstreamError::Refused(other.to_string()),
        }
    }
}

/// The provider's endpoints and keys.
#[derive(Debug)]
pub(crate) struct Resolved {
    authorization: String,
    token: String,
    jwks: Jwks,
}

/// The provider, with what was learnt of it.
pub(crate) struct Provider {
    config: Upstream,
    http: AsClient,
    resolved: tokio::sync::OnceCell<Resolved>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Provider {
    pub(crate) fn new(config: Upstream) -> Self {
        Provider { config, http: AsClient::new(TIMEOUT), resolved: tokio::sync::OnceCell::new() }
    }

    /// The provider's issuer identifier.
    pub(crate) fn issuer(&self) -> &str {
        &self.config.issuer
    }

    /// The endpoints, discovered on first use (again after a failure).
    pub(crate) async fn resolved(&self) -> Result<&Resolved, UpstreamError> {
        self.resolved
            .get_or_try_init(|| async {
                if let Some(given) = &self.config.endpoints {
                    return Ok(Resolved {
                        authorization: given.authorization.clone(),
                        token: given.token.clone(),
                        jwks: Jwks::new(given.jwks.clone(), JWKS_INTERVAL),
                    });
                }
                self.discover().await
            })
            .await
    }

    async fn discover(&self) -> Result<Resolved, UpstreamError> {
        let mut last = UpstreamError::Refused("no metadata document".into());
        for url in metadata_urls(&self.config.issuer) {
            let document = match self.http.get_json(&url).await {
                Ok(document) => document,
                Err(FetchError::Status(_)) => continue,
                Err(other) => {
                    last = other.into();
                    continue;
                }
            };
            let text = |name: &str| document.get(name).and_then(Value::as_str).map(str::to_owned);
            // A document naming another issuer is someone else's (RFC 8414 §3.3).
            if text("issuer").as_deref() != Some(self.config.issuer.as_str()) {
                return Err(UpstreamError::Refused(format!("{url} names another issuer")));
            }
            let (Some(authorization), Some(token), Some(jwks)) =
                (text("authorization_endpoint"), text("token_endpoint"), text("jwks_uri"))
            else {
                return Err(UpstreamError::Refused(format!(
                    "{url} lacks authorization_endpoint, token_endpoint or jwks_uri"
                )));
            };
            tracing::info!(issuer = %self.config.issuer, %authorization, %token, "discovered the identity provider");
            return Ok(Resolved { authorization, token, jwks: Jwks::new(jwks, JWKS_INTERVAL) });
        }
        Err(last)
    }

    /// Where the person is sent: the provider's authorization endpoint,
    /// asking for a code for the front's client, with the front's own
    /// state, nonce and PKCE challenge.
    pub(crate) fn authorization_url(
        &self,
        resolved: &Resolved,
        redirect_uri: &str,
        state: &str,
        nonce: &str,
        challenge: &str,
    ) -> String {
        let scope = self.config.scopes.join(" ");
        let query = form_body(&[
            ("response_type", "code"),
            ("client_id", &self.config.client_id),
            ("redirect_uri", redirect_uri),
            ("scope", &scope),
            ("state", state),
            ("nonce", nonce),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ]);
        let separator = if resolved.authorization.contains('?') { '&' } else { '?' };
        format!("{}{separator}{query}", resolved.authorization)
    }

    /// The claims of the person the provider's `code` stands for: the code
    /// exchanged (with the front's client credentials and PKCE verifier),
    /// its ID token verified. The provider's tokens go no further.
    pub(crate) async fn person(
        &self,
        code: &str,
        verifier: &str,
        redirect_uri: &str,
        nonce: &str,
    ) -> Result<Map<String, Value>, UpstreamError> {
        let resolved = self.resolved().await?;
        let form = form_body(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ]);
        let credentials = (self.config.client_id.as_str(), self.config.client_secret.as_str());
        let answer = self
            .http
            .post(&resolved.token, "application/x-www-form-urlencoded", form.into_bytes(), Some(credentials), None)
            .await?;
        if answer.status != 200 {
            let error = answer.body.get("error").and_then(Value::as_str).unwrap_or("no error code");
            return Err(UpstreamError::Refused(format!("its token endpoint answered {} ({error})", answer.status)));
        }
        let Some(id_token) = answer.body.get("id_token").and_then(Value::as_str) else {
            return Err(UpstreamError::Refused("no ID token (is `openid` among the scopes?)".into()));
        };
        self.verify_id_token(resolved, id_token, nonce).await
    }

    async fn verify_id_token(
        &self,
        resolved: &Resolved,
        id_token: &str,
        nonce: &str,
    ) -> Result<Map<String, Value>, UpstreamError> {
        let header = jsonwebtoken::decode_header(id_token)
            .map_err(|e| UpstreamError::Refused(format!("an unreadable ID token: {e}")))?;
        if !jwt::ALLOWED.contains(&header.alg) && !matches!(header.alg, Algorithm::PS256 | Algorithm::ES384) {
            return Err(UpstreamError::Refused(format!("an ID token signed with {:?}", header.alg)));
        }
        let keys = resolved
            .jwks
            .lookup(&self.http, header.kid.as_deref(), header.alg)
            .await
            .map_err(|e| UpstreamError::Unreachable(format!("its keys: {e:?}")))?
            .ok_or_else(|| UpstreamError::Refused("the ID token's key is not in the provider's key set".into()))?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = 60;
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_audience(&[&self.config.client_id]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let mut failure = UpstreamError::Refused("the ID token's key is not in the provider's key set".into());
        for key in keys.candidates(header.kid.as_deref(), header.alg) {
            match jsonwebtoken::decode::<Map<String, Value>>(id_token, &key.key, &validation) {
                Ok(data) => {
                    // The nonce ties the token to this very authorization:
                    // one replayed from another is refused.
                    if data.claims.get("nonce").and_then(Value::as_str) != Some(nonce) {
                        return Err(UpstreamError::Refused("the ID token's nonce is not this authorization's".into()));
                    }
                    return Ok(data.claims);
                }
                Err(e) => failure = UpstreamError::Refused(format!("the ID token does not verify: {e}")),
            }
        }
        Err(failure)
    }
}
