//! A request as it goes out and its answer as it comes back. A request is
//! written once, as JSON text that every transport sends as it is; an
//! answer is read no further than its reader needs: a forwarded call's
//! result is kept as the text the server wrote, for the server that
//! forwards it to pass on without reading it into values and writing it
//! again.

use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::error::{self, Error};
use crate::protocol::{ErrorObject, RequestId};

/// A request written out: its method, and its JSON text.
pub(super) struct Outgoing<'a> {
    pub(super) method: &'a str,
    pub(super) text: Vec<u8>,
}

impl<'a> Outgoing<'a> {
    /// Request `id` of `method` with `params`.
    pub(super) fn request(id: &RequestId, method: &'a str, params: &impl Serialize) -> Result<Self, Error> {
        #[derive(Serialize)]
        struct Request<'a, P> {
            jsonrpc: &'static str,
            id: &'a RequestId,
            method: &'a str,
            params: &'a P,
        }
        let request = Request { jsonrpc: "2.0", id, method, params };
        // Straight into bytes: `Display` would go through a formatter.
        let text =
            serde_json::to_vec(&request).map_err(|e| Error::Invalid(format!("a request not to be written: {e}")))?;
        Ok(Outgoing { method, text })
    }
}

/// A server's answer to one request, as the transport has it.
pub(super) enum Reply {
    /// The JSON text of the response, not read yet (an HTTP body, a
    /// server of this process's answer).
    Text(Vec<u8>),
    /// A message read already (off an event stream or a pipe, where each
    /// message is read to know whose it is).
    Read(Value),
}

impl Reply {
    /// The message as text, for observers.
    pub(super) fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Reply::Text(text) => String::from_utf8_lossy(text),
            Reply::Read(message) => message.to_string().into(),
        }
    }

    /// The result of request `id`, read into a value, or the server's
    /// error.
    pub(super) fn into_result(self, id: &RequestId) -> Result<Value, Error> {
        let message = match self {
            Reply::Read(message) => message,
            Reply::Text(text) => match serde_json::from_slice::<Value>(&text) {
                Ok(message) if message.get("jsonrpc").is_some() => message,
                _ => return Err(not_json_rpc(&text)),
            },
        };
        error::result_of(message, id)
    }

    /// The result of request `id` as the server wrote it, or the server's
    /// error: the result is found without being read (see [`ResultText`]).
    /// A response laid out as most servers write one (`jsonrpc`, this `id`,
    /// `result`, nothing after) is not read at all; any other has its
    /// envelope read.
    pub(super) fn into_result_text(self, id: &RequestId) -> Result<ResultText, Error> {
        let text = match self {
            Reply::Read(message) => {
                let result = error::result_of(message, id)?;
                return Ok(ResultText(result.to_string()));
            }
            Reply::Text(text) => text,
        };
        if let Some(result) = laid_out(&text, id) {
            // The result is cut out of the text it came in: no copy.
            let mut text = text;
            text.truncate(result.end);
            text.drain(..result.start);
            if let Ok(result) = String::from_utf8(text) {
                return Ok(ResultText(result));
            }
            return Err(Error::Invalid("a result that is not UTF-8".to_owned()));
        }
        let envelope: Envelope<'_> = match serde_json::from_slice(&text) {
            Ok(envelope @ Envelope { jsonrpc: Some(_), .. }) => envelope,
            _ => return Err(not_json_rpc(&text)),
        };
        let unnamed = envelope.error.is_some() && envelope.id.is_none();
        if envelope.id.map(RawValue::get) != Some(id.as_json()) && !unnamed {
            return Err(Error::Invalid(format!("an answer to another request: {}", start_of(&text))));
        }
        if let Some(error) = envelope.error {
            let error: ErrorObject = serde_json::from_str(error.get())
                .map_err(|e| Error::Invalid(format!("an error that does not read: {e}")))?;
            return Err(Error::Rpc(error));
        }
        match envelope.result {
            Some(result) => Ok(ResultText(result.get().to_owned())),
            None => Err(Error::Invalid(format!("neither a result nor an error: {}", start_of(&text)))),
        }
    }
}

/// The text of a result as the server wrote it: the `result` member of its
/// response, found without reading it. It is read by what it is for
/// ([`Peeked::read`](crate::handler::passed::Peeked::read) checks that it
/// is one JSON object), before anything is made of it.
pub(crate) struct ResultText(pub(crate) String);

