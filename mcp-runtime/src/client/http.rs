//! Streamable HTTP: one POST per request, answered with JSON or with an
//! event stream whose last message is the answer.

use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::error::Error;
use crate::protocol::RequestId;

/// The most an answer may weigh.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

#[derive(Clone)]
pub(super) struct HttpTransport {
    url: String,
    http: Client<HttpConnector, Full<Bytes>>,
}

impl HttpTransport {
    pub(super) fn new(url: String) -> Self {
        HttpTransport { url, http: Client::builder(TokioExecutor::new()).build_http() }
    }

    pub(super) fn url(&self) -> &str {
        &self.url
    }

    pub(super) async fn send(
        &self,
        message: &Value,
        (version, method, target): (&str, &str, Option<&str>),
        bearer: Option<&str>,
        id: &RequestId,
    ) -> Result<Value, Error> {
        let mut request = http::Request::post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", version)
            .header("mcp-method", method);
        if let Some(target) = target.filter(|t| t.is_ascii() && !t.contains(['\r', '\n'])) {
            request = request.header("mcp-name", target);
        }
        if let Some(token) = bearer {
            request = request.header(AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_string())))
            .map_err(|e| Error::Transport(format!("`{}` is not a URL to post to: {e}", self.url)))?;
        let response = self.http.request(request).await.map_err(|e| Error::Transport(format!("{}: {e}", self.url)))?;
        let status = response.status();
        let streamed = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let body = Limited::new(response.into_body(), MAX_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|e| Error::Transport(format!("the answer could not be read: {e}")))?
            .to_bytes();
        let answer = if streamed { answer_in_stream(&body, id) } else { serde_json::from_slice(&body).ok() };
        match answer {
            // A JSON-RPC answer, even with a 4xx (a refused header, an
            // unknown method): the error says more than the status.
            Some(answer) => Ok(answer),
            None if !status.is_success() => Err(Error::Transport(format!(
                "HTTP status {}: {}",
                status.as_u16(),
                String::from_utf8_lossy(&body).chars().take(200).collect::<String>()
            ))),
            None => Err(Error::Invalid(format!(
                "an answer that is not JSON-RPC: {}",
                String::from_utf8_lossy(&body).chars().take(200).collect::<String>()
            ))),
        }
    }
}

/// The response to `id` among an event stream's messages (notifications
/// and requests from the server come before it, and are skipped).
fn answer_in_stream(body: &[u8], id: &RequestId) -> Option<Value> {
    let text = String::from_utf8_lossy(body);
    let id = id.to_value();
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
            serde_json::from_str::<Value>(&data.join("\n")).ok()
        })
        .find(|message| message.get("id") == Some(&id) && message.get("method").is_none())
}
