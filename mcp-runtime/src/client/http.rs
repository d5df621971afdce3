//! Streamable HTTP: one POST per message, a request answered with JSON or
//! with an event stream that is read as it comes (the server's own
//! requests on it are answered at once), its answer last.

use bytes::Bytes;
use std::sync::Arc;

use http::HeaderMap;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use serde_json::Value;

use super::callbacks::SharedCallbacks;
use super::connections::Connections;
use super::error::Error;
use super::head::Head;
use super::limits::{SharedLimits, within};
use super::message::{Reply, start_of};
use super::notices::Asks;
use super::server_requests;
use crate::protocol::RequestId;

/// `Mcp-Session-Id`.
const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `Mcp-Method`.
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// `MCP-Protocol-Version`.
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// `DPoP-Nonce`: what the server asks the next DPoP proof to carry.
#[cfg(feature = "client-auth")]
const DPOP_NONCE: HeaderName = HeaderName::from_static("dpop-nonce");
/// `Last-Event-ID`.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// How many times one request's event stream is resumed at most.
const RESUMPTIONS: usize = 5;
/// How long to wait before resuming a stream whose server did not say.
const DEFAULT_RETRY: std::time::Duration = std::time::Duration::from_secs(1);
/// The longest wait a server's `retry` is taken for.
const MOST_RETRY: std::time::Duration = std::time::Duration::from_secs(30);

/// A response, and the session id its HTTP response gave.
pub(super) struct Answer {
    pub(super) reply: Reply,
    pub(super) session: Option<String>,
}

#[derive(Clone)]
pub(super) struct HttpTransport {
    url: String,
    /// `url` read once, or why it does not read (said by each request).
    endpoint: Result<Arc<Endpoint>, String>,
    connections: Connections,
    limits: SharedLimits,
    /// What gets a token when the server refuses a request for want of one.
    #[cfg(feature = "client-auth")]
    oauth: Option<Arc<super::oauth::Authorizer>>,
}

/// The server's endpoint, read once: where requests go, and the headers
/// that are the same in every request (made once, rather than per request).
struct Endpoint {
    uri: http::Uri,
    /// The path and query, which requests name.
    path: http::Uri,
    /// `Host`.
    headers: HeaderMap,
    /// `Host`, and a POST's `Content-Type` and `Accept`.
    post_headers: HeaderMap,
}

impl Endpoint {
    fn of(url: &str) -> Result<Self, String> {
        let uri = url.parse::<http::Uri>().map_err(|e| e.to_string())?;
        let path = uri.path_and_query().map_or("/", |p| p.as_str()).parse::<http::Uri>().map_err(|e| e.to_string())?;
        // Room for every header a message has.
        let mut headers = HeaderMap::with_capacity(12);
        if let Some(host) = host_of(&uri) {
            headers.insert(http::header::HOST, host);
        }
        let mut post_headers = headers.clone();
        post_headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        post_headers.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        Ok(Endpoint { uri, path, headers, post_headers })
    }
}

impl HttpTransport {
    pub(super) fn new(url: String, limits: SharedLimits) -> Self {
        let endpoint = Endpoint::of(&url).map(Arc::new);
        HttpTransport {
            url,
            endpoint,
            connections: Connections::new(),
            limits,
            #[cfg(feature = "client-auth")]
            oauth: None,
        }
    }

    /// Authorizes as `oauth` says when the server asks for a token.
    #[cfg(feature = "client-auth")]
    pub(super) fn authorize_with(&mut self, oauth: super::oauth::OAuth) {
        self.oauth = Some(Arc::new(super::oauth::Authorizer::new(oauth, &self.url, self.connections.roots())));
    }

    pub(super) fn url(&self) -> &str {
        &self.url
    }

    /// Trusts `roots` besides the platform's, for `https://`.
    pub(super) fn add_roots(&self, roots: Vec<rustls::pki_types::CertificateDer<'static>>) {
        self.connections.add_roots(roots);
    }

