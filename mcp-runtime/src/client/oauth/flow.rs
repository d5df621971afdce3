//! One client's authorization with one protected server: the token it
//! sends now, and what gets it a new one when the server refuses it.

use std::sync::{Arc, RwLock};

use serde_json::{Map, Value, json};

use super::challenge::Challenge;
use super::discovery::{self, ServerMetadata};
use super::pkce::Pkce;
use super::{AuthError, Grant, OAuth, StoredTokens};
use crate::auth::client::{Answered, AsClient, FetchError, form_body};
use crate::client::Error;
use crate::dpop::DpopKey;

/// The authorization of one client with the server at one endpoint.
pub(crate) struct Authorizer {
    config: OAuth,
    /// Made at the first flow, trusting the roots the client was given by then.
    http: std::sync::OnceLock<AsClient>,
    /// The roots the client trusts besides the platform's.
    roots: Arc<std::sync::Mutex<Vec<rustls::pki_types::CertificateDer<'static>>>>,
    /// The protected server's endpoint: the store's key, and the resource
    /// when its metadata names none.
    server: String,
    /// The access token sent now, and whether it is bound to `dpop`'s key.
    current: RwLock<Option<(Arc<str>, bool)>>,
    /// The key DPoP-bound tokens are bound to, when asked for.
    dpop: Option<DpopKey>,
    /// The nonces the authorization server and the server last asked DPoP
    /// proofs to carry.
    nonces: std::sync::Mutex<Nonces>,
    /// One flow at a time, and what the flows learnt.
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct Nonces {
    authorization_server: Option<String>,
    server: Option<String>,
}

#[derive(Default)]
struct State {
    tokens: Option<StoredTokens>,
    /// The scopes asked for so far: a step-up asks for them and more.
    asked: Vec<String>,
}

/// The grant of an assertion (RFC 7523): a workload's token, an identity
/// assertion grant.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// A client's authentication by a signed assertion (RFC 7523 §2.2).
const CLIENT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// What a refusal of a request asks of the client
/// ([`Authorizer::asked`]).
pub(crate) enum Asked {
    /// The same token again, with a proof carrying the server's nonce.
    Nonce,
    /// Another token: refreshed, newer, or authorized anew.
    Token,
}

/// The client id, secret and token endpoint authentication used with one
/// authorization server.
struct ClientId {
    id: String,
    secret: Option<String>,
    method: String,
}

impl Authorizer {
    pub(crate) fn new(
        config: OAuth,
        server: &str,
        roots: Arc<std::sync::Mutex<Vec<rustls::pki_types::CertificateDer<'static>>>>,
    ) -> Authorizer {
        let dpop = config.dpop.then(DpopKey::generate).transpose().unwrap_or_else(|error| {
            tracing::warn!(%error, "no key to bind tokens to: tokens are asked for unbound");
            None
        });
        // A bound token is bound to another run's key: of no use here.
        let tokens = config.store.load(server).filter(|t| !is_bound(t));
        let current = tokens.as_ref().map(|t| (Arc::from(t.access_token.as_str()), false));
        Authorizer {
            dpop,
            nonces: std::sync::Mutex::default(),
            http: std::sync::OnceLock::new(),
            roots,
            config,
            server: server.to_owned(),
            current: RwLock::new(current),
            state: tokio::sync::Mutex::new(State { tokens, asked: Vec::new() }),
        }
    }

    /// What asks the authorization server (and the server's metadata).
    fn http(&self) -> &AsClient {
        self.http.get_or_init(|| AsClient::with_roots(self.config.timeout, crate::sync::lock(&self.roots).clone()))
    }

