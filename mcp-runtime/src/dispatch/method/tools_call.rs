//! `tools/call`: the tool named, its arguments an object whose
//! `x-mcp-header` properties match their `Mcp-Param-*` headers, then its
//! handler, which may ask for input.

use super::context_parts::ContextParts;
use super::parts::Route;
use crate::dispatch::decorate::failed;
use crate::dispatch::round_trip::{input_slot, interruptible, outcome_response};
use crate::dispatch::{CalledTool, HeaderCheck, Prepared};
use crate::handler::call::ToolCall;
use crate::handler::outcome::Outcome;
use crate::input::request_state;
use crate::protocol::{CallToolParams, CallToolResult, ContentBlock, ErrorObject, TextContent};
use crate::response::Response;
use crate::response::Stage;
use crate::server::Snapshot;
#[cfg(feature = "tasks")]
use crate::tasks;

/// The tool's place in the snapshot, once its arguments and their headers
/// are checked.
pub(super) fn route(
    snapshot: &Snapshot,
    p: CallToolParams,
    headers: Option<&dyn HeaderCheck>,
) -> Result<Route, (ErrorObject, Stage)> {
    let catalog = snapshot.catalog();
    let Some(position) = catalog.tool_position(&p.name) else {
        return Err((ErrorObject::invalid_params(format!("Unknown tool: `{}`", p.name)), Stage::Params));
    };
    if let Some(args) = &p.arguments
        && !args.get().trim_start().starts_with('{')
    {
        let e = ErrorObject::invalid_params("`arguments` must be an object");
        return Err((e, Stage::Params));
    }
    if let Some(headers) = headers {
        let tool = CalledTool {
            definition: catalog.tool(position).definition(),
            header_params: catalog.tool_header_params(position),
        };
        headers.check_tool_arguments(tool, p.arguments.as_deref()).map_err(|e| (e, Stage::Headers))?;
    }
    Ok(Route::CallTool(p, position))
}

pub(super) async fn run(p: &Prepared, params: CallToolParams, position: usize, parts: ContextParts) -> Response {
    let tool = p.snapshot.catalog().tool(position);
    // Without the feature a `task` tool runs as a plain call (and no server
    // is built with a `task(required)` one).
    #[cfg(feature = "tasks")]
    if let Some(support) = tool.task {
        if tasks::declared(&p.meta.client_capabilities) {
            // Boxed: a plain call's future does not grow by this path's state.
            return Box::pin(super::task_call::start(p, tool, params, parts)).await;
        }
        if support.is_required() {
            return failed(p, tasks::missing_extension(&format!("The tool `{}`", tool.definition.name)));
        }
    }
    let CallToolParams { name, arguments, input_responses, request_state } = params;
    let target = tool.definition.name.as_str();
    let digest = || Some(request_state::tool_arguments_digest(arguments.as_deref()));
    let input = match input_slot(p, target, digest, input_responses, request_state.as_deref()) {
        Ok(input) => input,
        Err(e) => return failed(p, e),
    };
    let cx = parts.context(p, input);
    let arguments = match &tool.nulls {
        Some(plan) => crate::registry::schema_profile::strip_nulls(plan, arguments),
        None => arguments,
    };
    let call = ToolCall::new(name, arguments, cx.clone());
    let handler = &tool.handler;
    let outcome = interruptible(p, target, cx, move || handler(call)).await;
    if let Ok(Outcome::Complete(result)) = &outcome
        && let Some(text) = plain_text(result)
    {
        return Response::text_result(p.id.clone(), text, p.server.settings().result_meta.as_deref());
    }
    outcome_response(p, outcome, |r| r.meta.take(), None)
}

/// The text of a tool result that is one plain text block and nothing
/// else: what most tools answer, written by [`Response::text_result`].
fn plain_text(result: &CallToolResult) -> Option<&str> {
    let CallToolResult { content, structured_content: None, is_error: None, meta: None } = result else {
        return None;
    };
    match content.as_slice() {
        [ContentBlock::Text(TextContent { text, annotations: None, meta: None })] => Some(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;
    use crate::protocol::Annotations;

    #[test]
    fn only_a_lone_plain_text_block_takes_the_direct_writing() {
        assert_eq!(plain_text(&CallToolResult::text("hi")), Some("hi"));

        let mut with_error_flag = CallToolResult::text("hi");
        with_error_flag.is_error = Some(false);
        let mut with_meta = CallToolResult::text("hi");
        with_meta.meta = Some(Map::new());
        let mut structured = CallToolResult::text("hi");
        structured.structured_content = Some(json!({"a": 1}));
        let annotated = CallToolResult::new(vec![ContentBlock::Text(TextContent {
            text: "hi".into(),
            annotations: Some(Annotations::default()),
            meta: None,
        })]);
        let two = CallToolResult::new(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
        for other in [with_error_flag, with_meta, structured, annotated, two, CallToolResult::new(Vec::new())] {
            assert_eq!(plain_text(&other), None, "{other:?}");
        }
    }
}