    /// A request to the endpoint with `method` and `body`, and the headers
    /// every message of `head` carries.
    fn to_endpoint(
        &self,
        method: http::Method,
        body: Bytes,
        head: &Head<'_>,
    ) -> Result<http::Request<Full<Bytes>>, Error> {
        let endpoint = self
            .endpoint
            .as_ref()
            .map_err(|e| Error::Transport(format!("`{}` is not a URL to send to: {e}", self.url)))?;
        // Built in place: a builder moves the whole request on each header.
        let mut request = http::Request::new(Full::new(body));
        *request.headers_mut() = match method {
            http::Method::POST => endpoint.post_headers.clone(),
            _ => endpoint.headers.clone(),
        };
        *request.method_mut() = method;
        *request.uri_mut() = endpoint.path.clone();
        let headers = request.headers_mut();
        headers.insert(PROTOCOL_VERSION, version_value(head.version)?);
        if let Some(session) = head.session {
            headers.insert(SESSION_ID, header_value(session)?);
        }
        if let Some(token) = head.bearer {
            headers.insert(AUTHORIZATION, header_value(&format!("Bearer {token}"))?);
        }
        #[cfg(feature = "client-auth")]
        if let Some(oauth) = &self.oauth {
            let method = request.method().as_str();
            let carried = oauth.authorization(method, &self.url).map_err(Error::Invalid)?;
            for (name, value) in carried {
                request.headers_mut().insert(name, header_value(&value)?);
            }
        }
        Ok(request)
    }

    /// Sends `request` (made by [`to_endpoint`](Self::to_endpoint)), on a
    /// connection kept from an earlier one if one is free.
    async fn exchange(&self, request: http::Request<Full<Bytes>>) -> Result<http::Response<Incoming>, Error> {
        let unreachable = |why: &str| Error::Transport(format!("{}: {why}", self.url));
        let endpoint = self.endpoint.as_ref().map_err(|e| unreachable(e))?;
        self.connections.send(&endpoint.uri, request).await.map_err(|e| unreachable(&e))
    }

    /// A POST of `body`, a message of `head`.
    fn post(&self, body: Bytes, head: &Head<'_>) -> Result<http::Request<Full<Bytes>>, Error> {
        let mut request = self.to_endpoint(http::Method::POST, body, head)?;
        let headers = request.headers_mut();
        if let Some((method, target)) = head.method {
            headers.insert(MCP_METHOD, method_value(method)?);
            // A name a header cannot carry as it is goes in Base64.
            if let Some(target) = target.and_then(|t| HeaderValue::from_str(&super::param_headers::encoded(t)).ok()) {
                headers.insert(MCP_NAME, target);
            }
        }
        for (name, value) in head.params {
            headers.insert(name.clone(), value.clone());
        }
        Ok(request)
    }

    /// Sends request `id`, written as `text`, and reads its answer.
    /// Sends request `id`, written as `text`, and reads its answer, within
    /// `limit`. With OAuth, each try is within `limit`, and the getting of a
    /// token between them is not: a person may be authorizing.
    pub(super) async fn send(
        &self,
        text: Vec<u8>,
        head: &Head<'_>,
        id: &RequestId,
        limit: std::time::Duration,
    ) -> Result<Answer, Error> {
        let body = Bytes::from(text);
        #[cfg(feature = "client-auth")]
        if let Some(oauth) = &self.oauth {
            return Box::pin(self.authorized(oauth, body, head, id, limit)).await;
        }
        within(limit, async { self.answer(self.exchange(self.post(body, head)?).await?, head, id).await }).await
    }

