//! One request and its answer, whatever the transport: the request written
//! once with what its revision adds to it (the client's `_meta` in
//! 2026-07-28, its progress token), seen by the observers, sent within the
//! client's time limit and cancelled if given up; the answer handed back
//! unread ([`Reply`]), for the caller to read as far as it needs.

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::head::Head;
use super::limits::within;
use super::message::{Outgoing, Reply};
use super::negotiation::Negotiated;
use super::notices::Notices;
use super::{Client, Error, MessageKind, Transport};
use crate::protocol::{
    ClientCapabilities, LoggingLevel, META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROGRESS_TOKEN, RequestId,
    RequestMeta,
};

/// The params of a request, before what its revision adds to them.
pub(crate) enum Params<'a> {
    /// Members of the caller's; a `_meta` among them is completed with
    /// `meta` (in 2026-07-28), in place, so that the request can be sent
    /// again as it was.
    Members(&'a mut Map<String, Value>, &'a RequestMeta),
    /// A call or prompt forwarded by a server, its arguments as its own
    /// caller wrote them, declaring what its caller declared.
    Forwarded(&'a Forwarded<'a>, Declared<'a>),
}

/// What a forwarded request declares of its caller: its capabilities, and
/// the log level it asked for.
pub(crate) type Declared<'a> = (&'a ClientCapabilities, Option<LoggingLevel>);

/// The params of a `tools/call` or `prompts/get` that a server forwards:
/// the name, the arguments as its caller wrote them (not read here), and
/// the answers of the round before.
pub(crate) struct Forwarded<'a> {
    pub(crate) name: &'a str,
    /// `None`: `{}`.
    pub(crate) arguments: Option<&'a RawValue>,
    /// This round's answers (earlier rounds' travel in the state).
    pub(crate) input_responses: Map<String, Value>,
    /// The state the server sealed in its last `input_required` result.
    pub(crate) request_state: Option<String>,
}

impl Forwarded<'_> {
    /// Turns these into the params of the request's next round: `answers`,
    /// and the state the server sealed in `result`.
    pub(crate) fn next_round(&mut self, result: &Value, answers: Map<String, Value>) -> Result<(), String> {
        self.input_responses = answers;
        self.request_state = match result.get("requestState") {
            Some(Value::String(state)) => Some(state.clone()),
            Some(other) => return Err(format!("`requestState` is not a string: {other}")),
            None => None,
        };
        Ok(())
    }
}

impl Client {
    /// Sends request `id` and waits (at most the client's time limit) for
    /// its answer, and the session id an HTTP response gave.
    pub(super) async fn send(
        &self,
        request: Outgoing<'_>,
        id: &RequestId,
        head: Head<'_>,
    ) -> Result<(Reply, Option<String>), Error> {
        if self.observers.is_empty() {
            return self.send_unobserved(request.text, id, head).await;
        }
        let method = request.method;
        self.observers.notify(MessageKind::Request, method, &String::from_utf8_lossy(&request.text));
        let answered = self.send_unobserved(request.text, id, head).await;
        if let Ok((reply, _)) = &answered {
            self.observers.notify(MessageKind::Response, method, &reply.text());
        }
        answered
    }

    async fn send_unobserved(
        &self,
        text: Vec<u8>,
        id: &RequestId,
        head: Head<'_>,
    ) -> Result<(Reply, Option<String>), Error> {
        let limit = self.timeout;
        match &self.transport {
            // It keeps to the time limit itself: getting a token is not
            // within it.
            #[cfg(feature = "client")]
            Transport::Http(http) => http.send(text, &head, id, limit).await.map(|a| (a.reply, a.session)),
            #[cfg(feature = "client")]
            Transport::Lines(lines) => {
                within(limit, lines.send(text, id, head.notices)).await.map(|message| (Reply::Read(message), None))
            }
            Transport::InProcess(local) => within(limit, local.send(text, id, head.notices)).await.map(|r| (r, None)),
        }
    }

    /// One request in the settled revision: with the client's `_meta` and
    /// the 2026-07-28 headers, or in the session.
    pub(super) async fn exchange(
        &self,
        negotiated: &Negotiated,
        method: &str,
        params: Map<String, Value>,
    ) -> Result<Value, Error> {
        self.exchange_as(negotiated, method, params, &self.meta, None).await
    }

