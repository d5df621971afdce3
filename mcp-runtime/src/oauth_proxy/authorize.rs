//! The browser's way through the front: the client's authorization
//! request, checked and shown to the person; their answer; the provider's
//! callback; and the code sent back to the client.
//!
//! Until the redirect URI is known to be the client's, nothing is sent to
//! it: errors are pages. Every step is bound to the browser that began
//! (a cookie whose digest the records keep) and to one authorization
//! (records taken, never read twice).

use std::time::Duration;

use http::{HeaderMap, StatusCode};

use super::answers::{self, Answer, escape};
use super::front::{Front, Lookup};
use super::records::{self, Asked, AtProvider, Client, Code, Grant};
use super::redirect;
use super::upstream::UpstreamError;
use crate::auth::Principal;

/// How long a person has to consent, and then to sign in at the provider.
const PENDING_TTL: Duration = Duration::from_secs(10 * 60);
/// How long a code is good for (OAuth 2.1 §4.1.2: short).
const CODE_TTL: Duration = Duration::from_secs(60);
/// The most scopes one request may name, and the longest scope.
const MAX_SCOPES: usize = 32;
const MAX_SCOPE_BYTES: usize = 128;
/// The longest `state` carried through.
const MAX_STATE_BYTES: usize = 1024;

/// `GET <issuer>/authorize`.
pub(crate) async fn authorize(front: &Front, headers: &HeaderMap, query: &[u8]) -> Answer {
    let params = match answers::params(query) {
        Ok(params) => params,
        Err(why) => return answers::error_page(StatusCode::BAD_REQUEST, &why),
    };
    let Some(client_id) = params.get("client_id") else {
        return answers::error_page(StatusCode::BAD_REQUEST, "the request names no client (client_id)");
    };
    // The endpoint is paced as a whole: its fetch is already paid for.
    let client = match front.client(client_id, || true).await {
        Ok(Lookup::Known(client)) => client,
        Ok(Lookup::Unknown | Lookup::Paced) => {
            return answers::error_page(StatusCode::BAD_REQUEST, "this client is not registered here");
        }
        Err(error) => return answers::unavailable(&error),
    };
    let redirect_uri = match params.get("redirect_uri") {
        Some(uri) if redirect::matches(&client.redirect_uris, uri) => uri.clone(),
        Some(_) => {
            return answers::error_page(StatusCode::BAD_REQUEST, "the redirect URI is not one this client registered");
        }
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => return answers::error_page(StatusCode::BAD_REQUEST, "the request names no redirect URI"),
    };
    let state = params.get("state").cloned();
    // From here on errors go back to the client, which is who must hear them.
    let refuse = |error: &str, description: &str| {
        send_back(front, &redirect_uri, state.as_deref(), &[("error", error), ("error_description", description)])
    };
    if state.as_ref().is_some_and(|s| s.len() > MAX_STATE_BYTES) {
        return answers::error_page(StatusCode::BAD_REQUEST, "the state is too long");
    }
    if params.get("response_type").map(String::as_str) != Some("code") {
        return refuse("unsupported_response_type", "only response_type=code");
    }
    let Some(challenge) = params.get("code_challenge").filter(|c| super::pkce::well_formed(c)) else {
        return refuse("invalid_request", "PKCE is required: a code_challenge of 43 to 128 characters");
    };
    if params.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return refuse("invalid_request", "code_challenge_method must be S256");
    }
    if params.get("resource").is_some_and(|r| *r != front.config.resource) {
        return refuse("invalid_target", "tokens here are for one resource only");
    }
    let scopes = match params.get("scope").map(|scope| requested_scopes(front, scope)).transpose() {
        Ok(scopes) => scopes,
        Err(why) => return refuse("invalid_scope", &why),
    };
    let (browser, new_cookie) = match answers::cookie(headers) {
        Some(value) => (value.to_owned(), false),
        None => match records::secret() {
            Ok(value) => (value, true),
            Err(error) => return answers::unavailable(&error),
        },
    };
    let asked = Asked {
        client_id: client.client_id.clone(),
        redirect_named: params.contains_key("redirect_uri"),
        redirect_uri,
        state,
        code_challenge: challenge.clone(),
        scopes,
        browser: records::digest(&browser),
    };
    let id = match records::secret() {
        Ok(id) => id,
        Err(error) => return answers::unavailable(&error),
    };
    if let Err(error) =
        records::put(&*front.config.store, &format!("asked:{}", records::digest(&id)), &asked, PENDING_TTL).await
    {
        return answers::unavailable(&error);
    }
    let mut answer = consent_page(front, &client, &asked, &id);
    if new_cookie {
        answers::set_cookie(&mut answer, &browser, front.cookie_path(), front.secure);
    }
    answer
}