    /// The answer to request `id` that `response` brings.
    async fn answer(
        &self,
        response: http::Response<Incoming>,
        head: &Head<'_>,
        id: &RequestId,
    ) -> Result<Answer, Error> {
        let status = response.status();
        // Only a 2025-era message (no `Mcp-Method`) may be given a session.
        let session = match head.method {
            None => response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned),
            Some(_) => None,
        };
        let streamed = is_event_stream(&response);
        if streamed && status.is_success() {
            // Boxed: what reads a stream (and answers the server's requests
            // on it) takes far more room than the plain JSON answer, and
            // every request's future would be that large.
            let message = Box::pin(self.read_stream(response.into_body(), head, id)).await?;
            return Ok(Answer { reply: Reply::Read(message), session });
        }
        let body = read_body(response.into_body(), self.limits.message_bytes()).await?;
        if status.is_success() {
            // Read by what the request is for, as far as it needs.
            return Ok(Answer { reply: Reply::Text(body), session });
        }
        match serde_json::from_slice::<Value>(&body) {
            // A JSON-RPC answer, even with a 4xx (a refused header, an
            // unknown method): the error says more than the status. Not a
            // refused token: that is no answer of the server's revision.
            Ok(message) if message.get("jsonrpc").is_some() && !matches!(status.as_u16(), 401 | 403) => {
                Ok(Answer { reply: Reply::Read(message), session })
            }
            _ => Err(Error::Http { status: status.as_u16(), body: start_of(&body) }),
        }
    }

    /// Sends `body` (request `id`) with the token of `oauth`, and when the
    /// server refuses it for want of a token or a scope, gets one and sends
    /// it again: the answer of the response that is not such a refusal, or
    /// of the last refusal once the person was sent to authorize as often
    /// as one request may. Each try is within `limit`; getting a token is
    /// not (the authorization server's requests have their own limit, the
    /// person's step is the callback's to bound).
    #[cfg(feature = "client-auth")]
    async fn authorized(
        &self,
        oauth: &super::oauth::Authorizer,
        body: Bytes,
        head: &Head<'_>,
        id: &RequestId,
        limit: std::time::Duration,
    ) -> Result<Answer, Error> {
        let (mut authorizations, mut tries) = (0, 0);
        loop {
            let used = oauth.token();
            let response = within(limit, async { self.exchange(self.post(body.clone(), head)?).await }).await?;
            let status = response.status().as_u16();
            let header = |name| response.headers().get(name).and_then(|v: &HeaderValue| v.to_str().ok());
            let challenge = header(http::header::WWW_AUTHENTICATE);
            let asked = oauth.asked(status, challenge, header(DPOP_NONCE));
            // Each try that did not send the person refreshed a token, took
            // a newer one or a nonce: twice as many as authorizations, at most.
            let (Some(asked), false) = (asked, authorizations == oauth.most() || tries > 2 * oauth.most()) else {
                return within(limit, self.answer(response, head, id)).await;
            };
            tries += 1;
            if let super::oauth::Asked::Token = asked {
                let challenge = challenge.map(str::to_owned);
                if oauth.refused(status, challenge.as_deref(), used.as_deref()).await? {
                    authorizations += 1;
                }
            }
        }
    }

    /// Sends a notification (or the answer to a server's request): 202.
    pub(super) async fn notify(&self, message: &Value, head: &Head<'_>) -> Result<(), Error> {
        let response = self.exchange(self.post(Bytes::from(written(message)?), head)?).await?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        Err(refused(response).await)
    }

    /// What posts messages later, on a task of its own, with `head`'s
    /// version, session and token.
    pub(super) fn poster(&self, head: &Head<'_>) -> Poster {
        Poster {
            http: self.clone(),
            version: head.version.to_owned(),
            session: head.session.map(str::to_owned),
            bearer: head.bearer.map(str::to_owned),
            callbacks: std::sync::Arc::clone(head.callbacks),
        }
    }

    /// Reads an event stream as it comes until the answer to `id`,
    /// answering the server's requests met on the way. In a 2025-era
    /// session, a stream whose events had ids and that ends (or breaks off)
    /// before the answer is resumed: after the `retry` the server asked
    /// for, a `GET` with `Last-Event-ID`, read on in its place; at most
    /// [`RESUMPTIONS`] times. Each resumption is told to the request's
    /// [`Notices::on_resume`](super::notices::Notices::on_resume) first.
    async fn read_stream(&self, body: hyper::body::Incoming, head: &Head<'_>, id: &RequestId) -> Result<Value, Error> {
        let id = id.to_value();
        let most = self.limits.message_bytes();
        let mut events = Events::of(body, most, most);
        let mut resumed = 0;
        loop {
            let broke = loop {
                let message = match events.next().await {
                    Ok(Some(message)) => message,
                    Ok(None) => break Error::Transport("the event stream ended without the answer".to_owned()),
                    Err(error) => break error,
                };
                if message.get("method").is_none() {
                    if message.get("id") == Some(&id) {
                        return Ok(message);
                    }
                    continue;
                }
                if message.get("id").is_none() {
                    if let Some(notices) = head.notices {
                        notices.hear(&message);
                    }
                    continue;
                }
                self.poster(head).answer_later(message, head.notices.and_then(|n| n.asks.clone())).await;
            };
            let (Some(last), None) = (events.last_id.take(), head.method) else { return Err(broke) };
            if resumed == RESUMPTIONS {
                return Err(broke);
            }
            resumed += 1;
            if let Some(on_resume) = head.notices.and_then(|notices| notices.on_resume.as_ref()) {
                on_resume();
            }
            tokio::time::sleep(events.retry.unwrap_or(DEFAULT_RETRY)).await;
            let mut request = self.to_endpoint(http::Method::GET, Bytes::new(), head)?;
            request.headers_mut().insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            request.headers_mut().insert(LAST_EVENT_ID, header_value(&last)?);
            let retry = events.retry;
            events = self.stream_of(request, None).await?;
            events.limit = most;
            events.retry = retry;
        }
    }

    /// Posts request `message` and returns its event stream, which a
    /// `subscriptions/listen` is answered with; a JSON answer (an error) is
    /// read as the answer to `id`.
    pub(super) async fn open_stream(&self, message: &Value, head: &Head<'_>, id: &RequestId) -> Result<Events, Error> {
        let request = self.post(Bytes::from(written(message)?), head)?;
        self.stream_of(request, Some(id)).await
    }

    /// `GET` on the endpoint: a 2025-era session's standalone stream.
    pub(super) async fn standalone_stream(&self, head: &Head<'_>) -> Result<Events, Error> {
        let mut request = self.to_endpoint(http::Method::GET, Bytes::new(), head)?;
        request.headers_mut().insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        self.stream_of(request, None).await
    }

    /// `DELETE` on the endpoint with the session's id: the end of a
    /// 2025-era session. A server that does not let clients end sessions
    /// answers 405, which is no failure.
    pub(super) async fn end_session(&self, head: &Head<'_>) -> Result<(), Error> {
        let request = self.to_endpoint(http::Method::DELETE, Bytes::new(), head)?;
        let response = self.exchange(request).await?;
        let status = response.status();
        if status.is_success() || status == http::StatusCode::METHOD_NOT_ALLOWED {
            return Ok(());
        }
        Err(refused(response).await)
    }

    /// The event stream `request` is answered with; another answer is an
    /// error (read as the answer to `id` when it is JSON-RPC).
    async fn stream_of(&self, request: http::Request<Full<Bytes>>, id: Option<&RequestId>) -> Result<Events, Error> {
        let response = self.exchange(request).await?;
        let status = response.status();
        let streamed = is_event_stream(&response);
        if streamed && status.is_success() {
            // A stream that lives as long as it is listened to: no bound
            // on it, only on each of its events.
            return Ok(Events::of(response.into_body(), usize::MAX, self.limits.message_bytes()));
        }
        let body = Limited::new(response.into_body(), self.limits.message_bytes())
            .collect()
            .await
            .map_err(|e| Error::Transport(format!("the answer could not be read: {e}")))?
            .to_bytes();
        match (serde_json::from_slice::<Value>(&body), id) {
            (Ok(message), Some(id)) if message.get("jsonrpc").is_some() => {
                super::error::result_of(message, id)?;
                Err(Error::Invalid("a result where an event stream was expected".to_owned()))
            }
            _ => Err(Error::Http { status: status.as_u16(), body: start_of(&body) }),
        }
    }
}

