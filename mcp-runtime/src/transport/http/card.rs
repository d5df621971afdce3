//! The server card and the AI Catalog over HTTP ([`crate::card`]): both
//! made once per service, answered to anyone with the draft's CORS
//! headers, a strong `ETag` and `304` on a match.

use bytes::Bytes;
use http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ALLOW, CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH,
};
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use sha2::{Digest as _, Sha256};

use super::HttpConfig;
use super::body::McpBody;
use crate::card::{CARD_MEDIA_TYPE, CARD_PATH_SUFFIX, CATALOG_MEDIA_TYPE, CATALOG_PATH};
use crate::server::Server;

/// A published document: its bytes, media type and entity tag.
struct Published {
    body: Bytes,
    media_type: &'static str,
    etag: HeaderValue,
}

/// The card and the catalog of one service, and the card's path.
pub(super) struct Cards {
    card_path: String,
    card: Published,
    catalog: Published,
}

impl Cards {
    /// The documents of `server` served with `config`, when it has a card.
    pub(super) fn new(server: &Server, config: &HttpConfig) -> Option<Cards> {
        let card = server.settings().card.as_ref()?;
        let public = config.public_url.as_ref().map(|url| url.to_string().trim_end_matches('/').to_owned());
        // The card sits below the endpoint as clients reach it.
        let endpoint = match &config.public_url {
            Some(url) => url.path().trim_end_matches('/').to_owned(),
            None => config.endpoint.trim_end_matches('/').to_owned(),
        };
        let document = card.with_remote(public.as_deref(), server.eras().versions());
        let card_url = public.map(|url| format!("{url}{CARD_PATH_SUFFIX}"));
        let catalog = card.catalog(card_url.as_deref(), &document);
        Some(Cards {
            card_path: format!("{endpoint}{CARD_PATH_SUFFIX}"),
            card: Published::new(&document, CARD_MEDIA_TYPE),
            catalog: Published::new(&catalog, CATALOG_MEDIA_TYPE),
        })
    }

    /// Whether `path` is one of the two documents'.
    pub(super) fn serves(&self, path: &str) -> bool {
        path == self.card_path || path == CATALOG_PATH
    }

    /// The answer to a request for the document at `path`.
    pub(super) fn answer(&self, path: &str, method: &Method, headers: &HeaderMap) -> http::Response<McpBody> {
        let document = if path == CATALOG_PATH { &self.catalog } else { &self.card };
        let (status, body) = match *method {
            Method::GET | Method::HEAD if matches(headers, &document.etag) => (StatusCode::NOT_MODIFIED, None),
            Method::GET => (StatusCode::OK, Some(document.body.clone())),
            Method::HEAD => (StatusCode::OK, None),
            // A browser's preflight, before a GET that sends
            // `If-None-Match`.
            Method::OPTIONS => (StatusCode::NO_CONTENT, None),
            _ => (StatusCode::METHOD_NOT_ALLOWED, None),
        };
        let mut response = http::Response::new(body.map_or_else(McpBody::empty, McpBody::full));
        *response.status_mut() = status;
        let h = response.headers_mut();
        h.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
        h.insert(ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET"));
        h.insert(ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Content-Type, If-None-Match"));
        h.insert(ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("ETag"));
        if status == StatusCode::METHOD_NOT_ALLOWED {
            h.insert(ALLOW, HeaderValue::from_static("GET, HEAD, OPTIONS"));
            return response;
        }
        if *method != Method::OPTIONS {
            h.insert(CONTENT_TYPE, HeaderValue::from_static(document.media_type));
            h.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
            h.insert(ETAG, document.etag.clone());
        }
        response
    }
}

impl Published {
    fn new(document: &serde_json::Value, media_type: &'static str) -> Self {
        let body = Bytes::from(document.to_string());
        let digest = Sha256::digest(&body);
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        // The digest of the bytes: every replica serving the same document
        // gives the same tag.
        let etag = HeaderValue::from_str(&format!("\"{hex}\"")).unwrap_or(HeaderValue::from_static("\"0\""));
        Published { body, media_type, etag }
    }
}

/// Whether `If-None-Match` names `etag` (or is `*`): weak comparison, as
/// RFC 9110 asks of it.
fn matches(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let ours = etag.as_bytes();
    headers.get_all(IF_NONE_MATCH).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(|tag| {
        let tag = tag.trim();
        tag == "*" || tag.strip_prefix("W/").unwrap_or(tag).as_bytes() == ours
    })
}