/// The page that asks the person.
fn consent_page(front: &Front, client: &Client, asked: &Asked, id: &str) -> Answer {
    let name = client.client_name.as_deref().unwrap_or(&client.client_id);
    let host = redirect::host_of(&asked.redirect_uri);
    let local = if redirect::is_local(&asked.redirect_uri) {
        "<p class=\"warn\">It sends you back to a program on this computer. Allow it only if you just started \
         that program yourself.</p>"
    } else {
        ""
    };
    let scopes = match &asked.scopes {
        Some(scopes) if !scopes.is_empty() => {
            let items: String = scopes.iter().map(|s| format!("<li><code>{}</code></li>", escape(s))).collect();
            format!("<p>It asks for:</p><ul>{items}</ul>")
        }
        _ => String::new(),
    };
    let body = format!(
        "<p><strong>{name}</strong> asks to use <code>{resource}</code> as you.</p>\
         <p>After you sign in, you will be sent to <strong>{host}</strong>.</p>{local}{scopes}\
         <form method=\"post\" action=\"{action}\">\
         <input type=\"hidden\" name=\"authorization\" value=\"{id}\">\
         <button name=\"decision\" value=\"allow\">Allow</button>\
         <button name=\"decision\" value=\"deny\">Deny</button></form>",
        name = escape(name),
        resource = escape(&front.config.resource),
        host = escape(&host),
        action = escape(&format!("{}/consent", front.config.issuer)),
        id = escape(id),
    );
    answers::page(StatusCode::OK, "Allow access?", &body)
}

/// `POST <issuer>/consent`.
pub(crate) async fn consent(front: &Front, headers: &HeaderMap, body: &[u8]) -> Answer {
    // A form posted from another site is not the person's answer.
    if let Some(origin) = headers.get(http::header::ORIGIN).and_then(|v| v.to_str().ok())
        && origin != crate::auth::discovery::split_origin(&front.config.issuer).0
    {
        return answers::error_page(StatusCode::FORBIDDEN, "this answer did not come from the consent page");
    }
    let params = match answers::params(body) {
        Ok(params) => params,
        Err(why) => return answers::error_page(StatusCode::BAD_REQUEST, &why),
    };
    let (Some(id), Some(decision)) = (params.get("authorization"), params.get("decision")) else {
        return answers::error_page(StatusCode::BAD_REQUEST, "the answer names no authorization or decision");
    };
    let Some(browser) = answers::cookie(headers) else {
        return answers::error_page(
            StatusCode::FORBIDDEN,
            "this browser did not ask for this authorization (no cookie)",
        );
    };
    let key = format!("asked:{}", records::digest(id));
    let asked: Asked = match records::get(&*front.config.store, &key).await {
        Ok(Some(asked)) => asked,
        Ok(None) => return answers::error_page(StatusCode::BAD_REQUEST, "this authorization expired or was answered"),
        Err(error) => return answers::unavailable(&error),
    };
    if asked.browser != records::digest(browser) {
        return answers::error_page(StatusCode::FORBIDDEN, "this browser did not ask for this authorization");
    }
    // Taken, so that one consent is one authorization.
    let asked: Asked = match records::take(&*front.config.store, &key).await {
        Ok(Some(asked)) => asked,
        Ok(None) => return answers::error_page(StatusCode::BAD_REQUEST, "this authorization was answered already"),
        Err(error) => return answers::unavailable(&error),
    };
    if decision != "allow" {
        let (uri, state) = (asked.redirect_uri.clone(), asked.state.clone());
        return send_back(
            front,
            &uri,
            state.as_deref(),
            &[("error", "access_denied"), ("error_description", "the person declined")],
        );
    }
    let resolved = match front.provider.resolved().await {
        Ok(resolved) => resolved,
        Err(error) => return provider_failed(front, &asked, &error),
    };
    let (state, nonce, verifier) = match (records::secret(), records::secret(), records::secret()) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return answers::unavailable(&e),
    };
    let challenge = super::pkce::challenge(&verifier);
    let url = front.provider.authorization_url(resolved, &front.callback_uri(), &state, &nonce, &challenge);
    let leg = AtProvider { asked, nonce, verifier };
    let key = format!("provider:{}", records::digest(&state));
    if let Err(error) = records::put(&*front.config.store, &key, &leg, PENDING_TTL).await {
        return answers::unavailable(&error);
    }
    answers::redirect(&url)
}

