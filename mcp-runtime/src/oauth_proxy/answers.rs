//! The front's answers: JSON for clients (with the headers OAuth asks
//! for), HTML pages and redirects for the person's browser, and the
//! reading of forms, queries and the browser cookie.

use std::collections::BTreeMap;

use http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL,
    CONTENT_TYPE, COOKIE, LOCATION, PRAGMA, SET_COOKIE, WWW_AUTHENTICATE,
};
use http::{HeaderMap, HeaderValue, StatusCode};
use serde_json::{Value, json};

/// The cookie that binds an authorization to the browser that asked.
pub(crate) const COOKIE_NAME: &str = "mcp-oauth-proxy";

/// An answer of the front: the transport sends its bytes as they are.
pub(crate) type Answer = http::Response<bytes::Bytes>;

fn response(status: StatusCode, content_type: &'static str, body: impl Into<bytes::Bytes>) -> Answer {
    let mut answer = http::Response::new(body.into());
    *answer.status_mut() = status;
    let headers = answer.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(PRAGMA, HeaderValue::from_static("no-cache"));
    answer
}

/// A JSON document for a client, readable from any origin (browser-based
/// clients call the token endpoint too); never cached.
pub(crate) fn json(status: StatusCode, document: &Value) -> Answer {
    let mut answer = response(status, "application/json", document.to_string());
    answer.headers_mut().insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    answer
}

/// A JSON document made once, such as the metadata: cacheable for a few
/// minutes, from any origin.
pub(crate) fn document(body: bytes::Bytes) -> Answer {
    let mut answer = response(StatusCode::OK, "application/json", body);
    let headers = answer.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
    headers.remove(PRAGMA);
    answer
}

/// The answer to a CORS preflight of a client endpoint.
pub(crate) fn preflight() -> Answer {
    let mut answer = response(StatusCode::NO_CONTENT, "text/plain", bytes::Bytes::new());
    let headers = answer.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST"));
    headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("authorization, content-type"));
    answer
}

/// An OAuth error (RFC 6749 §5.2) for a client.
pub(crate) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Answer {
    let mut answer = json(status, &json!({"error": error, "error_description": description}));
    if status == StatusCode::UNAUTHORIZED {
        answer.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Basic realm=\"oauth\""));
    }
    answer
}

/// The front's store is out of reach: try again later.
pub(crate) fn unavailable(error: &impl std::fmt::Display) -> Answer {
    tracing::warn!(%error, "the OAuth proxy could not answer");
    oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "try again later")
}

/// Too many writes from one address: a client hears it in JSON, a person
/// on a page; either may come back in a minute.
pub(crate) fn too_many(client: bool) -> Answer {
    let message = "too many requests from this address: try again in a minute";
    let mut answer = if client {
        oauth_error(StatusCode::TOO_MANY_REQUESTS, "temporarily_unavailable", message)
    } else {
        error_page(StatusCode::TOO_MANY_REQUESTS, message)
    };
    answer.headers_mut().insert(http::header::RETRY_AFTER, HeaderValue::from_static("60"));
    answer
}

/// A page for the person.
pub(crate) fn page(status: StatusCode, title: &str, body_html: &str) -> Answer {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" \
         content=\"width=device-width\"><title>{title}</title><style>body{{font-family:system-ui,sans-serif;\
         max-width:36em;margin:3em auto;padding:0 1em;line-height:1.5}}code{{background:#eee;padding:0 .2em}}\
         .warn{{color:#a40}}button{{font-size:1em;padding:.4em 1.2em;margin-right:1em}}</style></head><body>\
         <h1>{title}</h1>{body_html}</body></html>",
        title = escape(title)
    );
    let mut answer = response(status, "text/html; charset=utf-8", html);
    let headers = answer.headers_mut();
    // Not framed (clickjacking of the consent button), no script, nothing
    // fetched, no referrer leaking the request's parameters.
    headers.insert(
        "content-security-policy",
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    );
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    answer
}

/// An error page: for what must not be sent to an unchecked redirect URI.
pub(crate) fn error_page(status: StatusCode, message: &str) -> Answer {
    page(status, "Sign-in failed", &format!("<p>{}</p>", escape(message)))
}

/// Sends the browser to `location`.
pub(crate) fn redirect(location: &str) -> Answer {
    let mut answer = response(StatusCode::SEE_OTHER, "text/plain", bytes::Bytes::new());
    match HeaderValue::from_str(location) {
        Ok(value) => {
            answer.headers_mut().insert(LOCATION, value);
            answer
        }
        Err(_) => error_page(StatusCode::BAD_REQUEST, "the redirect URI cannot be sent in a header"),
    }
}

/// `uri` with `params` added to its query.
pub(crate) fn with_query(uri: &str, params: &[(&str, &str)]) -> String {
    let query = crate::auth::client::form_body(params);
    let separator = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{separator}{query}")
}

/// Sets the browser cookie on `answer`.
pub(crate) fn set_cookie(answer: &mut Answer, value: &str, path: &str, secure: bool) {
    let secure = if secure { "; Secure" } else { "" };
    let path = if path.is_empty() { "/" } else { path };
    let cookie = format!("{COOKIE_NAME}={value}; Path={path}; Max-Age=600; HttpOnly; SameSite=Lax{secure}");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        answer.headers_mut().append(SET_COOKIE, value);
    }
}

/// The browser cookie's value, when it has a well-formed one.
pub(crate) fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE_NAME)
        .map(|(_, value)| value)
        .filter(|value| value.len() == 43 && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
}

/// The parameters of a query or form body; a parameter given twice is an
/// error (RFC 6749 §3.1), named.
pub(crate) fn params(encoded: &[u8]) -> Result<BTreeMap<String, String>, String> {
    let mut params = BTreeMap::new();
    for (name, value) in url::form_urlencoded::parse(encoded) {
        if params.insert(name.to_string(), value.into_owned()).is_some() {
            return Err(format!("`{name}` is given more than once"));
        }
    }
    Ok(params)
}

/// `text` safe inside HTML.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_escaped_and_parameters_are_single() {
        assert_eq!(
            escape("<script>\"a\"&'b'</script>\u{7}"),
            "&lt;script&gt;&quot;a&quot;&amp;&#39;b&#39;&lt;/script&gt;"
        );
        assert!(params(b"a=1&b=2&a=3").is_err());
        assert_eq!(params(b"a=x%20y&b=").unwrap()["a"], "x y");
    }

    #[test]
    fn only_a_well_formed_cookie_is_read() {
        let mut headers = HeaderMap::new();
        let good = "a".repeat(43);
        headers.insert(COOKIE, HeaderValue::from_str(&format!("x=1; {COOKIE_NAME}={good}")).unwrap());
        assert_eq!(cookie(&headers), Some(good.as_str()));
        headers.insert(COOKIE, HeaderValue::from_str(&format!("{COOKIE_NAME}=short")).unwrap());
        assert_eq!(cookie(&headers), None);
    }
}