    /// The access token to send, if any.
    pub(crate) fn token(&self) -> Option<Arc<str>> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(token, _)| Arc::clone(token))
    }

    /// The headers that carry the token on a `method` request to `url`:
    /// `Authorization: Bearer`, or `Authorization: DPoP` and a fresh proof.
    pub(crate) fn authorization(&self, method: &str, url: &str) -> Result<Vec<(&'static str, String)>, String> {
        let Some((token, bound)) = self.current.read().unwrap_or_else(|e| e.into_inner()).clone() else {
            return Ok(Vec::new());
        };
        match (bound, &self.dpop) {
            (true, Some(key)) => {
                let nonce = crate::sync::lock(&self.nonces).server.clone();
                let proof = key.proof(method, url, Some(&token), nonce.as_deref())?;
                Ok(vec![("authorization", format!("DPoP {token}")), ("dpop", proof)])
            }
            _ => Ok(vec![("authorization", format!("Bearer {token}"))]),
        }
    }

    /// What a response of `status`, challenged with `challenge` and giving
    /// `nonce` (`DPoP-Nonce`), asks of the client: nothing (it is no refusal
    /// of the token), a proof with the server's nonce (which is kept for
    /// the proofs that follow), or a token.
    pub(crate) fn asked(&self, status: u16, challenge: Option<&str>, nonce: Option<&str>) -> Option<Asked> {
        let challenge = Challenge::read(challenge.unwrap_or_default());
        match status {
            401 if challenge.error.as_deref() == Some("use_dpop_nonce") && self.dpop.is_some() && nonce.is_some() => {
                crate::sync::lock(&self.nonces).server = nonce.map(str::to_owned);
                Some(Asked::Nonce)
            }
            401 => Some(Asked::Token),
            403 if challenge.insufficient_scope() => Some(Asked::Token),
            _ => None,
        }
    }

    /// How many times one request may send the person to authorize.
    pub(crate) fn most(&self) -> usize {
        self.config.max_authorizations
    }

    /// After the server refused a request sent with `used` (`status` 401,
    /// or 403 for want of a scope) and challenged it with `challenge`: a
    /// token for the next try. Returns whether the person was sent to
    /// authorize (rather than a token refreshed, or one another request got
    /// meanwhile taken).
    pub(crate) async fn refused(
        &self,
        status: u16,
        challenge: Option<&str>,
        used: Option<&str>,
    ) -> Result<bool, Error> {
        let challenge = Challenge::read(challenge.unwrap_or_default());
        let mut state = self.state.lock().await;
        let now = self.token();
        if status == 401 && now.is_some() && now.as_deref() != used {
            return Ok(false);
        }
        if status == 401
            && let Some(tokens) = state.tokens.clone().filter(|t| t.refresh_token.is_some())
        {
            match self.refresh(&tokens).await {
                Ok(fresh) => {
                    self.keep(&mut state, fresh);
                    return Ok(false);
                }
                Err(error) => tracing::debug!(%error, "the refresh token was refused: authorizing again"),
            }
        }
        self.authorize(&mut state, &challenge).await?;
        Ok(true)
    }

    /// The whole flow: metadata, a client id, the person's approval, the
    /// code traded for tokens (or, for a program acting for itself, its
    /// credentials).
    async fn authorize(&self, state: &mut State, challenge: &Challenge) -> Result<(), Error> {
        let protected = discovery::resource_metadata(self.http(), &self.server, challenge).await?;
        if let Some(grant) = &self.config.grant {
            let Some(protected) = protected else {
                return Err(AuthError::new(
                    "protected resource metadata",
                    &self.server,
                    "the server publishes none, so no token endpoint to send the client credentials to",
                )
                .into());
            };
            let metadata = discovery::server_metadata(self.http(), &protected.issuer, false).await?;
            let scopes = match &challenge.scope {
                Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
                None => protected.scopes.clone().unwrap_or_default(),
            };
            let asked = if challenge.insufficient_scope() { union(&state.asked, &scopes) } else { scopes };
            let tokens = match grant {
                Grant::Credentials(service) => self.for_itself(service, &metadata, &protected.resource, &asked).await?,
                Grant::Workload(token) => self.as_workload(token, &metadata, &protected.resource, &asked).await?,
                Grant::Enterprise(login) => self.for_enterprise(login, &metadata, &protected.resource, &asked).await?,
            };
            state.asked = asked;
            self.keep(state, tokens);
            return Ok(());
        }
        let metadata = match &protected {
            Some(protected) => discovery::server_metadata(self.http(), &protected.issuer, true).await?,
            None => discovery::origin_metadata(self.http(), &self.server).await?,
        };
        let resource = protected.as_ref().map_or(self.server.as_str(), |p| p.resource.as_str());
        let needed: Vec<String> = match (&challenge.scope, &protected) {
            (Some(scope), _) => scope.split_whitespace().map(str::to_owned).collect(),
            (None, Some(protected)) if !challenge.insufficient_scope() => protected.scopes.clone().unwrap_or_default(),
            _ => Vec::new(),
        };
        let asked = match challenge.insufficient_scope() {
            true => union(&state.asked, &needed),
            false => needed,
        };
        let client = self.client_id(&metadata, state.tokens.as_ref()).await?;
        let pkce = Pkce::new()
            .map_err(|e| AuthError::new("authorization", &metadata.authorization_endpoint, e.to_string()))?;
        let url = authorization_url(&metadata, &client.id, &self.config.redirect_uri, &pkce, resource, &asked)?;
        let Some(authorize) = &self.config.authorize else {
            return Err(AuthError::new(
                "authorization",
                &metadata.authorization_endpoint,
                "the server needs a person to authorize, and this client has no `on_authorize` callback",
            )
            .into());
        };
        let redirect = authorize(url)
            .await
            .map_err(|why| AuthError::new("authorization", &metadata.authorization_endpoint, why))?;
        let code = code_of(&redirect, &pkce, &metadata)?;
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", self.config.redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.as_str()),
            ("resource", resource),
        ];
        let scope = (!asked.is_empty()).then(|| asked.join(" "));
        let tokens =
            self.token_request(&metadata.token_endpoint, &client, &form, &metadata.issuer, scope, None).await?;
        state.asked = asked;
        self.keep(state, tokens);
        Ok(())
    }

    /// A token for a program acting for itself: the `client_credentials`
    /// grant, its secret in HTTP Basic or a signed assertion.
    async fn for_itself(
        &self,
        service: &super::ClientCredentials,
        metadata: &ServerMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        if let Some(bound) = service.issuer.as_deref().filter(|bound| *bound != metadata.issuer) {
            return Err(AuthError::new(
                "token request",
                &metadata.token_endpoint,
                format!(
                    "the client credentials are for issuer {bound:?}, not {:?}: they are not sent",
                    metadata.issuer
                ),
            )
            .into());
        }
        let scope = scopes.join(" ");
        let mut form = vec![("grant_type", "client_credentials"), ("resource", resource)];
        if !scope.is_empty() {
            form.push(("scope", &scope));
        }
        let (client, assertion) = authenticated(service, metadata)?;
        if let Some(assertion) = &assertion {
            form.push(("client_assertion_type", CLIENT_ASSERTION));
            form.push(("client_assertion", assertion));
        }
        let scope = (!scope.is_empty()).then_some(scope.clone());
        self.token_request(&metadata.token_endpoint, &client, &form, &metadata.issuer, scope, None).await
    }

    /// A token for a workload, by the JWT its platform gave it.
    async fn as_workload(
        &self,
        token: &super::TokenFn,
        metadata: &ServerMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let step = |why: String| AuthError::new("workload token", &metadata.token_endpoint, why);
        let assertion = token().await.map_err(step)?;
        let scope = scopes.join(" ");
        let mut form = vec![("grant_type", JWT_BEARER), ("assertion", assertion.as_str()), ("resource", resource)];
        if !scope.is_empty() {
            form.push(("scope", &scope));
        }
        let anonymous = ClientId { id: String::new(), secret: None, method: String::new() };
        let scope = (!scope.is_empty()).then_some(scope.clone());
        self.token_request(&metadata.token_endpoint, &anonymous, &form, &metadata.issuer, scope, None).await
    }

    /// A token by enterprise-managed authorization: the identity token
    /// traded at the identity provider for an identity assertion grant,
    /// which the authorization server takes for a token.
    async fn for_enterprise(
        &self,
        login: &super::EnterpriseLogin,
        metadata: &ServerMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let id_token =
            (login.id_token)().await.map_err(|why| AuthError::new("identity token", &login.idp_token_endpoint, why))?;
        let scope = scopes.join(" ");
        let mut exchange = vec![
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"),
            ("audience", metadata.issuer.as_str()),
            ("resource", resource),
            ("subject_token", id_token.as_str()),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
        ];
        if !scope.is_empty() {
            exchange.push(("scope", &scope));
        }
        let at_idp = ClientId {
            id: login.idp_client_id.clone().unwrap_or_default(),
            secret: None,
            method: if login.idp_client_id.is_some() { "none" } else { "" }.to_owned(),
        };
        let grant =
            self.token_request(&login.idp_token_endpoint, &at_idp, &exchange, &metadata.issuer, None, None).await?;
        let mut form =
            vec![("grant_type", JWT_BEARER), ("assertion", grant.access_token.as_str()), ("resource", resource)];
        if !scope.is_empty() {
            form.push(("scope", &scope));
        }
        let (client, assertion) = authenticated(&login.client, metadata)?;
        if let Some(assertion) = &assertion {
            form.push(("client_assertion_type", CLIENT_ASSERTION));
            form.push(("client_assertion", assertion));
        }
        let scope = (!scope.is_empty()).then_some(scope.clone());
        self.token_request(&metadata.token_endpoint, &client, &form, &metadata.issuer, scope, None).await
    }

    /// A new access token for `tokens`' refresh token.
    async fn refresh(&self, tokens: &StoredTokens) -> Result<StoredTokens, Error> {
        let refresh = tokens.refresh_token.as_deref().unwrap_or_default();
        let client = ClientId {
            id: tokens.client_id.clone(),
            secret: tokens.client_secret.clone(),
            method: tokens.token_endpoint_auth_method.clone(),
        };
        let form = [("grant_type", "refresh_token"), ("refresh_token", refresh)];
        let scope = tokens.scope.clone();
        self.token_request(&tokens.token_endpoint, &client, &form, &tokens.issuer, scope, Some(refresh)).await
    }

    /// The client id to use with the authorization server of `metadata`:
    /// the one tokens were issued to by that very server, else one
    /// registered beforehand for it, else this client's metadata document
    /// where the server takes them, else one it registers now.
    async fn client_id(&self, metadata: &ServerMetadata, stored: Option<&StoredTokens>) -> Result<ClientId, Error> {
        if let Some(stored) = stored.filter(|s| s.issuer == metadata.issuer) {
            return Ok(ClientId {
                id: stored.client_id.clone(),
                secret: stored.client_secret.clone(),
                method: stored.token_endpoint_auth_method.clone(),
            });
        }
        let registered =
            self.config.registered.iter().find(|r| r.issuer.as_deref().is_none_or(|i| i == metadata.issuer));
        if let Some(registered) = registered {
            let method = match &registered.secret {
                None => "none",
                Some(_) if metadata.auth_methods == ["client_secret_post"] => "client_secret_post",
                Some(_) => "client_secret_basic",
            };
            return Ok(ClientId {
                id: registered.id.clone(),
                secret: registered.secret.clone(),
                method: method.to_owned(),
            });
        }
        if let Some(document) = self.config.metadata_document.as_ref().filter(|_| metadata.metadata_documents) {
            return Ok(ClientId { id: document.clone(), secret: None, method: "none".to_owned() });
        }
        self.register(metadata).await
    }

    /// Dynamic registration (RFC 7591) at the server of `metadata`.
    async fn register(&self, metadata: &ServerMetadata) -> Result<ClientId, Error> {
        let step = "client registration";
        let Some(endpoint) = &metadata.registration_endpoint else {
            return Err(AuthError::new(
                step,
                &metadata.issuer,
                "the authorization server takes no registrations, and no client is registered with it \
                 (`OAuth::registered`)",
            )
            .into());
        };
        let method = match metadata.auth_methods.first() {
            Some(first) if !metadata.auth_methods.iter().any(|m| m == "none") => first.as_str(),
            _ => "none",
        };
        let request = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "application_type": "native",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
        });
        let body = serde_json::to_vec(&request).map_err(|e| AuthError::new(step, endpoint, e.to_string()))?;
        let (status, answer) = self
            .http()
            .post(endpoint, "application/json", body, None, None)
            .await
            .map(|answered| (answered.status, answered.body))
            .map_err(|e| AuthError::new(step, endpoint, e.to_string()))?;
        if !(200..300).contains(&status) {
            return Err(AuthError::new(step, endpoint, refusal(status, &answer)).into());
        }
        let id =
            text(&answer, "client_id").ok_or_else(|| AuthError::new(step, endpoint, "no `client_id` in the answer"))?;
        let secret = text(&answer, "client_secret").map(str::to_owned);
        let method = text(&answer, "token_endpoint_auth_method")
            .unwrap_or(if secret.is_some() { "client_secret_basic" } else { "none" })
            .to_owned();
        Ok(ClientId { id: id.to_owned(), secret, method })
    }

    /// A token request with `form` and the client's authentication: the
    /// tokens it issues (a refresh keeps `refresh` when none comes back).
    async fn token_request(
        &self,
        endpoint: &str,
        client: &ClientId,
        form: &[(&str, &str)],
        issuer: &str,
        scope: Option<String>,
        refresh: Option<&str>,
    ) -> Result<StoredTokens, Error> {
        let step = "token request";
        let mut form = form.to_vec();
        let basic = match (client.method.as_str(), &client.secret) {
            ("client_secret_basic", Some(secret)) => Some((client.id.as_str(), secret.as_str())),
            // The assertion names the client; or none is authenticated.
            ("private_key_jwt" | "", _) => None,
            ("client_secret_post", Some(secret)) => {
                form.push(("client_id", &client.id));
                form.push(("client_secret", secret));
                None
            }
            _ => {
                form.push(("client_id", &client.id));
                None
            }
        };
        let body = form_body(&form).into_bytes();
        let (mut status, mut answer) = (0, Map::new());
        // Once more with the nonce an authorization server asks for, at most.
        for _ in 0..2 {
            let proof = match &self.dpop {
                Some(key) => {
                    let nonce = crate::sync::lock(&self.nonces).authorization_server.clone();
                    let proof = key.proof("POST", endpoint, None, nonce.as_deref());
                    Some(proof.map_err(|why| AuthError::new(step, endpoint, why))?)
                }
                None => None,
            };
            let form = "application/x-www-form-urlencoded";
            let answered = match self.http().post(endpoint, form, body.clone(), basic, proof.as_deref()).await {
                Ok(answered) => answered,
                Err(FetchError::Status(status)) => Answered { status, nonce: None, body: Map::new() },
                Err(error) => return Err(AuthError::new(step, endpoint, error.to_string()).into()),
            };
            (status, answer) = (answered.status, answered.body);
            let asks_nonce = text(&answer, "error") == Some("use_dpop_nonce") && self.dpop.is_some();
            match answered.nonce {
                Some(nonce) if asks_nonce => crate::sync::lock(&self.nonces).authorization_server = Some(nonce),
                _ => break,
            }
        }
        let access = text(&answer, "access_token").filter(|_| (200..300).contains(&status));
        let Some(access) = access else {
            return Err(AuthError::new(step, endpoint, refusal(status, &answer)).into());
        };
        Ok(StoredTokens {
            issuer: issuer.to_owned(),
            access_token: access.to_owned(),
            refresh_token: text(&answer, "refresh_token").or(refresh).map(str::to_owned),
            scope: text(&answer, "scope").map(str::to_owned).or(scope),
            client_id: client.id.clone(),
            client_secret: client.secret.clone(),
            token_endpoint_auth_method: client.method.clone(),
            token_endpoint: endpoint.to_owned(),
            token_type: text(&answer, "token_type").map(str::to_owned),
        })
    }

    /// Makes `tokens` the ones sent, and keeps them.
    fn keep(&self, state: &mut State, tokens: StoredTokens) {
        self.config.store.save(&self.server, &tokens);
        let bound = is_bound(&tokens) && self.dpop.is_some();
        let sent = (Arc::from(tokens.access_token.as_str()), bound);
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(sent);
        state.tokens = Some(tokens);
    }
}

