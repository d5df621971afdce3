//! Results as responses: every result gets `resultType`, the cache hints
//! its method gives it and the `_meta` the server adds (its info, merged
//! with the handler's own keys).

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Prepared, ResultShape};
use crate::protocol::{CacheHints, ErrorObject, META_SERVER_INFO, RequestId, ResultType};
use crate::response::{Decorated, Meta, Response, Stage};
use crate::server::Server;

/// What a result is answered for: the server that decorates it, the
/// request's id and, for a client that reads an older shape, the shape its
/// results are written in. A prepared request, or a middleware's view of
/// one.
pub(crate) trait Answers {
    fn server(&self) -> &Server;
    fn id(&self) -> &RequestId;
    #[cfg_attr(not(feature = "session"), allow(dead_code))]
    fn shape(&self) -> Option<&'static dyn ResultShape>;
}

impl Answers for Prepared {
    fn server(&self) -> &Server {
        &self.server
    }

    fn id(&self) -> &RequestId {
        &self.id
    }

    fn shape(&self) -> Option<&'static dyn ResultShape> {
        #[cfg(feature = "session")]
        return self.shape;
        #[cfg(not(feature = "session"))]
        None
    }
}

/// Serializes a result with `resultType`, cache hints and `_meta`.
pub(crate) fn finish<T: Serialize>(
    p: &impl Answers,
    result_type: ResultType,
    body: &T,
    own_meta: Option<Map<String, Value>>,
    cache: Option<CacheHints>,
) -> Response {
    finish_sized(p, result_type, body, own_meta, cache, 0)
}

/// [`finish`] for a body known to need about `size` bytes of JSON.
pub(super) fn finish_sized<T: Serialize>(
    p: &impl Answers,
    result_type: ResultType,
    body: &T,
    own_meta: Option<Map<String, Value>>,
    cache: Option<CacheHints>,
    size: usize,
) -> Response {
    #[cfg(feature = "session")]
    if p.shape().is_some() && result_type != ResultType::InputRequired {
        // Asking for input is the business of whoever chose the shape (the
        // session bridge), which reads it as the dispatcher writes it;
        // anything else goes to the client as the shape has it.
        return serialized(p, &super::result_shape::BareResult::new(body, own_meta), size);
    }
    let shared = p.server().settings().result_meta.as_deref();
    let meta = match (own_meta, shared) {
        (None, Some(raw)) => Meta::Shared(raw),
        (None, None) => Meta::None,
        (Some(mut own), shared) => {
            // The handler's own keys win; server info is added beside them.
            if shared.is_some() && !own.contains_key(META_SERVER_INFO) {
                let info = serde_json::to_value(p.server().info()).unwrap_or(Value::Null);
                own.insert(META_SERVER_INFO.into(), info);
            }
            Meta::Merged(own)
        }
    };
    let decorated = Decorated {
        result_type,
        body,
        ttl_ms: cache.map(|c| c.ttl_ms),
        cache_scope: cache.map(|c| c.cache_scope),
        meta,
    };
    let response = serialized(p, &decorated, size);
    if result_type == ResultType::InputRequired { response.asking_for_input() } else { response }
}

/// `result` as the request's response, or the error saying why it could
/// not be serialized.
pub(super) fn serialized<T: Serialize>(p: &impl Answers, result: &T, size: usize) -> Response {
    match Response::result(p.id().clone(), result, size) {
        Ok(response) => response,
        Err(e) => Response::error(
            Some(p.id().clone()),
            ErrorObject::internal(format!("The result could not be serialized: {e}")),
            Stage::Handler,
        ),
    }
}

/// A handler's error as the request's response.
pub(crate) fn failed(p: &impl Answers, error: ErrorObject) -> Response {
    Response::error(Some(p.id().clone()), error, Stage::Handler)
}
