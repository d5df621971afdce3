//! A person going through the OAuth front (`oauth_proxy`) without a
//! browser: its consent page, then the provider's login and consent
//! (`oidc::approve`), then the front's callback, with the front's cookie
//! kept as a browser would.

use std::net::SocketAddr;

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use serde_json::{Value, json};

use crate::oidc;

/// What a browser holds for the front: its one cookie.
#[derive(Debug, Default, Clone)]
pub struct Browser {
    /// `name=value` of the front's cookie, once set.
    pub cookie: Option<String>,
}

impl Browser {
    fn headers(&self) -> Vec<(&'static str, String)> {
        self.cookie.iter().map(|c| ("cookie", c.clone())).collect()
    }

    fn keep(&mut self, headers: &HeaderMap) {
        for value in headers.get_all(http::header::SET_COOKIE) {
            let pair = value.to_str().expect("ASCII").split(';').next().unwrap_or_default();
            self.cookie = Some(pair.to_owned());
        }
    }

    /// A GET of `url` at the front on `addr`, cookie sent and kept.
    pub async fn get(&mut self, addr: SocketAddr, url: &str) -> (StatusCode, HeaderMap, String) {
        let path = path_of(url);
        let (status, headers, body) = oidc::request(addr, Method::GET, &path, &self.headers(), None).await;
        self.keep(&headers);
        (status, headers, String::from_utf8_lossy(&body).into_owned())
    }

    /// A form posted to `url` at the front on `addr`.
    pub async fn post(&mut self, addr: SocketAddr, url: &str, form: &str) -> (StatusCode, HeaderMap, String) {
        let mut headers = self.headers();
        headers.push(("content-type", "application/x-www-form-urlencoded".to_owned()));
        let path = path_of(url);
        let (status, answer, body) =
            oidc::request(addr, Method::POST, &path, &headers, Some(Bytes::from(form.to_owned()))).await;
        self.keep(&answer);
        (status, answer, String::from_utf8_lossy(&body).into_owned())
    }
}

/// The path and query of an absolute URL.
pub fn path_of(url: &str) -> String {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    url[after_scheme..].find('/').map_or_else(|| "/".to_owned(), |i| url[after_scheme + i..].to_owned())
}

/// The hidden `authorization` of the consent page.
pub fn authorization_of(page: &str) -> String {
    let marker = r#"name="authorization" value=""#;
    let start = page.find(marker).unwrap_or_else(|| panic!("not the consent page: {page}")) + marker.len();
    page[start..].split('"').next().expect("a value").to_owned()
}

/// The `Location` of a redirect.
pub fn location(headers: &HeaderMap) -> String {
    headers[http::header::LOCATION].to_str().expect("ASCII").to_owned()
}

/// The consent page of `authorize_url` answered `decision` by `browser`:
/// the front's redirect.
pub async fn consent(browser: &mut Browser, front: SocketAddr, authorize_url: &str, decision: &str) -> String {
    let (status, _, page) = browser.get(front, authorize_url).await;
    assert_eq!(status, StatusCode::OK, "the consent page: {page}");
    let id = authorization_of(&page);
    let consent_url = authorize_url.split("/authorize").next().expect("the issuer").to_owned() + "/consent";
    let (status, headers, page) =
        browser.post(front, &consent_url, &format!("authorization={id}&decision={decision}")).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "the answer to the consent page: {page}");
    location(&headers)
}

/// A person (`login` at the provider on `provider`) allowing
/// `authorize_url` at the front on `front`: the URL they end at, the
/// client's redirect URI with `code`, `state` and `iss`.
pub async fn approve(front: SocketAddr, provider: SocketAddr, authorize_url: &str, login: &str) -> String {
    let mut browser = Browser::default();
    let at_provider = consent(&mut browser, front, authorize_url, "allow").await;
    let callback = oidc::approve(provider, &at_provider, login).await;
    let (status, headers, page) = browser.get(front, &callback).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "the front's callback: {page}");
    location(&headers)
}

/// Registers a client at the front's `issuer` on `front` by dynamic
/// registration: its registration answer.
pub async fn register(front: SocketAddr, issuer: &str, metadata: Value) -> (StatusCode, Value) {
    let body = Bytes::from(metadata.to_string());
    let headers = [("content-type", "application/json".to_owned())];
    let (status, _, body) =
        oidc::request(front, Method::POST, &path_of(&format!("{issuer}/register")), &headers, Some(body)).await;
    (status, serde_json::from_slice(&body).unwrap_or(json!(null)))
}

/// A form posted to the front's token endpoint; the status and the JSON.
pub async fn token(front: SocketAddr, issuer: &str, form: &str) -> (StatusCode, HeaderMap, Value) {
    let headers = [("content-type", "application/x-www-form-urlencoded".to_owned())];
    let (status, answer, body) = oidc::request(
        front,
        Method::POST,
        &path_of(&format!("{issuer}/token")),
        &headers,
        Some(Bytes::from(form.to_owned())),
    )
    .await;
    (status, answer, serde_json::from_slice(&body).unwrap_or(json!(null)))
}

/// The query parameter `name` of `url`.
pub fn param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    url_pairs(query).into_iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

fn url_pairs(query: &str) -> Vec<(String, String)> {
    query.split('&').filter_map(|pair| pair.split_once('=')).map(|(n, v)| (decode(n), decode(v))).collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
