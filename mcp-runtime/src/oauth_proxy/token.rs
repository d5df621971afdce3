//! The token endpoint (codes and refresh tokens for access tokens) and
//! revocation (RFC 7009).

use std::collections::BTreeMap;
use std::net::IpAddr;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderMap, StatusCode};
use serde_json::{Map, Value, json};

use super::answers::{self, Answer};
use super::front::{Front, Lookup};
use super::keys::now;
use super::records::{self, Client, Code, Grant};

/// `POST <issuer>/token`.
pub(crate) async fn token(front: &Front, headers: &HeaderMap, body: &[u8], address: Option<IpAddr>) -> Answer {
    let (params, client) = match client_request(front, headers, body, address).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    if params.get("resource").is_some_and(|r| *r != front.config.resource) {
        return bad("invalid_target", "tokens here are for one resource only");
    }
    match params.get("grant_type").map(String::as_str) {
        Some("authorization_code") => exchange_code(front, &client, &params).await,
        Some("refresh_token") => refresh(front, &client, &params).await,
        Some(_) => bad("unsupported_grant_type", "authorization_code or refresh_token"),
        None => bad("invalid_request", "no grant_type"),
    }
}

async fn exchange_code(front: &Front, client: &Client, params: &BTreeMap<String, String>) -> Answer {
    let (Some(code), Some(verifier)) = (params.get("code"), params.get("code_verifier")) else {
        return bad("invalid_request", "a code and its code_verifier are required");
    };
    let store = &*front.config.store;
    // Taken: a code is exchanged once, whoever tries first.
    let issued: Code = match records::take(store, &format!("code:{}", records::digest(code))).await {
        Ok(Some(issued)) => issued,
        Ok(None) => return bad("invalid_grant", "the code is unknown, expired or used"),
        Err(error) => return answers::unavailable(&error),
    };
    if issued.grant.client_id != client.client_id {
        return bad("invalid_grant", "the code was issued to another client");
    }
    let named = params.get("redirect_uri");
    if named.is_some_and(|uri| *uri != issued.redirect_uri) || (issued.redirect_named && named.is_none()) {
        return bad("invalid_grant", "the redirect_uri is not the authorization request's");
    }
    if !super::pkce::answers(verifier, &issued.code_challenge) {
        return bad("invalid_grant", "the code_verifier does not match the code_challenge");
    }
    if let Err(error) = front.renew(client).await {
        return answers::unavailable(&error);
    }
    issue(front, client, issued.grant).await
}

async fn refresh(front: &Front, client: &Client, params: &BTreeMap<String, String>) -> Answer {
    let Some(token) = params.get("refresh_token") else {
        return bad("invalid_request", "no refresh_token");
    };
    let key = format!("refresh:{}", records::digest(token));
    let store = &*front.config.store;
    // Read first: another client presenting a stolen token must not be
    // able to spend it for its owner.
    match records::get::<Grant>(store, &key).await {
        Ok(Some(grant)) if grant.client_id == client.client_id => {}
        Ok(_) => return bad("invalid_grant", "the refresh token is unknown, expired, used or another client's"),
        Err(error) => return answers::unavailable(&error),
    }
    // Then taken: it is replaced by a new one, once.
    let mut grant: Grant = match records::take(store, &key).await {
        Ok(Some(grant)) => grant,
        Ok(None) => return bad("invalid_grant", "the refresh token was used"),
        Err(error) => return answers::unavailable(&error),
    };
    if let Some(scope) = params.get("scope") {
        let narrower: Vec<String> = scope.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect();
        if narrower.iter().any(|s| !grant.scopes.contains(s)) {
            return bad("invalid_scope", "a refresh may only narrow the scopes granted");
        }
        grant.scopes = narrower;
    }
    issue(front, client, grant).await
}

/// An access token for `grant`, and a refresh token when the client
/// registered the grant.
async fn issue(front: &Front, client: &Client, grant: Grant) -> Answer {
    let key = match front.keys.key().await {
        Ok(key) => key,
        Err(error) => return answers::unavailable(&error),
    };
    let (jti, refresh_token) = match (records::secret(), records::secret()) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return answers::unavailable(&e),
    };
    let issued_at = now();
    let ttl = front.config.access_token_ttl.as_secs();
    let scope = grant.scopes.join(" ");
    let Value::Object(claims) = json!({
        "iss": front.config.issuer,
        "sub": grant.subject,
        "aud": front.config.resource,
        "client_id": grant.client_id,
        "scope": scope,
        "iat": issued_at,
        "exp": issued_at + ttl,
        "jti": jti,
    }) else {
        unreachable!("an object")
    };
    let access_token = match key.sign(&claims) {
        Ok(token) => token,
        Err(error) => return answers::unavailable(&error),
    };
    let mut answer: Map<String, Value> = Map::new();
    answer.insert("access_token".into(), access_token.into());
    answer.insert("token_type".into(), "Bearer".into());
    answer.insert("expires_in".into(), ttl.into());
    answer.insert("scope".into(), scope.into());
    if client.refreshes {
        let key = format!("refresh:{}", records::digest(&refresh_token));
        if let Err(error) = records::put(&*front.config.store, &key, &grant, front.config.refresh_token_ttl).await {
            return answers::unavailable(&error);
        }
        answer.insert("refresh_token".into(), refresh_token.into());
    }
    answers::json(StatusCode::OK, &Value::Object(answer))
}