/// The result in `text` when the response is laid out as
/// `{"jsonrpc":"2.0","id":<id>,"result":<result>}` (spaces after it
/// aside): then nothing else is in it, whatever `<result>` is, as long as
/// `<result>` is one JSON value, which its reader checks.
fn laid_out(text: &[u8], id: &RequestId) -> Option<std::ops::Range<usize>> {
    let rest = text.strip_prefix(br#"{"jsonrpc":"2.0","id":"#.as_slice())?;
    let rest = rest.strip_prefix(id.as_json().as_bytes())?;
    let rest = rest.strip_prefix(br#","result":"#.as_slice())?;
    let start = text.len() - rest.len();
    let end = start + rest.trim_ascii_end().strip_suffix(b"}")?.len();
    Some(start..end)
}

/// A response read no further than its members: its result and error
/// kept as text.
#[derive(Deserialize)]
struct Envelope<'a> {
    jsonrpc: Option<serde::de::IgnoredAny>,
    /// `None` for none, or `null`.
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// What an answer that is no JSON-RPC message is.
fn not_json_rpc(text: &[u8]) -> Error {
    Error::Invalid(format!("an answer that is not JSON-RPC: {}", start_of(text)))
}

/// The start of a message, for an error message.
pub(super) fn start_of(text: impl AsRef<[u8]>) -> String {
    String::from_utf8_lossy(text.as_ref()).chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(message: Value) -> Reply {
        Reply::Text(message.to_string().into_bytes())
    }

    #[test]
    fn a_result_is_the_text_the_server_wrote() {
        let id = RequestId::from(7_i64);
        let result = |reply: Reply| reply.into_result_text(&id).expect("a result").0;
        // Laid out as most servers write a response, or not.
        let laid_out = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[] ,"b":1.50}}
"#;
        assert_eq!(result(Reply::Text(laid_out.to_vec())), r#"{"content":[] ,"b":1.50}"#);
        let reordered = br#"{"result":{"content":[] ,"b":1.50}, "id":7, "jsonrpc":"2.0"}"#;
        assert_eq!(result(Reply::Text(reordered.to_vec())), r#"{"content":[] ,"b":1.50}"#);
        let read = Reply::Read(json!({"jsonrpc": "2.0", "id": 7, "result": {"a": 1}}));
        assert_eq!(result(read), r#"{"a":1}"#);
        // What follows a laid-out result is in its text, for its reader to
        // refuse: nothing of the response is taken for what it is not.
        let more = br#"{"jsonrpc":"2.0","id":7,"result":{"a":1},"error":{"code":1,"message":"m"}}"#;
        assert!(serde_json::from_str::<Value>(&result(Reply::Text(more.to_vec()))).is_err());
    }

    #[test]
    fn an_answer_that_is_no_result_is_refused_as_a_read_one_is() {
        let id = RequestId::from(7_i64);
        let error = text(json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "no"}}));
        assert!(matches!(error.into_result_text(&id), Err(Error::Rpc(e)) if e.code == -32601));
        // An error naming no request is this one's.
        let unnamed = text(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "no"}}));
        assert!(matches!(unnamed.into_result_text(&id), Err(Error::Rpc(e)) if e.code == -32600));
        for (refused, why) in [
            (json!({"jsonrpc": "2.0", "id": 8, "result": {}}), "another request"),
            (json!({"id": 7, "result": {}}), "not JSON-RPC"),
            (json!({"jsonrpc": "2.0", "id": 7}), "neither a result nor an error"),
            (json!({"jsonrpc": "2.0", "id": 7, "error": {"code": "x"}}), "an error that does not read"),
            (json!([1, 2]), "not JSON-RPC"),
        ] {
            let mut answers = vec![text(refused.clone()).into_result_text(&id)];
            // A message read already was read as JSON-RPC by its transport.
            if why != "not JSON-RPC" {
                answers.push(Reply::Read(refused.clone()).into_result_text(&id));
            }
            for answer in answers {
                match answer {
                    Err(Error::Invalid(message)) if message.contains(why) => {}
                    Err(other) => panic!("{refused}: {other:?}, not {why}"),
                    Ok(ResultText(text)) => panic!("{refused}: {text}, not {why}"),
                }
            }
        }
    }
}
