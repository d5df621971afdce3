//! `prompts/get`: the prompt named, its arguments strings with every
//! required one present, then its handler, which may ask for input.

use std::sync::Arc;

use super::context_parts::ContextParts;
use super::parts::Route;
use crate::dispatch::Prepared;
use crate::dispatch::decorate::failed;
use crate::dispatch::round_trip::{input_slot, interruptible, outcome_response};
use crate::handler::call::PromptCall;
use crate::handler::functions::PromptFn;
use crate::input::request_state;
use crate::protocol::{ErrorObject, GetPromptParams};
use crate::registry::scopes::Access;
use crate::response::{Response, Stage};
use crate::server::Snapshot;

pub(super) fn route(snapshot: &Snapshot, p: GetPromptParams, access: &Access) -> Result<Route, (ErrorObject, Stage)> {
    let Some(prompt) = snapshot.catalog().prompt(&p.name).filter(|prompt| !prompt.hidden_from(access)) else {
        return Err((ErrorObject::invalid_params(format!("Unknown prompt: `{}`", p.name)), Stage::Params));
    };
    let args = p.arguments.as_ref();
    if let Some((key, _)) = args.and_then(|a| a.iter().find(|(_, v)| !v.is_string())) {
        let e = ErrorObject::invalid_params(format!("Prompt argument `{key}` must be a string"));
        return Err((e, Stage::Params));
    }
    let missing = prompt
        .definition
        .arguments
        .iter()
        .filter(|a| a.required == Some(true))
        .find(|a| !args.is_some_and(|m| m.contains_key(&a.name)));
    if let Some(arg) = missing {
        let e =
            ErrorObject::invalid_params(format!("Missing required argument `{}` for prompt `{}`", arg.name, p.name));
        return Err((e, Stage::Params));
    }
    let handler = Arc::clone(&prompt.handler);
    Ok(Route::GetPrompt(p, handler))
}

pub(super) async fn run(p: &Prepared, params: GetPromptParams, handler: PromptFn, mut parts: ContextParts) -> Response {
    let GetPromptParams { name, arguments, input_responses, request_state, .. } = params;
    let arguments = arguments.unwrap_or_default();
    let digest = || Some(request_state::arguments_digest(&arguments));
    let round = (input_responses, request_state.as_deref());
    let input = match input_slot(p, &name, digest, round, &parts.http, parts.opened.take()) {
        Ok(input) => input,
        Err(e) => return failed(p, e),
    };
    let cx = parts.context(p, input);
    let call = PromptCall::new(name.clone(), arguments, cx.clone());
    let outcome = interruptible(p, &name, cx, move || handler(call)).await;
    outcome_response(p, outcome, |r| r.meta.take(), None)
}