/// `POST <issuer>/revoke`: a refresh token ends; an access token, which
/// is verified without the front, runs out by itself (RFC 7009 §2.2
/// answers 200 all the same).
pub(crate) async fn revoke(front: &Front, headers: &HeaderMap, body: &[u8], address: Option<IpAddr>) -> Answer {
    let (params, client) = match client_request(front, headers, body, address).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let Some(token) = params.get("token") else {
        return bad("invalid_request", "no token");
    };
    let key = format!("refresh:{}", records::digest(token));
    let store = &*front.config.store;
    match records::get::<Grant>(store, &key).await {
        // Only its own client may revoke it (RFC 7009 §2.1).
        Ok(Some(grant)) if grant.client_id == client.client_id => {
            if let Err(error) = store.delete(&key).await {
                return answers::unavailable(&error);
            }
        }
        Ok(_) => {}
        Err(error) => return answers::unavailable(&error),
    }
    answers::json(StatusCode::OK, &json!({}))
}

/// A client's form, and the client it authenticates as.
async fn client_request(
    front: &Front,
    headers: &HeaderMap,
    body: &[u8],
    address: Option<IpAddr>,
) -> Result<(BTreeMap<String, String>, Client), Answer> {
    let params = answers::params(body).map_err(|why| bad("invalid_request", &why))?;
    let client = authenticate(front, headers, &params, address).await?;
    Ok((params, client))
}

/// The client of a token or revocation request: a public client by its
/// `client_id`; a confidential one by its secret, in HTTP Basic or the
/// form (RFC 6749 §2.3.1). A client known by a document not cached
/// (expired since `/authorize`, or never asked for) costs the caller's
/// `address` one of its paced writes.
async fn authenticate(
    front: &Front,
    headers: &HeaderMap,
    params: &BTreeMap<String, String>,
    address: Option<IpAddr>,
) -> Result<Client, Answer> {
    let basic = match headers.get(http::header::AUTHORIZATION) {
        Some(value) => Some(basic_credentials(value).ok_or_else(|| unauthorized("unreadable Basic credentials"))?),
        None => None,
    };
    let (client_id, secret) = match (&basic, params.get("client_id"), params.get("client_secret")) {
        (Some(_), _, Some(_)) => return Err(bad("invalid_request", "credentials both in Basic and in the form")),
        (Some((id, _)), Some(form_id), _) if id != form_id => {
            return Err(bad("invalid_request", "two different client ids"));
        }
        (Some((id, secret)), _, _) => (id.clone(), Some(secret.clone())),
        (None, Some(id), secret) => (id.clone(), secret.cloned()),
        (None, None, _) => return Err(unauthorized("no client authentication")),
    };
    let client = match front.client(&client_id, || front.pace.allow(address)).await {
        Ok(Lookup::Known(client)) => client,
        Ok(Lookup::Unknown) => return Err(unauthorized("unknown client")),
        Ok(Lookup::Paced) => return Err(answers::too_many(true)),
        Err(error) => return Err(answers::unavailable(&error)),
    };
    let authentic = match (&client.secret_digest, secret) {
        (None, None) => true,
        (Some(digest), Some(secret)) => constant_time_eq(digest.as_bytes(), records::digest(&secret).as_bytes()),
        _ => false,
    };
    if authentic { Ok(client) } else { Err(unauthorized("the client's credentials do not match its registration")) }
}

fn basic_credentials(value: &http::HeaderValue) -> Option<(String, String)> {
    let encoded = value.to_str().ok()?.strip_prefix("Basic ")?;
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let decode =
        |text: &str| url::form_urlencoded::parse(format!("x={text}").as_bytes()).next().map(|(_, v)| v.into_owned());
    Some((decode(id)?, decode(secret)?))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn bad(error: &str, description: &str) -> Answer {
    answers::oauth_error(StatusCode::BAD_REQUEST, error, description)
}

fn unauthorized(description: &str) -> Answer {
    answers::oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", description)
}
