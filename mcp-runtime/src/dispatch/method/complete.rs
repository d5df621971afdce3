//! `completion/complete`: suggestions for one argument of a prompt or a
//! resource template, from its completer if it has one (none is an empty
//! completion, not an error), capped at the protocol's limit.

use super::context_parts::ContextParts;
use super::parts::Route;
use crate::dispatch::Prepared;
use crate::dispatch::decorate::{failed, finish};
use crate::dispatch::grace::Handled;
use crate::handler::call::CompleteCall;
use crate::handler::context::InputSlot;
use crate::handler::panic_guard::guarded;
use crate::protocol::{CompleteParams, CompleteResult, Completion, CompletionReference, ErrorObject, ResultType};
use crate::registry::scopes::Access;
use crate::response::{Response, Stage};
use crate::server::Snapshot;

/// A reference to a prompt, resource or template the server does not have
/// is `-32602`.
pub(super) fn route(snapshot: &Snapshot, p: CompleteParams, access: &Access) -> Result<Route, (ErrorObject, Stage)> {
    let catalog = snapshot.catalog();
    let known = match &p.reference {
        CompletionReference::Prompt { name, .. } => catalog.prompt(name).is_some_and(|e| !e.hidden_from(access)),
        CompletionReference::Resource { uri } => {
            catalog.template(uri).or_else(|| catalog.resource(uri)).is_some_and(|e| !e.hidden_from(access))
        }
        // A kind of reference a later revision adds names nothing served here.
        _ => false,
    };
    if !known {
        let e = ErrorObject::invalid_params("Unknown completion reference");
        return Err((e, Stage::Params));
    }
    Ok(Route::Complete(p))
}

pub(super) async fn run(p: &Prepared, params: CompleteParams, parts: ContextParts) -> Response {
    let catalog = p.snapshot.catalog();
    let (completer, shown) = match &params.reference {
        CompletionReference::Prompt { name, .. } => {
            catalog.prompt(name).map_or((None, true), |e| (e.completer.clone(), e.shown_to(&p.access)))
        }
        CompletionReference::Resource { uri } => catalog
            .template(uri)
            .or_else(|| catalog.resource(uri))
            .map_or((None, true), |e| (e.completer.clone(), e.shown_to(&p.access))),
        _ => (None, true),
    };
    if !shown {
        // What the lists hide from the caller, completion does not reveal.
        return failed(p, ErrorObject::invalid_params("Unknown completion reference"));
    }
    let completion = match completer {
        None => Ok(Completion::default()),
        Some(complete) => {
            let others = params.context.clone().map(|c| c.arguments).unwrap_or_default();
            let cx = parts.context(p, InputSlot::Unavailable);
            let watched = cx.clone();
            let call = CompleteCall::new(&params.argument.name, &params.argument.value, others, cx);
            Handled::new(guarded(async move { complete(call).await }), watched).await
        }
    };
    match completion {
        Ok(mut completion) => {
            if completion.values.len() > Completion::MAX_VALUES {
                let known = completion.total;
                completion = Completion::from_values(completion.values);
                // The handler may know of more matches than it listed.
                completion.total = completion.total.max(known);
            }
            finish(p, ResultType::Complete, &CompleteResult::new(completion), None, None)
        }
        Err(e) => failed(p, e),
    }
}