/// The messages of an event stream, one by one.
pub(super) struct Events {
    body: hyper::body::Incoming,
    buffer: Vec<u8>,
    /// How much of the buffer is known to hold no event's end: only what
    /// came after it is looked at, so that an event arriving a byte at a
    /// time is scanned once, not once per byte.
    scanned: usize,
    read: usize,
    limit: usize,
    event_limit: usize,
    /// The id of the last event that had one: where to resume from.
    last_id: Option<String>,
    /// How long the server asked a client to wait before resuming.
    retry: Option<std::time::Duration>,
}

impl Events {
    fn of(body: hyper::body::Incoming, limit: usize, event_limit: usize) -> Self {
        Events { body, buffer: Vec::new(), scanned: 0, read: 0, limit, event_limit, last_id: None, retry: None }
    }

    /// The next JSON-RPC message, or `None` at the end of the stream.
    pub(super) async fn next(&mut self) -> Result<Option<Value>, Error> {
        loop {
            while let Some(end) = event_end(&self.buffer, self.scanned) {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                self.scanned = 0;
                self.read_fields(&event);
                if let Some(message) = message_of(&event) {
                    return Ok(Some(message));
                }
            }
            // The last byte may be the first of an end.
            self.scanned = self.buffer.len().saturating_sub(1);
            let Some(frame) = self.body.frame().await else { return Ok(None) };
            let frame = frame.map_err(|e| Error::Transport(format!("the event stream broke off: {e}")))?;
            let Ok(data) = frame.into_data() else { continue };
            self.read = self.read.saturating_add(data.len());
            if self.read > self.limit {
                return Err(Error::Transport(format!("an event stream of more than {} bytes", self.limit)));
            }
            // JSON escapes its carriage returns: any left end lines.
            self.buffer.extend(data.iter().filter(|&&b| b != b'\r'));
            if self.buffer.len() > self.event_limit {
                return Err(Error::Transport(format!("an event of more than {} bytes", self.event_limit)));
            }
        }
    }
}

