//! The span and measurements of a 2025-era session's request: one per
//! request, however many times the bridge calls the dispatcher for it
//! (which then observes nothing of its own).

use serde_json::{Map, Value};

use super::delivery::Delivery;
use super::live::Session;
use super::message::SessionRequest;
use crate::protocol::{Method, RequestId};
use crate::server::Server;
use crate::telemetry::{Observation, Origin, Target};

/// Starts observing a session's request as it arrives on `via`.
pub(super) fn request(server: &Server, session: &Session, request: &SessionRequest, via: &Delivery) -> Observation {
    let SessionRequest { id, method, .. } = request;
    #[cfg(feature = "http")]
    let origin = via.http.as_deref().map_or_else(Origin::stdio, Origin::http);
    #[cfg(not(feature = "http"))]
    let origin = {
        let _ = via;
        Origin::stdio()
    };
    let mut observation = Observation::start(method, Some(id), &origin);
    if !observation.is_active() {
        return observation;
    }
    observation.session(session.id());
    // Read only for an observation that records them.
    let params = request.params.to_value();
    let params = params.as_ref().and_then(Value::as_object);
    let snapshot = server.snapshot();
    let catalog = snapshot.catalog();
    let named = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str);
    // Only what the server serves is named: a name the client made up
    // stays out of span names and metric series.
    let known = Method::parse(method);
    let tool = (known == Some(Method::ToolsCall))
        .then(|| named("name"))
        .flatten()
        .and_then(|name| Some((name, catalog.tool(catalog.tool_position(name)?).trace_content)));
    let arguments =
        tool.filter(|(_, trace)| *trace).and_then(|_| params.and_then(|p| p.get("arguments"))).map(Value::to_string);
    let target = match known {
        Some(Method::ToolsCall) => {
            tool.map(|(name, trace)| Target::Tool { name, trace, arguments: arguments.as_deref() })
        }
        Some(Method::PromptsGet) => named("name").filter(|name| catalog.prompt(name).is_some()).map(Target::Prompt),
        Some(Method::ResourcesRead | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe) => {
            named("uri").map(Target::Resource)
        }
        _ => None,
    };
    // The client's own `_meta` (trace context, say), as it sent it.
    let meta = super::message::value_of(request.meta.as_deref());
    let meta = meta.as_ref().and_then(Value::as_object);
    observation.routed(session.protocol_version().as_str(), target.unwrap_or(Target::None), meta);
    observation
}

/// Starts observing an `initialize`, which opens a session.
pub(crate) fn initialize(id: &RequestId, params: Option<&Value>, origin: &Origin<'_>) -> Observation {
    let mut observation = Observation::start(Method::Initialize.name(), Some(id), origin);
    if observation.is_active() {
        let params = params.and_then(Value::as_object);
        let version = params.and_then(|p| p.get("protocolVersion")).and_then(Value::as_str);
        let meta: Option<&Map<String, Value>> = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
        observation.routed(super::initialize::negotiate(version).as_str(), Target::None, meta);
    }
    observation
}