    /// [`exchange`](Self::exchange) with `meta` for the client's own, and
    /// the request's progress token and what hears its notifications.
    /// Given up before its answer, the request is cancelled.
    pub(super) async fn exchange_as(
        &self,
        negotiated: &Negotiated,
        method: &str,
        params: Map<String, Value>,
        meta: &RequestMeta,
        progress: Option<&(Value, Notices)>,
    ) -> Result<Value, Error> {
        let mut params = params;
        let (reply, id) = self.exchange_reply(negotiated, method, Params::Members(&mut params, meta), progress).await?;
        match reply.into_result(&id) {
            // Refused for a revision the server says it speaks: once more,
            // in case the refusal came from elsewhere than the answer says
            // (a replica that was behind, say).
            Err(Error::Rpc(error)) if matches!(negotiated, Negotiated::Stateless) && offers_ours(&error) => {
                tracing::debug!(
                    method,
                    "-32022 for {}, which the server lists: sent again",
                    crate::protocol::PROTOCOL_VERSION
                );
                let (reply, id) =
                    self.exchange_reply(negotiated, method, Params::Members(&mut params, meta), progress).await?;
                reply.into_result(&id)
            }
            result => result,
        }
    }

    /// [`exchange_as`](Self::exchange_as) of any [`Params`], its answer
    /// unread, with the id it answers.
    pub(super) async fn exchange_reply(
        &self,
        negotiated: &Negotiated,
        method: &str,
        params: Params<'_>,
        progress: Option<&(Value, Notices)>,
    ) -> Result<(Reply, RequestId), Error> {
        let id = self.next_id();
        let (stateless, version, session) = match negotiated {
            Negotiated::Stateless => (true, crate::protocol::PROTOCOL_VERSION, None),
            Negotiated::Session(session) => (false, session.version.as_str(), session.id.as_deref()),
        };
        // `Null`: the notifications are heard, but no progress asked for.
        let token = progress.map(|(token, _)| token).filter(|token| !token.is_null());
        #[cfg(feature = "client")]
        let mut mirrored = Vec::new();
        let (request, target) = match params {
            Params::Members(params, meta) => {
                let target = ["name", "uri", "taskId"].iter().find_map(|key| params.get(*key)?.as_str());
                #[cfg(feature = "client")]
                if let Some(tool) = target.filter(|_| stateless && method == "tools/call")
                    && let Some(params_of) = self.mirrors(tool)
                {
                    let arguments = params.get("arguments").and_then(Value::as_object);
                    mirrored = super::param_headers::headers(&params_of, arguments);
                }
                let target = target.map(|target| Cow::Owned(target.to_owned()));
                if stateless {
                    with_meta(params, meta);
                }
                if let Some(token) = token {
                    let meta = params.entry("_meta").or_insert_with(|| json!({}));
                    if let Some(meta) = meta.as_object_mut() {
                        meta.insert("progressToken".to_owned(), token.clone());
                    }
                }
                (Outgoing::request(&id, method, &*params)?, target)
            }
            Params::Forwarded(forwarded, declared) => {
                // Read only for a tool that mirrors some of them.
                #[cfg(feature = "client")]
                if let Some(params_of) = self.mirrors(forwarded.name).filter(|_| stateless && method == "tools/call") {
                    let arguments = forwarded.arguments.and_then(|a| serde_json::from_str(a.get()).ok());
                    mirrored = super::param_headers::headers(&params_of, arguments.as_ref());
                }
                let meta = stateless.then(|| (self.fixed_meta(), declared));
                let text = forwarded
                    .write(&id, method, meta, token)
                    .map_err(|e| Error::Invalid(format!("a request not to be written: {e}")))?;
                (Outgoing { method, text }, Some(Cow::Borrowed(forwarded.name)))
            }
        };
        let mut head = match stateless {
            true => self.head(version, Some((method, target.as_deref())), None),
            false => self.head(version, None, session),
        };
        head.notices = progress.map(|(_, notices)| notices);
        #[cfg(feature = "client")]
        {
            head.params = &mirrored;
        }
        let observed = self.observed_notices(method, head.notices);
        if observed.is_some() {
            head.notices = observed.as_ref();
        }
        let outstanding = self.outstanding(negotiated, &id);
        let (reply, _) = self.send(request, &id, head).await?;
        outstanding.answered();
        Ok((reply, id))
    }

