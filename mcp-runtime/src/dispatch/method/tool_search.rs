//! Tool search's part of `tools/call` and `tools/list`
//! ([`crate::search`]): `search_tools` answered from the catalog's index,
//! `call_tool` turned into the call of the tool it names before anything
//! else reads the request, and the short listing.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::lists::{self, ListParams};
use super::name::Method;
use super::parts::{ListKind, Route, params_of};
use crate::dispatch::Prepared;
use crate::dispatch::decorate::Answers as _;
use crate::dispatch::pagination;
use crate::dispatch::visible::{self, Visible};
use crate::handler::outcome::Outcome;
use crate::protocol::CacheScope;
use crate::protocol::{CallToolParams, CallToolResult, ErrorObject};
use crate::response::{Response, Stage};
use crate::search::{CALL_TOOL, Listed, SEARCH_TOOL, Searcher};
use crate::server::Snapshot;

/// What a `tools/call` of a server with tool search becomes.
pub(super) enum Searched {
    /// `search_tools`, with its arguments.
    Search(Option<Box<RawValue>>),
    /// `call_tool`: the params of the call of the tool it names, routed
    /// as if they had come so.
    Call(CallToolParams),
    /// Another tool's call, as it came.
    Other(CallToolParams),
}

/// `call_tool`'s arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallArguments {
    name: String,
    #[serde(default)]
    arguments: Option<Box<RawValue>>,
}

/// `search_tools`' arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArguments {
    query: String,
    #[serde(default)]
    limit: Option<u64>,
}

/// `p` as tool search reads it.
pub(super) fn route(snapshot: &Snapshot, p: CallToolParams) -> Result<Searched, (ErrorObject, Stage)> {
    if p.name == SEARCH_TOOL {
        return Ok(Searched::Search(p.arguments));
    }
    if p.name != CALL_TOOL {
        return Ok(Searched::Other(p));
    }
    let text = p.arguments.as_deref().map_or("{}", RawValue::get);
    let call: CallArguments = serde_json::from_str(text).map_err(|e| {
        (ErrorObject::invalid_params(format!("Invalid arguments for tool `{CALL_TOOL}`: {e}")), Stage::Params)
    })?;
    if call.name == CALL_TOOL || call.name == SEARCH_TOOL {
        let message = format!("`{CALL_TOOL}` calls the server's tools; call `{}` by its own name", call.name);
        return Err((ErrorObject::invalid_params(message), Stage::Params));
    }
    let catalog = snapshot.catalog();
    if let Some(position) = catalog.tool_position(&call.name)
        && !crate::search::for_model(&catalog.tool(position).definition)
    {
        // A tool only its view may call stays out of the model's reach,
        // through this door too.
        let message = format!("The tool `{}` is for its MCP Apps view only; the model cannot call it", call.name);
        return Err((ErrorObject::invalid_params(message), Stage::Params));
    }
    let mut p = p;
    p.name = call.name;
    p.arguments = call.arguments;
    Ok(Searched::Call(p))
}

/// `search_tools`: the definitions of the tools the query finds among
/// those the caller may call, in the shape its client reads.
pub(super) fn run(p: &Prepared, arguments: Option<Box<RawValue>>) -> Response {
    let tools = match search(p, arguments.as_deref()) {
        Ok(tools) => tools,
        Err(message) => {
            return super::tools_call::typed_response(p, Ok(Outcome::Complete(CallToolResult::error(message))));
        }
    };
    let list = format!("[{}]", tools.iter().map(|t| t.get()).collect::<Vec<_>>().join(","));
    if p.shape().is_none() {
        // Written as it is sent: the definitions are the catalog's own
        // JSON, as `structuredContent` and, for clients that read only
        // `content`, as its text.
        let text = serde_json::to_string(&list).unwrap_or_default();
        let result =
            format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{{"tools":{list}}}}}"#);
        return Response::passed_result(p.id.clone(), &result, true, p.server.settings().result_meta.as_deref());
    }
    let tools: Value = serde_json::from_str(&list).unwrap_or(Value::Null);
    let result = CallToolResult::structured(serde_json::json!({ "tools": tools }));
    super::tools_call::typed_response(p, Ok(Outcome::Complete(result)))
}

