//! A JSON-RPC request as read, by the envelope or by the fast reader of
//! `tools/call`: what both readers make and the dispatcher takes, kept below
//! them so neither reader depends on the other for it.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::protocol::{CallToolParams, RequestId, RequestMeta};

/// A JSON-RPC request: its id, its method and its params, read as far as
/// the method could be known.
#[derive(Debug)]
pub struct Request {
    pub(super) id: RequestId,
    pub(super) method: Cow<'static, str>,
    pub(super) params: Params,
}

/// A request's params as far as they were read with the envelope.
#[derive(Debug)]
pub(super) enum Params {
    /// Kept as sent, to be read once the method is routed.
    Raw(Option<Box<RawValue>>),
    /// A `tools/call`'s params, read in the same pass as the envelope.
    Call(ReadCall),
    /// Params whose `_meta` the caller supplies ready: a 2025-era
    /// session's, which knows its client from `initialize`.
    #[cfg(feature = "session")]
    Given { meta: Arc<RequestMeta>, raw: Box<RawValue> },
}

impl Request {
    /// A request built in code (tests, the in-process client), its params
    /// as raw JSON.
    pub fn new(id: RequestId, method: impl Into<String>, params: Option<Box<RawValue>>) -> Self {
        Request { id, method: Cow::Owned(method.into()), params: Params::Raw(params) }
    }

    /// A request of a 2025-era session: `meta` is what the session knows
    /// of its client, in place of any `_meta` in `params`.
    #[cfg(feature = "session")]
    pub(crate) fn in_session(id: RequestId, method: &str, meta: Arc<RequestMeta>, params: Box<RawValue>) -> Self {
        let method = match crate::protocol::Method::parse(method) {
            Some(known) => Cow::Borrowed(known.name()),
            None => Cow::Owned(method.to_owned()),
        };
        Request { id, method, params: Params::Given { meta, raw: params } }
    }

    /// A `tools/call` of a 2025-era session, its params read already.
    #[cfg(feature = "session")]
    pub(crate) fn in_session_call(id: RequestId, meta: Arc<RequestMeta>, params: CallToolParams) -> Self {
        let method = crate::protocol::Method::ToolsCall.name();
        Request { id, method: Cow::Borrowed(method), params: Params::Call(ReadCall { meta, params }) }
    }

    /// The tool a `tools/call` names, when its params were read with the
    /// envelope.
    pub(crate) fn called_tool(&self) -> Option<&str> {
        match &self.params {
            Params::Call(call) => Some(&call.params.name),
            _ => None,
        }
    }

    pub(super) fn read(id: RequestId, method: &'static str, params: Params) -> Self {
        Request { id, method: Cow::Borrowed(method), params }
    }

    /// The id, exactly as sent.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The method.
    pub fn method(&self) -> &str {
        &self.method
    }
}

/// `params` of a `tools/call` read in the same pass as the envelope.
#[derive(Debug)]
pub(crate) struct ReadCall {
    /// `_meta`, valid.
    pub(crate) meta: Arc<RequestMeta>,
    /// Every other member.
    pub(crate) params: CallToolParams,
}