    /// What hears a request's notifications when observers must see them
    /// too: `heard` (if anything hears them already) and the observers.
    fn observed_notices(&self, method: &str, heard: Option<&Notices>) -> Option<Notices> {
        if self.observers.is_empty() {
            return None;
        }
        let (observers, method, inner) = (self.observers.clone(), method.to_owned(), heard.cloned());
        let mut notices = Notices::new(move |notification: &Value| {
            observers.notify(MessageKind::Notification, &method, &notification.to_string());
            if let Some(inner) = &inner {
                inner.hear(notification);
            }
        });
        // Every log message, for the observers: on a pipe, the request
        // listening for them is the one they reach.
        notices.messages = true;
        notices.asks = heard.and_then(|heard| heard.asks.clone());
        Some(notices)
    }
}

/// Whether `error` refuses the request's revision (`-32022`) while
/// listing it among those the server supports.
fn offers_ours(error: &crate::protocol::ErrorObject) -> bool {
    error.code == crate::protocol::ErrorCode::UnsupportedProtocolVersion.code()
        && error
            .data
            .as_ref()
            .and_then(|data| data.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|supported| supported.iter().any(|v| v == crate::protocol::PROTOCOL_VERSION))
}

/// `params` with the client's `meta`: in a `_meta` the caller gave,
/// what it does not say already (its progress token, say, stays).
fn with_meta(params: &mut Map<String, Value>, meta: &RequestMeta) {
    let ours = meta.to_value();
    match params.get_mut("_meta") {
        Some(Value::Object(given)) => {
            if let Value::Object(ours) = ours {
                for (key, value) in ours {
                    given.entry(key).or_insert(value);
                }
            }
        }
        _ => {
            params.insert("_meta".to_owned(), ours);
        }
    }
}