/// `GET <issuer>/callback`: the provider sends the person back.
pub(crate) async fn callback(front: &Front, headers: &HeaderMap, query: &[u8]) -> Answer {
    let params = match answers::params(query) {
        Ok(params) => params,
        Err(why) => return answers::error_page(StatusCode::BAD_REQUEST, &why),
    };
    let Some(state) = params.get("state") else {
        return answers::error_page(StatusCode::BAD_REQUEST, "the provider's answer has no state");
    };
    let Some(browser) = answers::cookie(headers) else {
        return answers::error_page(StatusCode::FORBIDDEN, "this browser did not begin this sign-in (no cookie)");
    };
    let key = format!("provider:{}", records::digest(state));
    let leg: AtProvider = match records::get(&*front.config.store, &key).await {
        Ok(Some(leg)) => leg,
        Ok(None) => return answers::error_page(StatusCode::BAD_REQUEST, "this sign-in expired or was finished"),
        Err(error) => return answers::unavailable(&error),
    };
    // Someone else's sign-in, finished in this browser, must not hand this
    // person's identity to that other client.
    if leg.asked.browser != records::digest(browser) {
        return answers::error_page(StatusCode::FORBIDDEN, "this browser did not begin this sign-in");
    }
    let leg: AtProvider = match records::take(&*front.config.store, &key).await {
        Ok(Some(leg)) => leg,
        Ok(None) => return answers::error_page(StatusCode::BAD_REQUEST, "this sign-in was finished already"),
        Err(error) => return answers::unavailable(&error),
    };
    // RFC 9207: an answer from another issuer is a mix-up.
    if params.get("iss").is_some_and(|iss| iss != front.provider.issuer()) {
        return answers::error_page(StatusCode::BAD_REQUEST, "the answer came from another issuer");
    }
    let asked = &leg.asked;
    if let Some(error) = params.get("error") {
        tracing::info!(error = %error, "the identity provider refused a sign-in");
        let code = if error == "temporarily_unavailable" { "temporarily_unavailable" } else { "access_denied" };
        return send_back(
            front,
            &asked.redirect_uri,
            asked.state.as_deref(),
            &[("error", code), ("error_description", "the identity provider did not sign the person in")],
        );
    }
    let Some(code) = params.get("code") else {
        return answers::error_page(StatusCode::BAD_REQUEST, "the provider's answer has no code");
    };
    let claims = match front.provider.person(code, &leg.verifier, &front.callback_uri(), &leg.nonce).await {
        Ok(claims) => claims,
        Err(error) => return provider_failed(front, asked, &error),
    };
    let Some(subject) = claims.get("sub").and_then(|s| s.as_str()).map(str::to_owned) else {
        return provider_failed(front, asked, &UpstreamError::Refused("the ID token names no subject".into()));
    };
    let person = Principal::new(&subject).with_issuer(front.provider.issuer()).with_claims(claims);
    let scopes = granted(front, &person, asked.scopes.as_deref());
    let code = match records::secret() {
        Ok(code) => code,
        Err(error) => return answers::unavailable(&error),
    };
    let issued = Code {
        grant: Grant { client_id: asked.client_id.clone(), subject, scopes },
        redirect_uri: asked.redirect_uri.clone(),
        redirect_named: asked.redirect_named,
        code_challenge: asked.code_challenge.clone(),
    };
    if let Err(error) =
        records::put(&*front.config.store, &format!("code:{}", records::digest(&code)), &issued, CODE_TTL).await
    {
        return answers::unavailable(&error);
    }
    send_back(front, &asked.redirect_uri, asked.state.as_deref(), &[("code", &code)])
}

/// The scopes a person gets: what the rule grants, of what was asked.
fn granted(front: &Front, person: &Principal, asked: Option<&[String]>) -> Vec<String> {
    let Some(rule) = &front.config.rule else { return Vec::new() };
    let by_rule = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rule(person))).unwrap_or_else(|_| {
        tracing::error!("the OAuth proxy's scope rule panicked: nothing granted");
        Vec::new()
    });
    let mut scopes: Vec<String> = match asked {
        Some(asked) => by_rule.into_iter().filter(|s| asked.contains(s)).collect(),
        None => by_rule,
    };
    scopes.sort();
    scopes.dedup();
    scopes
}

/// The scopes of a request's `scope`: at most 32, each known (or
/// `offline_access`, which is dropped: refresh tokens go to clients that
/// registered the grant).
fn requested_scopes(front: &Front, scope: &str) -> Result<Vec<String>, String> {
    let words: Vec<&str> = scope.split(' ').filter(|w| !w.is_empty()).collect();
    if words.len() > MAX_SCOPES || words.iter().any(|w| w.len() > MAX_SCOPE_BYTES) {
        return Err(format!("at most {MAX_SCOPES} scopes of {MAX_SCOPE_BYTES} bytes"));
    }
    let mut scopes = Vec::new();
    for word in words {
        if word == "offline_access" {
            continue;
        }
        if !front.knows_scope(word) {
            return Err(format!("`{word}` is not a scope of this server"));
        }
        scopes.push(word.to_owned());
    }
    Ok(scopes)
}

/// The provider failed: the client hears it (`temporarily_unavailable`
/// when it may pass, which must not make a client drop what it holds).
fn provider_failed(front: &Front, asked: &Asked, error: &UpstreamError) -> Answer {
    tracing::warn!(%error, "a sign-in at the identity provider failed");
    let code = match error {
        UpstreamError::Unreachable(_) => "temporarily_unavailable",
        UpstreamError::Refused(_) => "server_error",
    };
    send_back(
        front,
        &asked.redirect_uri,
        asked.state.as_deref(),
        &[("error", code), ("error_description", "the identity provider could not sign the person in")],
    )
}

/// Sends the browser back to the client's checked redirect URI with
/// `params`, its `state` and the front's issuer (RFC 9207).
fn send_back(front: &Front, redirect_uri: &str, state: Option<&str>, params: &[(&str, &str)]) -> Answer {
    let mut all: Vec<(&str, &str)> = params.to_vec();
    if let Some(state) = state {
        all.push(("state", state));
    }
    all.push(("iss", &front.config.issuer));
    answers::redirect(&answers::with_query(redirect_uri, &all))
}