fn search(p: &Prepared, arguments: Option<&RawValue>) -> Result<Vec<Box<RawValue>>, String> {
    let Some(searcher) = p.snapshot.searcher() else {
        return Err("This server has no tool search".into());
    };
    let text = arguments.map_or("{}", RawValue::get);
    let arguments: SearchArguments =
        serde_json::from_str(text).map_err(|e| format!("Invalid arguments for tool `{SEARCH_TOOL}`: {e}"))?;
    let catalog = p.snapshot.catalog();
    let allowed = |i: usize| catalog.tools()[i].entry().shown_to(&p.access);
    let found = searcher.search(catalog, &arguments.query, arguments.limit, allowed)?;
    let rewritten = lists::rewritten(p, ListKind::Tools);
    Ok(found
        .into_iter()
        .map(|i| match &rewritten {
            Some(definitions) => definitions[i].clone(),
            None => catalog.tools()[i].json().to_owned(),
        })
        .collect())
}

/// `tools/list` of a server with tool search: where its page starts,
/// after the item the cursor names.
pub(super) fn list_route(
    snapshot: &Snapshot,
    searcher: &Searcher,
    params: Option<&RawValue>,
) -> Result<Route, (ErrorObject, Stage)> {
    let p: ListParams = params_of(Method::ToolsList, params)?;
    let key = ListKind::Tools.key();
    let after = pagination::decode(p.cursor.as_deref(), key).map_err(|e| (e, Stage::Params))?;
    let listing = searcher.listing(snapshot.catalog());
    let start = pagination::start(after.as_ref(), listing.len(), |i| (name_of(snapshot, searcher, listing[i]), ""));
    Ok(Route::List(ListKind::Tools, start))
}

/// One page of the listing: `search_tools`, `call_tool`, and the tools
/// that stay listed and the caller may see.
pub(super) fn list_run(p: &Prepared, searcher: &Searcher, start: usize) -> Response {
    let mut cache = p.server.settings().list_cache;
    if p.access.filters(p.snapshot.catalog()) {
        if !visible::offers(p.snapshot.catalog(), &p.access, Visible::Tools) {
            let method = p.method.name();
            return Response::error(Some(p.id.clone()), ErrorObject::method_not_found(method), Stage::Routing);
        }
        cache = cache.with_scope(CacheScope::Private);
    }
    let (items, next_cursor) = page(p, searcher, start);
    let items: Vec<&RawValue> = items.iter().map(|item| &**item).collect();
    lists::answer_page(p, ListKind::Tools.key(), items, next_cursor, cache)
}

/// One page of the listing, the items the caller may see.
fn page(p: &Prepared, searcher: &Searcher, start: usize) -> (Vec<Box<RawValue>>, Option<String>) {
    let catalog = p.snapshot.catalog();
    let listing = searcher.listing(catalog);
    let shown = |item: &Listed| match *item {
        Listed::Search(_) => true,
        Listed::Tool(i) => catalog.tools()[i].entry().shown_to(&p.access),
    };
    let page_size = p.server.settings().page_size;
    let mut visible = (start..listing.len()).filter(|&i| shown(&listing[i]));
    let page: Vec<usize> = visible.by_ref().take(page_size).collect();
    let next_cursor = match (page.last(), visible.next()) {
        (Some(&last), Some(_)) => {
            Some(pagination::encode(ListKind::Tools.key(), (name_of(&p.snapshot, searcher, listing[last]), "")))
        }
        _ => None,
    };
    let items: Vec<&RawValue> = page
        .iter()
        .map(|&i| match listing[i] {
            Listed::Search(which) => searcher.definition(which).1,
            Listed::Tool(position) => catalog.tools()[position].json(),
        })
        .collect();
    (in_shape(p, &items), next_cursor)
}

/// `items` as the request's client reads them (see [`lists::rewritten`]).
fn in_shape(p: &Prepared, items: &[&RawValue]) -> Vec<Box<RawValue>> {
    #[cfg(feature = "session")]
    if let Some(shape) = p.shape
        && let Some(rewritten) = shape.list_items(ListKind::Tools.key(), items)
    {
        return rewritten;
    }
    let _ = p;
    items.iter().map(|item| (*item).to_owned()).collect()
}

fn name_of<'a>(snapshot: &'a Snapshot, searcher: &'a Searcher, item: Listed) -> &'a str {
    match item {
        Listed::Search(which) => searcher.definition(which).0,
        Listed::Tool(position) => snapshot.catalog().tools()[position].key(),
    }
}