impl Forwarded<'_> {
    /// Request `id` of `method` with these params, as it is sent: with the
    /// client's `_meta` in 2026-07-28 (its members that do not change from
    /// request to request written once per client, `fixed`, and what the
    /// caller declared), none in a 2025-era session (which said it all at
    /// `initialize`); and the progress token asked for. Written straight
    /// out: the arguments as the caller wrote them, nothing read into
    /// values.
    fn write(
        &self,
        id: &RequestId,
        method: &str,
        meta: Option<(&str, Declared<'_>)>,
        token: Option<&Value>,
    ) -> Result<Vec<u8>, serde_json::Error> {
        let arguments = self.arguments.map_or("{}", RawValue::get);
        let mut out = Vec::with_capacity(320 + arguments.len() + meta.map_or(0, |(fixed, _)| fixed.len()));
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        out.extend_from_slice(id.as_json().as_bytes());
        out.extend_from_slice(br#","method":"#);
        serde_json::to_writer(&mut out, method)?;
        out.extend_from_slice(br#","params":{"name":"#);
        serde_json::to_writer(&mut out, self.name)?;
        out.extend_from_slice(br#","arguments":"#);
        out.extend_from_slice(arguments.as_bytes());
        if !self.input_responses.is_empty() {
            out.extend_from_slice(br#","inputResponses":"#);
            serde_json::to_writer(&mut out, &self.input_responses)?;
        }
        if let Some(state) = &self.request_state {
            out.extend_from_slice(br#","requestState":"#);
            serde_json::to_writer(&mut out, state)?;
        }
        match (meta, token) {
            (Some((fixed, (capabilities, level))), token) => {
                out.extend_from_slice(br#","_meta":{"#);
                out.extend_from_slice(fixed.as_bytes());
                member(&mut out, META_CLIENT_CAPABILITIES, capabilities)?;
                if let Some(level) = level {
                    member(&mut out, META_LOG_LEVEL, level.as_str())?;
                }
                if let Some(token) = token {
                    member(&mut out, META_PROGRESS_TOKEN, token)?;
                }
                out.push(b'}');
            }
            (None, Some(token)) => {
                out.extend_from_slice(br#","_meta":{"progressToken":"#);
                serde_json::to_writer(&mut out, token)?;
                out.push(b'}');
            }
            (None, None) => {}
        }
        out.extend_from_slice(b"}}");
        Ok(out)
    }
}

impl Client {
    /// What `tool` mirrors into headers, when the client speaks HTTP and
    /// listed it.
    #[cfg(feature = "client")]
    fn mirrors(&self, tool: &str) -> Option<std::sync::Arc<[crate::registry::param_headers::HeaderParam]>> {
        match &self.transport {
            Transport::Http(_) => self.tool_headers.of(tool),
            _ => None,
        }
    }

    /// The members of the client's `_meta` that are the same in every
    /// request (its revision, its info, its other keys), as JSON text
    /// without braces: written once per client.
    fn fixed_meta(&self) -> &str {
        self.fixed_meta.get_or_init(|| {
            let mut meta = match self.meta.to_value() {
                Value::Object(meta) => meta,
                _ => Map::new(),
            };
            for varying in [META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROGRESS_TOKEN] {
                meta.remove(varying);
            }
            let text = Value::Object(meta).to_string();
            text[1..text.len() - 1].to_owned()
        })
    }
}

/// `,"key":value` after the members written so far.
fn member<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, key: &str, value: &T) -> Result<(), serde_json::Error> {
    out.push(b',');
    serde_json::to_writer(&mut *out, key)?;
    out.push(b':');
    serde_json::to_writer(out, value)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Server;
    use crate::protocol::ProgressToken;

    #[test]
    fn a_forwarded_request_is_the_request_its_members_would_make() {
        let client = Client::in_process(Server::builder("s", "1.0.0").build().expect("a server")).client_info("c", "2");
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities");
        let arguments = RawValue::from_string(r#"{"a": [1, "x"], "b": 1.50}"#.to_owned()).expect("JSON");
        let mut answers = Map::new();
        answers.insert("q".to_owned(), json!({"action": "accept"}));
        let id = RequestId::from(7);
        for (arguments, answers, state) in
            [(Some(&*arguments), answers, Some("sealed".to_owned())), (None, Map::new(), None)]
        {
            let forwarded = Forwarded { name: "t\"1", arguments, input_responses: answers, request_state: state };
            let mut members = json!({
                "name": forwarded.name,
                "arguments": arguments.map_or(json!({}), |a| serde_json::from_str(a.get()).expect("JSON")),
            });
            if !forwarded.input_responses.is_empty() {
                members["inputResponses"] = Value::Object(forwarded.input_responses.clone());
            }
            if let Some(state) = &forwarded.request_state {
                members["requestState"] = json!(state);
            }
            let token = json!(5);
            for (stateless, level, token) in [
                (true, Some(LoggingLevel::Info), Some(&token)),
                (true, None, None),
                (false, None, Some(&token)),
                (false, None, None),
            ] {
                let meta = stateless.then(|| (client.fixed_meta(), (&capabilities, level)));
                let text = forwarded.write(&id, "tools/call", meta, token).expect("written");
                let written: Value = serde_json::from_slice(&text).expect("JSON");
                let mut expected = members.clone();
                if stateless {
                    let mut meta = (*client.meta).clone();
                    meta.client_capabilities = capabilities.clone();
                    meta.log_level = level;
                    meta.progress_token = token.and_then(|t| serde_json::from_value::<ProgressToken>(t.clone()).ok());
                    expected["_meta"] = meta.to_value();
                } else if let Some(token) = token {
                    expected["_meta"] = json!({"progressToken": token});
                }
                let expected = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": expected});
                assert_eq!(written, expected, "stateless: {stateless}, level: {level:?}, token: {token:?}");
            }
        }
        // The arguments go as the caller wrote them.
        let meta = Some((client.fixed_meta(), (&capabilities, None)));
        let forwarded =
            Forwarded { name: "t", arguments: Some(&arguments), input_responses: Map::new(), request_state: None };
        let text = String::from_utf8(forwarded.write(&id, "tools/call", meta, None).expect("written")).expect("text");
        assert!(text.contains(r#""arguments":{"a": [1, "x"], "b": 1.50}"#), "{text}");
    }

    #[test]
    fn what_is_written_once_of_the_meta_follows_the_client_info() {
        let client = Client::in_process(Server::builder("s", "1.0.0").build().expect("a server"));
        assert!(client.fixed_meta().contains("mcp-runtime-client"), "{}", client.fixed_meta());
        let renamed = client.clone().client_info("renamed", "9");
        assert!(renamed.fixed_meta().contains(r#""name":"renamed""#), "{}", renamed.fixed_meta());
        assert!(client.fixed_meta().contains("mcp-runtime-client"), "the clone it came from keeps its own");
    }
}