/// How `credentials` authenticate at the token endpoint of `metadata`:
/// a secret with HTTP Basic, or a key's signed assertion (returned, for
/// the form).
fn authenticated(
    credentials: &super::ClientCredentials,
    metadata: &ServerMetadata,
) -> Result<(ClientId, Option<String>), Error> {
    let id = credentials.id.clone();
    Ok(match &credentials.proof {
        super::Proof::Secret(secret) => {
            (ClientId { id, secret: Some(secret.clone()), method: "client_secret_basic".to_owned() }, None)
        }
        super::Proof::PrivateKey(key) => {
            let assertion = assertion(&credentials.id, &metadata.issuer, key)
                .map_err(|why| AuthError::new("token request", &metadata.token_endpoint, why))?;
            (ClientId { id, secret: None, method: "private_key_jwt".to_owned() }, Some(assertion))
        }
    })
}

/// An RFC 7523 client assertion of `client` for the authorization server
/// `issuer`, signed (ES256) with `key` (PKCS#8 DER): good for five minutes.
fn assertion(client: &str, issuer: &str, key: &[u8]) -> Result<String, String> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|e| e.to_string())?.as_secs();
    let id = super::pkce::Pkce::new().map_err(|e| e.to_string())?.state;
    let claims = json!({"iss": client, "sub": client, "aud": issuer, "iat": now, "exp": now + 300, "jti": id});
    let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    jsonwebtoken::encode(&header, &claims, &jsonwebtoken::EncodingKey::from_ec_der(key)).map_err(|e| e.to_string())
}

