//! How a 2025-era session's results are written: the [`ResultShape`] the
//! bridge gives the dispatcher for each request, one per version, leaving
//! out what the version does not know (structured output, titles, icons,
//! tool execution).

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::dispatch::ResultShape;
use crate::protocol::{CallToolResult, ProtocolVersion};

/// The results of a session on one version.
struct SessionResults(ProtocolVersion);

/// The shape of the results of a session on `version`.
pub(crate) fn results_for(version: ProtocolVersion) -> &'static dyn ResultShape {
    match version {
        ProtocolVersion::V2025_03_26 => &SessionResults(ProtocolVersion::V2025_03_26),
        ProtocolVersion::V2025_06_18 => &SessionResults(ProtocolVersion::V2025_06_18),
        // The newest session revision: a later one opens no session.
        _ => &SessionResults(ProtocolVersion::V2025_11_25),
    }
}

impl ResultShape for SessionResults {
    fn version(&self) -> ProtocolVersion {
        self.0
    }

    fn tool_result(&self, result: &mut CallToolResult) {
        call(self.0, result);
    }

    fn list_items(&self, key: &str, items: &[&RawValue]) -> Option<Vec<Box<RawValue>>> {
        list_items(self.0, key, items)
    }
}

/// A tool's result for a session on `version`: structured content only
/// where the version has it and as an object (the 2025-era schema wants
/// one; a 2026-07-28 tool may answer any type, whose value is in the text
/// block as well).
fn call(version: ProtocolVersion, result: &mut CallToolResult) {
    if !version.has_structured_output() || result.structured_content.as_ref().is_some_and(|c| !c.is_object()) {
        result.structured_content = None;
    }
}

/// The definitions of a list (`key` names it) for a session on `version`,
/// where any of them differs from the stateless definition; `None` when
/// all are sent as they are. Made once per catalog and version: the
/// snapshot keeps them.
fn list_items(version: ProtocolVersion, key: &str, items: &[&RawValue]) -> Option<Vec<Box<RawValue>>> {
    let tools = key == "tools";
    let touched = |item: &RawValue| {
        let text = item.get().as_bytes();
        let has = |member: &[u8]| memchr::memmem::find(text, member).is_some();
        (tools && has(b"\"outputSchema\""))
            || (!version.knows_icons() && has(b"\"icons\""))
            || (!version.has_tool_execution() && has(b"\"execution\""))
            || (tools && !version.knows_titles() && has(b"\"title\""))
    };
    if !items.iter().any(|item| touched(item)) {
        return None;
    }
    let shaped = items.iter().map(|item| {
        if !touched(item) {
            return (*item).to_owned();
        }
        let Ok(Value::Object(mut definition)) = serde_json::from_str::<Value>(item.get()) else {
            return (*item).to_owned();
        };
        list_item(version, tools, &mut definition);
        serde_json::value::to_raw_value(&definition).unwrap_or_else(|_| (*item).to_owned())
    });
    Some(shaped.collect())
}

/// One definition of a list, for a session on `version`.
fn list_item(version: ProtocolVersion, tool: bool, definition: &mut Map<String, Value>) {
    if tool {
        let object_root =
            definition.get("outputSchema").and_then(|s| s.get("type")).and_then(Value::as_str) == Some("object");
        if !object_root || !version.has_structured_output() {
            definition.remove("outputSchema");
        }
        if !version.knows_titles() {
            definition.remove("title");
        }
    }
    if !version.knows_icons() {
        definition.remove("icons");
    }
    if !version.has_tool_execution() {
        definition.remove("execution");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const NEWEST: ProtocolVersion = ProtocolVersion::V2025_11_25;
    const OLDEST: ProtocolVersion = ProtocolVersion::V2025_03_26;

    fn shaped(version: ProtocolVersion, key: &str, item: Value) -> Value {
        let raw = serde_json::value::to_raw_value(&item).unwrap();
        match list_items(version, key, &[&raw]) {
            Some(items) => serde_json::from_str(items[0].get()).unwrap(),
            None => item,
        }
    }

    #[test]
    fn newer_members_are_left_out_for_older_versions() {
        let tool = json!({"name": "a", "title": "A", "inputSchema": {"type": "object"}, "icons": [{"src": "x"}],
                          "execution": {"taskSupport": "optional"}});
        assert_eq!(shaped(NEWEST, "tools", tool.clone()), tool);
        assert_eq!(
            shaped(ProtocolVersion::V2025_06_18, "tools", tool.clone()),
            json!({"name": "a", "title": "A", "inputSchema": {"type": "object"}})
        );
        assert_eq!(shaped(OLDEST, "tools", tool), json!({"name": "a", "inputSchema": {"type": "object"}}));
        let prompt = json!({"name": "p", "title": "P", "icons": []});
        assert_eq!(shaped(OLDEST, "prompts", prompt.clone()), json!({"name": "p", "title": "P"}));
        assert_eq!(shaped(NEWEST, "prompts", prompt.clone()), prompt);
    }

    #[test]
    fn output_that_is_not_an_object_is_left_to_the_text_block() {
        let array = json!({"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}});
        assert!(shaped(NEWEST, "tools", array).get("outputSchema").is_none());
        let object = json!({"name": "b", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}});
        assert_eq!(shaped(NEWEST, "tools", object.clone()), object);
        assert!(shaped(OLDEST, "tools", object).get("outputSchema").is_none());

        let mut call = CallToolResult::structured(json!([1, 2]));
        super::call(NEWEST, &mut call);
        assert_eq!(call.structured_content, None);
        let mut call = CallToolResult::structured(json!({"a": 1}));
        super::call(NEWEST, &mut call);
        assert!(call.structured_content.is_some());
        super::call(OLDEST, &mut call);
        assert_eq!(call.structured_content, None);
    }
}
