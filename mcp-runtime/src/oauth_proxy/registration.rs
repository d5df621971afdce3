//! Dynamic client registration (RFC 7591): a client says where it may be
//! sent back and how it authenticates; the front gives it an id, and a
//! secret unless it is public.

use http::{HeaderMap, StatusCode};
use serde_json::{Map, Value, json};

use super::answers::{self, Answer};
use super::front::Front;
use super::records::{self, Client};
use super::redirect::{MAX_REDIRECT_URIS, unfit_for_registration};

/// How long a registration is kept before its client first uses it.
const UNUSED_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// The longest client name shown on the consent page.
const MAX_NAME_CHARS: usize = 200;

/// `POST <issuer>/register`.
pub(crate) async fn register(front: &Front, headers: &HeaderMap, body: &[u8]) -> Answer {
    let json_body = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
    if !json_body {
        return invalid("invalid_client_metadata", "the registration must be `application/json`");
    }
    let Ok(Value::Object(metadata)) = serde_json::from_slice::<Value>(body) else {
        return invalid("invalid_client_metadata", "the registration is not a JSON object");
    };
    let checked = match check(&metadata) {
        Ok(checked) => checked,
        Err((code, message)) => return invalid(code, &message),
    };
    let (client_id, secret) = match (records::secret(), records::secret()) {
        (Ok(id), Ok(secret)) => (id, secret),
        (Err(e), _) | (_, Err(e)) => return answers::unavailable(&e),
    };
    let public = checked.auth_method == "none";
    let client = Client {
        client_id: client_id.clone(),
        secret_digest: (!public).then(|| records::digest(&secret)),
        client_name: checked.name.clone(),
        redirect_uris: checked.redirect_uris.clone(),
        refreshes: checked.grant_types.iter().any(|g| g == "refresh_token"),
    };
    let key = format!("client:{}", records::digest(&client_id));
    // Kept a day until used (a code exchanged), then for the full time:
    // registrations nobody uses do not pile up.
    let ttl = front.config.registration_ttl.min(UNUSED_TTL);
    if let Err(error) = records::put(&*front.config.store, &key, &client, ttl).await {
        return answers::unavailable(&error);
    }
    let mut answer = json!({
        "client_id": client_id,
        "client_id_issued_at": super::keys::now(),
        "redirect_uris": checked.redirect_uris,
        "grant_types": checked.grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": checked.auth_method,
    });
    if !public {
        answer["client_secret"] = secret.into();
        answer["client_secret_expires_at"] = 0.into();
    }
    if let Some(name) = checked.name {
        answer["client_name"] = name.into();
    }
    // What the client sent and the front does not act on, it gets back as
    // sent (RFC 7591 §3.2.1), within the body's bound.
    for name in [
        "client_uri",
        "logo_uri",
        "scope",
        "contacts",
        "tos_uri",
        "policy_uri",
        "software_id",
        "software_version",
        "application_type",
    ] {
        if let Some(value) = metadata.get(name) {
            answer[name] = value.clone();
        }
    }
    tracing::info!(client_id = %client.client_id, public, "a client registered");
    answers::json(StatusCode::CREATED, &answer)
}

struct Checked {
    redirect_uris: Vec<String>,
    auth_method: String,
    grant_types: Vec<String>,
    name: Option<String>,
}

fn check(metadata: &Map<String, Value>) -> Result<Checked, (&'static str, String)> {
    let bad = |message: &str| ("invalid_client_metadata", message.to_owned());
    let Some(Value::Array(uris)) = metadata.get("redirect_uris") else {
        return Err(("invalid_redirect_uri", "`redirect_uris` is required: an array of URIs".into()));
    };
    if uris.is_empty() || uris.len() > MAX_REDIRECT_URIS {
        return Err(("invalid_redirect_uri", format!("between 1 and {MAX_REDIRECT_URIS} redirect URIs")));
    }
    let mut redirect_uris = Vec::with_capacity(uris.len());
    for uri in uris {
        let Some(uri) = uri.as_str() else {
            return Err(("invalid_redirect_uri", "a redirect URI is not a string".into()));
        };
        if let Some(why) = unfit_for_registration(uri) {
            return Err(("invalid_redirect_uri", why));
        }
        redirect_uris.push(uri.to_owned());
    }
    let auth_method = match metadata.get("token_endpoint_auth_method") {
        None => "client_secret_basic",
        Some(Value::String(method))
            if ["none", "client_secret_basic", "client_secret_post"].contains(&method.as_str()) =>
        {
            method
        }
        Some(_) => {
            return Err(bad("`token_endpoint_auth_method` must be none, client_secret_basic or client_secret_post"));
        }
    };
    let grant_types = match metadata.get("grant_types") {
        None => vec!["authorization_code".to_owned()],
        Some(Value::Array(grants)) => {
            let grants: Option<Vec<String>> = grants.iter().map(|g| g.as_str().map(str::to_owned)).collect();
            match grants {
                Some(grants)
                    if grants.iter().any(|g| g == "authorization_code")
                        && grants.iter().all(|g| g == "authorization_code" || g == "refresh_token") =>
                {
                    grants
                }
                _ => {
                    return Err(bad(
                        "`grant_types` may hold authorization_code and refresh_token, and must hold the first",
                    ));
                }
            }
        }
        Some(_) => return Err(bad("`grant_types` is not an array")),
    };
    match metadata.get("response_types") {
        None => {}
        Some(Value::Array(types)) if types.len() == 1 && types[0] == "code" => {}
        Some(_) => return Err(bad("`response_types` may only be [\"code\"]")),
    }
    let name = match metadata.get("client_name") {
        None => None,
        Some(Value::String(name)) if name.chars().count() <= MAX_NAME_CHARS && !name.chars().any(char::is_control) => {
            Some(name.clone())
        }
        Some(_) => return Err(bad("`client_name` must be text of at most 200 characters")),
    };
    Ok(Checked { redirect_uris, auth_method: auth_method.to_owned(), grant_types, name })
}

fn invalid(code: &str, message: &str) -> Answer {
    answers::oauth_error(StatusCode::BAD_REQUEST, code, message)
}