/// The authorization URL the person is sent to.
fn authorization_url(
    metadata: &ServerMetadata,
    client_id: &str,
    redirect_uri: &str,
    pkce: &Pkce,
    resource: &str,
    scopes: &[String],
) -> Result<String, Error> {
    let mut url = url::Url::parse(&metadata.authorization_endpoint)
        .map_err(|e| AuthError::new("authorization", &metadata.authorization_endpoint, e.to_string()))?;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("state", &pkce.state)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("resource", resource);
        if !scopes.is_empty() {
            query.append_pair("scope", &scopes.join(" "));
        }
    }
    Ok(url.into())
}

/// The code of the redirect the person came back with, once its `state`
/// and its issuer (RFC 9207) are checked: a code that came from elsewhere
/// goes nowhere.
fn code_of(redirect: &str, pkce: &Pkce, metadata: &ServerMetadata) -> Result<String, Error> {
    let step = "authorization response";
    let url = url::Url::parse(redirect).map_err(|e| AuthError::new(step, redirect, e.to_string()))?;
    let param = |name: &str| url.query_pairs().find(|(key, _)| key == name).map(|(_, value)| value.into_owned());
    if param("state").as_deref() != Some(pkce.state.as_str()) {
        return Err(AuthError::new(step, redirect, "its `state` is not the one sent").into());
    }
    match (param("iss"), metadata.iss_supported) {
        (Some(iss), _) if iss != metadata.issuer => {
            return Err(AuthError::new(
                step,
                redirect,
                format!("it comes from issuer {iss:?}, not {:?}", metadata.issuer),
            )
            .into());
        }
        (None, true) => {
            return Err(
                AuthError::new(step, redirect, "it names no issuer (`iss`), which its server says it does").into()
            );
        }
        _ => {}
    }
    if let Some(error) = param("error") {
        let described = param("error_description").map(|d| format!(": {d}")).unwrap_or_default();
        return Err(
            AuthError::new(step, redirect, format!("the authorization was refused ({error}{described})")).into()
        );
    }
    param("code").ok_or_else(|| AuthError::new(step, redirect, "it has no `code`").into())
}

/// Whether `tokens` are bound to a key (DPoP).
fn is_bound(tokens: &StoredTokens) -> bool {
    tokens.token_type.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("dpop"))
}

/// `before` and the scopes of `more` it lacks, in order.
fn union(before: &[String], more: &[String]) -> Vec<String> {
    let mut all = before.to_vec();
    all.extend(more.iter().filter(|scope| !before.contains(scope)).cloned());
    all
}

/// What an authorization server's refusal says.
fn refusal(status: u16, answer: &Map<String, Value>) -> String {
    match (text(answer, "error"), text(answer, "error_description")) {
        (Some(error), Some(description)) => format!("HTTP {status}, {error}: {description}"),
        (Some(error), None) => format!("HTTP {status}, {error}"),
        _ => format!("HTTP {status}"),
    }
}

fn text<'a>(document: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    document.get(key).and_then(Value::as_str)
}