impl Events {
    /// Keeps what an event's `id` and `retry` fields say.
    fn read_fields(&mut self, event: &[u8]) {
        for line in event.split(|&b| b == b'\n') {
            let value = |name: &[u8]| {
                let rest = line.strip_prefix(name)?;
                let rest = rest.strip_prefix(b" ").unwrap_or(rest);
                std::str::from_utf8(rest).ok()
            };
            // An id with a NUL is ignored, as event streams say.
            if let Some(id) = value(b"id:").filter(|id| !id.contains('\0')) {
                self.last_id = (!id.is_empty()).then(|| id.to_owned());
            } else if let Some(retry) = value(b"retry:").and_then(|ms| ms.parse::<u64>().ok()) {
                self.retry = Some(std::time::Duration::from_millis(retry).min(MOST_RETRY));
            }
        }
    }
}

/// Where the first event of `buffer` ends (its blank line), looking from
/// `from` on.
fn event_end(buffer: &[u8], from: usize) -> Option<usize> {
    memchr::memmem::find(&buffer[from.min(buffer.len())..], b"\n\n").map(|at| from + at)
}

/// Posts messages into a conversation after the request that named it has
/// gone: the answer to a server's request, or a cancellation.
#[derive(Clone)]
pub(super) struct Poster {
    http: HttpTransport,
    version: String,
    session: Option<String>,
    bearer: Option<String>,
    pub(super) callbacks: SharedCallbacks,
}

impl Poster {
    /// Answers a server's request met on a stream, on its own: a person
    /// may take a while, and the stream goes on meanwhile. A question the
    /// request it came within relays (`asks`) goes there.
    ///
    /// One more than the client answers at once is refused, before the
    /// stream is read further: the server cannot make the client hold any
    /// number of its requests.
    pub(super) async fn answer_later(&self, message: Value, asks: Option<Asks>) {
        let poster = self.clone();
        let Some(place) = self.http.limits.question() else {
            if let Some(refusal) = server_requests::too_many(&message) {
                let _ = poster.post(&refusal).await;
            }
            return;
        };
        tokio::spawn(async move {
            let _place = place;
            let Some(answer) = server_requests::answer(&poster.callbacks, asks.as_ref(), &message).await else {
                return;
            };
            if let Err(e) = poster.post(&answer).await {
                tracing::debug!(error = %e, "the answer to the server's request was not sent");
            }
        });
    }

