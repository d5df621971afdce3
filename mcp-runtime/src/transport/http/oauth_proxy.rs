//! The built-in authorization server's requests over HTTP
//! ([`crate::oauth_proxy`]): the body read, within its bound, for the
//! endpoints that take one; the answer sent as the front made it.

use std::net::IpAddr;

use http::StatusCode;
use http_body::Body;

use super::body::{BoxError, McpBody, read_body};
use super::responses::transport_error;
use crate::oauth_proxy::{BODY_TIMEOUT, Front, MAX_BODY};

/// The answer to a request for one of `front`'s paths.
/// `address`: the client's, behind the trusted proxies if any.
pub(super) async fn answer<B>(
    front: &Front,
    parts: http::request::Parts,
    body: B,
    address: Option<IpAddr>,
) -> http::Response<McpBody>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    let body = if front.reads_body(&parts) {
        match read_body(body, MAX_BODY, Some(BODY_TIMEOUT)).await {
            Ok(body) => body,
            Err(_) => {
                let message = format!("the body is larger than {MAX_BODY} bytes, or too slow");
                return transport_error(StatusCode::PAYLOAD_TOO_LARGE, message);
            }
        }
    } else {
        Vec::new()
    };
    front.answer(&parts, &body, address).await.map(McpBody::full)
}
