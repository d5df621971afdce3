//! `resources/read`: the resource at the URI (a fixed one, else the most
//! specific template that matches), then its handler, which may ask for
//! input. An unknown URI, or a read with no contents, is "resource not
//! found".

use std::sync::Arc;

use serde_json::Map;

use super::context_parts::ContextParts;
use super::parts::Route;
use crate::dispatch::Prepared;
use crate::dispatch::decorate::failed;
use crate::dispatch::round_trip::{input_slot, interruptible, outcome_response};
use crate::handler::call::ResourceCall;
use crate::handler::outcome::Outcome;
use crate::protocol::{ErrorObject, ReadResourceParams, uri};
use crate::response::Response;
use crate::response::Stage;

/// Only the URI's syntax is checked before the read: it is looked up when
/// it runs, and one that no resource or template serves is "resource not
/// found" (`-32602` with `data.uri`) from there.
pub(super) fn route(p: ReadResourceParams) -> Result<Route, (ErrorObject, Stage)> {
    uri::check("uri", &p.uri).map_err(|e| (e, Stage::Params))?;
    Ok(Route::ReadResource(p))
}

pub(super) async fn run(p: &Prepared, params: ReadResourceParams, mut parts: ContextParts) -> Response {
    let catalog = p.snapshot.catalog();
    let uri = params.uri.as_str();
    // What is hidden from the caller reads as what does not exist.
    let (entry, variables) = match catalog.resource(uri).filter(|entry| !entry.hidden_from(&p.access)) {
        Some(entry) => (entry, Map::new()),
        None => match catalog.match_template_unless(uri, |entry| entry.hidden_from(&p.access)) {
            Some(found) => found,
            None => return failed(p, ErrorObject::resource_not_found(uri)),
        },
    };
    let cache = entry.cache.unwrap_or(p.server.settings().read_cache);
    let round = (params.input_responses, params.request_state.as_deref());
    let input = match input_slot(p, uri, || None, round, &parts.http, parts.opened.take()) {
        Ok(input) => input,
        Err(e) => return failed(p, e),
    };
    let cx = parts.context(p, input);
    let call = ResourceCall::new(uri, variables, cx.clone());
    let handler = Arc::clone(&entry.handler);
    let mime: Option<Arc<str>> = entry.mime_type_of().map(Arc::from);
    let outcome = interruptible(p, uri, cx, move || handler(call, mime)).await;
    let outcome = match outcome {
        Ok(Outcome::Complete(r)) if r.contents.is_empty() => Err(ErrorObject::resource_not_found(uri)),
        Ok(Outcome::Complete(mut r)) if entry.view.is_some() => {
            if let Some(view) = &entry.view {
                crate::registry::views::shape_contents(view, &mut r.contents);
            }
            Ok(Outcome::Complete(r))
        }
        other => other,
    };
    outcome_response(p, outcome, |r| r.meta.take(), Some(cache))
}
