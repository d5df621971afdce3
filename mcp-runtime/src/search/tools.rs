//! The definitions of the two tools a server with tool search lists.

use serde_json::json;
use serde_json::value::RawValue;

use super::config::{Mode, ToolSearch};

/// The tool that searches.
pub(crate) const SEARCH_TOOL: &str = "search_tools";
/// The tool that calls a tool found.
pub(crate) const CALL_TOOL: &str = "call_tool";

/// `call_tool`'s and `search_tools`' definitions, in name order.
pub(super) fn definitions(search: &ToolSearch) -> Vec<(&'static str, Box<RawValue>)> {
    let (what, query) = match search.mode {
        Mode::Bm25 => (
            "Finds this server's tools by what they do",
            "What the tool should do, in a few words (\"open a pull request\").",
        ),
        Mode::Regex => (
            "Finds this server's tools by a regular expression (case-insensitive) matched against their names, \
             titles, descriptions and parameters",
            "A regular expression, at most 256 bytes (\"pull.?request\").",
        ),
    };
    let search_tool = json!({
        "name": SEARCH_TOOL,
        "title": "Search tools",
        "description": format!(
            "{what}, and answers with the definitions of the best matches. This server lists only a few of its \
             tools: search before you conclude that a tool does not exist. Call a tool found with `{CALL_TOOL}`."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": query},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": search.max_results,
                    "description": format!("The most tools to answer with ({} unless given).", search.default_results()),
                },
            },
            "required": ["query"],
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"tools": {"type": "array", "items": {"type": "object"}}},
            "required": ["tools"],
        },
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
    });
    let call_tool = json!({
        "name": CALL_TOOL,
        "title": "Call a tool",
        "description": format!(
            "Calls one of this server's tools, found with `{SEARCH_TOOL}`, with its arguments: the same as \
             calling it by its name."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name, as the search gave it."},
                "arguments": {"type": "object", "description": "The tool's arguments, as its input schema says."},
            },
            "required": ["name"],
            "additionalProperties": false,
        },
    });
    let raw = |value: serde_json::Value| serde_json::value::to_raw_value(&value).expect("a JSON value serializes");
    vec![(CALL_TOOL, raw(call_tool)), (SEARCH_TOOL, raw(search_tool))]
}
