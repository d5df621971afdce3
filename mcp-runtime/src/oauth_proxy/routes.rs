//! Which of the front's endpoints a request is for, and the method each
//! takes; the transport reads the body of those that have one.

use std::net::IpAddr;

use http::{Method, StatusCode};
use serde_json::json;

use super::answers::{self, Answer};
use super::front::{Endpoint, Front};

impl Endpoint {
    /// Whether clients call it (from a browser page too, hence CORS),
    /// rather than a person's browser navigating to it.
    fn for_clients(self) -> bool {
        matches!(self, Endpoint::Metadata | Endpoint::Register | Endpoint::Token | Endpoint::Revoke | Endpoint::Jwks)
    }

    /// Whether it writes to the store for whoever asks, before any client
    /// or person is known.
    fn writes_unknown(self) -> bool {
        matches!(self, Endpoint::Register | Endpoint::Authorize | Endpoint::Consent)
    }

    /// Whether it takes a POST with a body, rather than a GET.
    fn posted(self) -> bool {
        matches!(self, Endpoint::Register | Endpoint::Consent | Endpoint::Token | Endpoint::Revoke)
    }
}

impl Front {
    /// Whether the request's body is read: a POST to an endpoint that
    /// takes one, at most [`MAX_BODY`](super::front::MAX_BODY) bytes.
    pub(crate) fn reads_body(&self, parts: &http::request::Parts) -> bool {
        parts.method == Method::POST && self.endpoint(parts.uri.path()).is_some_and(Endpoint::posted)
    }

    /// The answer to a request for one of the front's paths, its body read
    /// when [`reads_body`](Self::reads_body) said so (else empty).
    ///
    /// `address`: the client's, which paces the endpoints that write
    /// before anyone is known; `None` in process.
    pub(crate) async fn answer(&self, parts: &http::request::Parts, body: &[u8], address: Option<IpAddr>) -> Answer {
        let Some(endpoint) = self.endpoint(parts.uri.path()) else {
            return answers::error_page(StatusCode::NOT_FOUND, "no such page");
        };
        if parts.method == Method::OPTIONS && endpoint.for_clients() {
            return answers::preflight();
        }
        let wanted = if endpoint.posted() { Method::POST } else { Method::GET };
        if parts.method != wanted {
            let mut answer = answers::oauth_error(StatusCode::METHOD_NOT_ALLOWED, "invalid_request", "wrong method");
            let allow = if endpoint.posted() { "POST" } else { "GET" };
            answer.headers_mut().insert(http::header::ALLOW, http::HeaderValue::from_static(allow));
            return answer;
        }
        if endpoint.writes_unknown() && !self.pace.allow(address) {
            return answers::too_many(endpoint.for_clients());
        }
        let query = parts.uri.query().unwrap_or_default().as_bytes();
        let headers = &parts.headers;
        match endpoint {
            Endpoint::Metadata => answers::document(self.metadata.clone()),
            Endpoint::Jwks => match self.keys.key().await {
                Ok(key) => answers::json(StatusCode::OK, &json!({"keys": [key.jwk]})),
                Err(error) => answers::unavailable(&error),
            },
            Endpoint::Register => super::registration::register(self, headers, body).await,
            Endpoint::Authorize => super::authorize::authorize(self, headers, query).await,
            Endpoint::Consent => super::authorize::consent(self, headers, body).await,
            Endpoint::Callback => super::authorize::callback(self, headers, query).await,
            Endpoint::Token => super::token::token(self, headers, body, address).await,
            Endpoint::Revoke => super::token::revoke(self, headers, body, address).await,
        }
    }
}
