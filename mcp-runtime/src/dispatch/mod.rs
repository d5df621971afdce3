//! The stateless dispatcher: one request in, one response out.
//!
//! [`Server::prepare`](crate::Server::prepare) runs the validation pipeline in the order the protocol
//! digest pins (envelope → `_meta` → headers → version → routing → params →
//! header params) without touching any handler; [`Prepared::run`] then calls
//! the handler and decorates the result. Nothing is remembered between
//! requests: everything comes from the request itself.

mod decorate;
mod envelope;
mod grace;
mod in_process;
mod meta_cache;
mod method;
mod nesting;
mod observed;
mod opened;
mod pagination;
mod params_head;
mod request;
mod result_shape;
mod round_trip;
mod tools_call_reader;
mod visible;

mod pipeline;
mod prepared;

pub use crate::handler::context::{DiscardNotifications, NotificationSink};
pub use crate::response::{Response, Stage};
pub use envelope::{ClientNotification, Message, Request, parse_message};
#[cfg(any(feature = "http", feature = "stdio"))]
pub(crate) use method::Method;
#[cfg(feature = "http")]
pub(crate) use method::stateless as stateless_method;
pub(crate) use prepared::Body;
pub use prepared::{CalledTool, HeaderCheck, Prepared, RequestOptions};
pub(crate) use result_shape::ResultShape;
#[cfg(feature = "session")]
pub(crate) use tools_call_reader::read_call;

/// The readers of this module, for [`crate::fuzzing`].
#[cfg(feature = "fuzzing")]
pub(crate) mod fuzzing {
    use std::sync::Arc;

    use serde_json::value::RawValue;

    use super::method::{self, Method};
    use super::{meta_cache, pagination, params_head};
    use crate::protocol::{ErrorObject, RequestMeta};

    pub(crate) fn read_meta(text: &str) -> Result<Arc<RequestMeta>, String> {
        meta_cache::read(text)
    }

    pub(crate) fn read_params_head(
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(Arc<RequestMeta>, Option<String>), ErrorObject> {
        params_head::read(method::stateless(method).and_then(Method::target), params)
    }

    pub(crate) fn decode_cursor(cursor: &str, list: &str) -> Result<Option<(String, String)>, ErrorObject> {
        pagination::decode(Some(cursor), list)
    }

    pub(crate) fn encode_cursor(list: &str, last: (&str, &str)) -> String {
        pagination::encode(list, last)
    }
}