    /// Posts `message` (a notification or an answer): 202.
    pub(super) async fn post(&self, message: &Value) -> Result<(), Error> {
        let head = Head {
            version: &self.version,
            method: None,
            session: self.session.as_deref(),
            bearer: self.bearer.as_deref(),
            callbacks: &self.callbacks,
            notices: None,
            params: &[],
        };
        self.http.notify(message, &head).await
    }
}

/// The `Host` of requests to `uri`: its host, and its port unless it is
/// its scheme's default.
fn host_of(uri: &http::Uri) -> Option<HeaderValue> {
    let host = uri.host()?;
    let default = match uri.scheme_str() {
        Some("https") => 443,
        _ => 80,
    };
    let value = match uri.port_u16().filter(|port| *port != default) {
        Some(port) => HeaderValue::from_str(&format!("{host}:{port}")),
        None => HeaderValue::from_str(host),
    };
    value.ok()
}

/// `MCP-Protocol-Version: version`: a revision this crate knows without a
/// copy.
fn version_value(version: &str) -> Result<HeaderValue, Error> {
    match crate::protocol::ProtocolVersion::parse(version) {
        Some(known) => Ok(HeaderValue::from_static(known.as_str())),
        None => header_value(version),
    }
}

/// `Mcp-Method: method`: a method of the protocol without a copy.
fn method_value(method: &str) -> Result<HeaderValue, Error> {
    match crate::protocol::Method::parse(method) {
        Some(known) => Ok(HeaderValue::from_static(known.name())),
        None => header_value(method),
    }
}

/// `value` as a header's value.
fn header_value(value: &str) -> Result<HeaderValue, Error> {
    HeaderValue::from_str(value).map_err(|_| Error::Invalid(format!("`{value}` cannot be sent in an HTTP header")))
}

/// A message's JSON text.
fn written(message: &Value) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(message).map_err(|e| Error::Invalid(format!("a message not to be written: {e}")))
}

/// The whole of `body`, at most `most` bytes: one buffer, as long as the
/// body says it is (a JSON answer says so), filled as it comes.
async fn read_body(mut body: Incoming, most: usize) -> Result<Vec<u8>, Error> {
    use http_body::Body as _;
    let too_long = || Error::Transport(format!("the answer could not be read: it is longer than {most} bytes"));
    let mut read = Vec::new();
    if let Some(length) = body.size_hint().exact() {
        let length = usize::try_from(length).map_err(|_| too_long())?;
        if length > most {
            return Err(too_long());
        }
        read.reserve_exact(length);
    }
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Error::Transport(format!("the answer could not be read: {e}")))?;
        if let Ok(data) = frame.into_data() {
            if read.len() + data.len() > most {
                return Err(too_long());
            }
            read.extend_from_slice(&data);
        }
        // Its last byte read: no need to wait to be told it ended.
        if body.is_end_stream() {
            break;
        }
    }
    Ok(read)
}

/// Whether `response` is an event stream.
fn is_event_stream<B>(response: &http::Response<B>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The error a response that refused a message is: its status and the
/// start of its body.
async fn refused(response: http::Response<hyper::body::Incoming>) -> Error {
    let status = response.status();
    let body = Limited::new(response.into_body(), 64 * 1024).collect().await.map(|b| b.to_bytes());
    Error::Http { status: status.as_u16(), body: body.as_deref().map(start_of).unwrap_or_default() }
}

/// The JSON-RPC message in one event (its `data:` lines), if any.
fn message_of(event: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(event);
    let data: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
    serde_json::from_str::<Value>(&data.join("\n")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_events_end_is_found_from_where_the_last_look_stopped() {
        let mut buffer = b"data: {\"a\":1}\n".to_vec();
        assert_eq!(event_end(&buffer, 0), None);
        // The last byte of what was looked at may begin the end.
        let scanned = buffer.len() - 1;
        buffer.extend_from_slice(b"\nnext");
        assert_eq!(event_end(&buffer, scanned), Some(13));
        assert_eq!(event_end(&buffer, buffer.len() + 5), None, "past the end is nothing");
    }
}
