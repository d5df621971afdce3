//! The GET of a document: a connection to an address already checked, one
//! request, an answer bounded in size and never redirected, kept as long as
//! it says.

use std::net::SocketAddr;
use std::pin::pin;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HOST, USER_AGENT};
use http::{HeaderMap, Request};
use http_body_util::{BodyExt as _, Empty, LengthLimitError, Limited};
use url::{Position, Url};

use super::document::shorten;
use super::error::DocumentError;
use crate::auth::client::chain;

/// The bounds of how long a fetched document is kept: not fetched again on
/// every authorization, yet a change (a redirect URI withdrawn) is seen
/// within a day.
const MIN_CACHE: Duration = Duration::from_secs(60);
/// The longest a fetched document is kept (see [`MIN_CACHE`]).
const MAX_CACHE: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a document without a `max-age` is kept.
const DEFAULT_CACHE: Duration = Duration::from_secs(60 * 60);

/// The most the answer's status line and headers may take: hyper's own
/// limit is some hundreds of kilobytes, far more than a document server
/// needs to say.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// A connection to the first of `addresses` that takes one.
pub(super) async fn connect(addresses: &[SocketAddr]) -> Result<tokio::net::TcpStream, DocumentError> {
    let mut failure = None;
    for address in addresses {
        match tokio::net::TcpStream::connect(address).await {
            Ok(tcp) => return Ok(tcp),
            Err(e) => failure = Some(format!("no connection to {address}: {e}")),
        }
    }
    Err(DocumentError::Unreachable(failure.unwrap_or_else(|| "no address to connect to".into())))
}

/// One GET of `url` over `io` in HTTP/1.1: the body of a 200 answer in
/// JSON, and how long it may be kept.
pub(super) async fn exchange<T>(io: T, url: &Url, max_bytes: usize) -> Result<(Bytes, Duration), DocumentError>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin,
{
    let broken = |e: hyper::Error| DocumentError::Unreachable(chain(&e));
    let (mut sender, connection) =
        hyper::client::conn::http1::Builder::new().max_buf_size(MAX_HEAD_BYTES).handshake(io).await.map_err(broken)?;
    // No cookie, no credentials: the request says nothing of this server.
    let request = Request::get(url.path())
        .header(HOST, &url[Position::BeforeHost..Position::AfterPort])
        .header(ACCEPT, "application/json")
        .header(USER_AGENT, concat!("mcp-runtime/", env!("CARGO_PKG_VERSION")))
        .body(Empty::<Bytes>::new())
        .map_err(|_| DocumentError::InvalidUrl("it is not a URL"))?;
    let answer = async move {
        let response = sender.send_request(request).await.map_err(broken)?;
        let (head, body) = response.into_parts();
        let lifetime = check_head(&head, max_bytes)?;
        let body = Limited::new(body, max_bytes).collect().await.map_err(|e| {
            if e.downcast_ref::<LengthLimitError>().is_some() {
                DocumentError::TooLarge(max_bytes)
            } else {
                DocumentError::Unreachable(chain(&*e))
            }
        })?;
        Ok((body.to_bytes(), lifetime))
    };
    // The connection is driven here, not by a task of its own, so that a
    // timeout, dropping this future, closes it.
    let mut answer = pin!(answer);
    let mut connection = pin!(connection);
    tokio::select! {
        biased;
        answer = &mut answer => answer,
        ended = &mut connection => match ended {
            // The body may still be on its way to the reader.
            Ok(()) => answer.as_mut().await,
            Err(e) => Err(broken(e)),
        },
    }
}

/// Checks the answer's status and headers before its body is read: how
/// long the document may be kept.
fn check_head(head: &http::response::Parts, max_bytes: usize) -> Result<Duration, DocumentError> {
    let status = head.status.as_u16();
    if head.status.is_redirection() {
        return Err(DocumentError::Redirect(status));
    }
    if status != 200 {
        return Err(DocumentError::Status(status));
    }
    let content_type = head.headers.get(CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let essence = content_type.as_deref().and_then(|v| v.split(';').next()).unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return Err(DocumentError::ContentType(match content_type {
            Some(content_type) => format!("{:?}", shorten(&content_type)),
            None => "missing".into(),
        }));
    }
    let length = head.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if length.is_some_and(|length| length > max_bytes as u64) {
        return Err(DocumentError::TooLarge(max_bytes));
    }
    Ok(cache_lifetime(&head.headers))
}

/// How long an answer with these headers may be kept: its `max-age`
/// within [`MIN_CACHE`] and [`MAX_CACHE`] (the shortest if several),
/// [`MIN_CACHE`] for `no-store` or `no-cache`, [`DEFAULT_CACHE`] without
/// either.
fn cache_lifetime(headers: &HeaderMap) -> Duration {
    let mut max_age: Option<u64> = None;
    let directives = headers.get_all(CACHE_CONTROL).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','));
    for directive in directives {
        let (name, value) = match directive.split_once('=') {
            Some((name, value)) => (name.trim(), Some(value.trim().trim_matches('"'))),
            None => (directive.trim(), None),
        };
        if name.eq_ignore_ascii_case("no-store") || name.eq_ignore_ascii_case("no-cache") {
            return MIN_CACHE;
        }
        if name.eq_ignore_ascii_case("max-age") {
            // RFC 9111 §1.2.2: too large a number is as large as can be; a
            // value that is not a number, stale.
            let seconds = match value {
                Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => v.parse().unwrap_or(u64::MAX),
                _ => 0,
            };
            max_age = Some(max_age.map_or(seconds, |shortest| shortest.min(seconds)));
        }
    }
    max_age.map_or(DEFAULT_CACHE, |seconds| Duration::from_secs(seconds).clamp(MIN_CACHE, MAX_CACHE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_age_is_read_and_bounded() {
        fn lifetime(values: &[&str]) -> Duration {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(CACHE_CONTROL, value.parse().expect("a header value"));
            }
            cache_lifetime(&headers)
        }
        let minute = Duration::from_secs(60);
        let hour = Duration::from_secs(3600);
        let day = Duration::from_secs(86_400);
        assert_eq!(lifetime(&[]), hour);
        assert_eq!(lifetime(&["public"]), hour);
        assert_eq!(lifetime(&["max-age=600"]), Duration::from_secs(600));
        assert_eq!(lifetime(&["public, MAX-AGE = 7200 , must-revalidate"]), Duration::from_secs(7200));
        assert_eq!(lifetime(&["max-age=\"900\""]), Duration::from_secs(900));
        assert_eq!(lifetime(&["max-age=5"]), minute);
        assert_eq!(lifetime(&["max-age=0"]), minute);
        assert_eq!(lifetime(&["max-age=31536000"]), day);
        assert_eq!(lifetime(&["max-age=99999999999999999999999"]), day);
        assert_eq!(lifetime(&["max-age=-1"]), minute);
        assert_eq!(lifetime(&["max-age=soon"]), minute);
        assert_eq!(lifetime(&["max-age=600", "max-age=300"]), Duration::from_secs(300));
        assert_eq!(lifetime(&["no-store"]), minute);
        assert_eq!(lifetime(&["max-age=3600, no-cache"]), minute);
        assert_eq!(lifetime(&["s-maxage=600"]), hour);
    }
}
