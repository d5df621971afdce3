//! What changes between a 2026-07-28 answer and the same answer to a
//! 2025-era session: results lose the members that revision added
//! (`resultType`, cache hints, the per-result server info), fields a
//! negotiated older version does not know are left out, and a missing
//! resource gets that era's own code.

use serde_json::{Map, Value};

use crate::protocol::{ErrorObject, META_SERVER_INFO, Method};

/// `-32002`: the 2025-era code for a resource that does not exist.
pub(crate) const RESOURCE_NOT_FOUND: i32 = -32002;

/// Rewrites a 2026-07-28 result for a session on `version`.
pub(crate) fn result(version: &str, method: &str, result: &mut Map<String, Value>) {
    result.remove("resultType");
    result.remove("ttlMs");
    result.remove("cacheScope");
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.remove(META_SERVER_INFO);
        if meta.is_empty() {
            result.remove("_meta");
        }
    }
    // The 2025-era schema wants an object at the root of an output schema
    // and as structured content; a 2026-07-28 tool may declare any type.
    // Its value is in the text block as well, so those are left out.
    if let Some(Value::Array(tools)) = result.get_mut("tools") {
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            let object_root =
                tool.get("outputSchema").and_then(|s| s.get("type")).and_then(Value::as_str) == Some("object");
            if !object_root {
                tool.remove("outputSchema");
            }
        }
    }
    if method == Method::ToolsCall.name() && result.get("structuredContent").is_some_and(|c| !c.is_object()) {
        result.remove("structuredContent");
    }
    if version == "2025-11-25" {
        return;
    }
    // Icons arrived with 2025-11-25.
    for list in ["tools", "prompts", "resources", "resourceTemplates"] {
        if let Some(Value::Array(items)) = result.get_mut(list) {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                item.remove("icons");
                item.remove("execution");
            }
        }
    }
    if version == "2025-03-26" {
        // Titles and structured output arrived with 2025-06-18.
        if let Some(Value::Array(tools)) = result.get_mut("tools") {
            for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                tool.remove("title");
                tool.remove("outputSchema");
            }
        }
        if method == Method::ToolsCall.name() {
            result.remove("structuredContent");
        }
    }
}

/// `-32021` (a client capability is missing) belongs to the stateless
/// revision: on a session, where a client without the capability is simply
/// not asked, a tool's call becomes a tool error the model can read, and
/// any other request an internal error. Other errors pass unchanged.
pub(crate) fn missing_capability(method: &str, error: ErrorObject) -> Result<Value, ErrorObject> {
    if error.code != -32021 {
        return Err(error);
    }
    // The session has no `data` to read them from: the text names them.
    let required = error.data.as_ref().and_then(|d| d.get("requiredCapabilities")).and_then(Value::as_object);
    let names = required.map(capability_names).unwrap_or_default();
    let text = match names.as_slice() {
        [] => format!("{} (the client did not declare it when the session began)", error.message),
        [one] => format!(
            "This request needs the client capability {one}, which the client did not declare when the session began"
        ),
        [first @ .., last] => format!(
            "This request needs the client capabilities {} and {last}, which the client did not declare when the session began",
            first.join(", ")
        ),
    };
    if method == Method::ToolsCall.name() {
        return Ok(serde_json::json!({ "content": [{ "type": "text", "text": text }], "isError": true }));
    }
    Err(ErrorObject::internal(text))
}

/// The capabilities of a `requiredCapabilities` object, each as the dotted
/// path a client declares (`sampling.tools`), in backticks, sorted. Form
/// elicitation is plain `elicitation`: an empty `elicitation` object
/// declares it in every revision that has elicitation, and revisions before
/// 2025-11-25 have no `form` member.
fn capability_names(required: &Map<String, Value>) -> Vec<String> {
    fn walk(object: &Map<String, Value>, path: &str, names: &mut Vec<String>) {
        for (key, value) in object {
            let path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            match value.as_object().filter(|inner| !inner.is_empty()) {
                Some(inner) => walk(inner, &path, names),
                None if path == "elicitation.form" => names.push("`elicitation`".to_owned()),
                None => names.push(format!("`{path}`")),
            }
        }
    }
    let mut names = Vec::new();
    walk(required, "", &mut names);
    // In one order whatever the map's.
    names.sort();
    names
}

/// Rewrites a 2026-07-28 error for a 2025-era session.
pub(crate) fn error(method: &str, error: &mut ErrorObject) {
    let names_a_uri = error.data.as_ref().and_then(|d| d.get("uri")).is_some();
    if method == Method::ResourcesRead.name()
        && error.code == -32602
        && names_a_uri
        && error.message.starts_with("Resource not found")
    {
        error.code = RESOURCE_NOT_FOUND;
    }
}

/// Rewrites the params of a request the server makes of the client: the
/// 2025-era form elicitation has no `mode` (every version reads it as a form).
pub(crate) fn client_request(version: &str, method: &str, params: &mut Value) {
    if method != "elicitation/create" {
        return;
    }
    let Some(params) = params.as_object_mut() else { return };
    if params.get("mode").and_then(Value::as_str) == Some("form") {
        params.remove("mode");
    }
    if version != "2025-11-25"
        && let Some(Value::Object(fields)) = params.get_mut("requestedSchema").and_then(|s| s.get_mut("properties"))
    {
        fields.values_mut().filter_map(Value::as_object_mut).for_each(older_form_field);
    }
}

/// A form field as clients before 2025-11-25 read it: a default only on a
/// boolean, and a titled choice (`oneOf` of `const` and `title`) as the
/// `enum` with `enumNames` they know.
fn older_form_field(field: &mut Map<String, Value>) {
    if field.get("type").and_then(Value::as_str) != Some("boolean") {
        field.remove("default");
    }
    let Some(Value::Array(choices)) = field.get("oneOf") else { return };
    let values: Option<Vec<Value>> = choices.iter().map(|c| c.get("const").cloned()).collect();
    let names: Vec<Value> =
        choices.iter().map(|c| c.get("title").or_else(|| c.get("const")).cloned().unwrap_or(Value::Null)).collect();
    if let Some(values) = values {
        field.remove("oneOf");
        field.insert("enum".to_owned(), Value::Array(values));
        field.insert("enumNames".to_owned(), Value::Array(names));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn shaped(version: &str, method: &str, value: Value) -> Value {
        let Value::Object(mut map) = value else { unreachable!() };
        result(version, method, &mut map);
        Value::Object(map)
    }

    #[test]
    fn the_members_of_the_stateless_revision_are_removed() {
        let modern = json!({
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
            "tools": [{"name": "a", "inputSchema": {"type": "object"}, "icons": [{"src": "x"}]}],
            "_meta": {META_SERVER_INFO: {"name": "s", "version": "1"}},
        });
        let expected = json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}, "icons": [{"src": "x"}]}]});
        assert_eq!(shaped("2025-11-25", "tools/list", modern.clone()), expected);
        let older = shaped("2025-06-18", "tools/list", modern);
        assert_eq!(older, json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}));
    }

    #[test]
    fn other_meta_keys_stay() {
        let modern = json!({"content": [], "_meta": {META_SERVER_INFO: {}, "trace": 1}});
        assert_eq!(shaped("2025-11-25", "tools/call", modern), json!({"content": [], "_meta": {"trace": 1}}));
    }

    #[test]
    fn the_oldest_version_gets_no_titles_or_structured_output() {
        let call = json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(shaped("2025-03-26", "tools/call", call.clone()), json!({"content": []}));
        assert_eq!(shaped("2025-06-18", "tools/call", call.clone()), call);
    }

    #[test]
    fn output_that_is_not_an_object_is_left_to_the_text_block() {
        let list = json!({"tools": [
            {"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
            {"name": "b", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}},
        ]});
        let shaped_list = shaped("2025-11-25", "tools/list", list);
        assert!(shaped_list["tools"][0].get("outputSchema").is_none());
        assert_eq!(shaped_list["tools"][1]["outputSchema"], json!({"type": "object"}));
        let call = json!({"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": [1, 2]});
        assert_eq!(shaped("2025-11-25", "tools/call", call), json!({"content": [{"type": "text", "text": "[1,2]"}]}));
        let object = json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(shaped("2025-11-25", "tools/call", object.clone()), object);
    }

    #[test]
    fn older_clients_get_forms_they_can_read() {
        let form = || {
            json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "Ann"},
                "subscribed": {"type": "boolean", "default": true},
                "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            }}})
        };
        let mut older = form();
        client_request("2025-06-18", "elicitation/create", &mut older);
        let fields = &older["requestedSchema"]["properties"];
        assert!(fields["name"].get("default").is_none());
        assert_eq!(fields["subscribed"]["default"], true);
        assert_eq!(fields["size"], json!({"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}));
        let mut newest = form();
        client_request("2025-11-25", "elicitation/create", &mut newest);
        assert_eq!(newest["requestedSchema"], form()["requestedSchema"]);
    }

    #[test]
    fn a_missing_capability_is_a_tool_error_or_an_internal_one() {
        let missing = || ErrorObject { code: -32021, message: "Needs elicitation".into(), data: None };
        let call = missing_capability("tools/call", missing()).unwrap();
        assert_eq!(call["isError"], true);
        assert!(call["content"][0]["text"].as_str().unwrap().starts_with("Needs elicitation"));
        assert_eq!(missing_capability("prompts/get", missing()).unwrap_err().code, -32603);
        let other = ErrorObject::invalid_params("x");
        assert_eq!(missing_capability("tools/call", other.clone()).unwrap_err(), other);
    }

    #[test]
    fn a_missing_capability_is_named_as_a_client_declares_it() {
        let text = |required: Value| {
            let error = ErrorObject::missing_client_capability("This request needs client capabilities", required);
            let call = missing_capability("tools/call", error).unwrap();
            call["content"][0]["text"].as_str().unwrap().to_owned()
        };
        assert_eq!(
            text(json!({"elicitation": {"form": {}}})),
            "This request needs the client capability `elicitation`, which the client did not declare when the session began"
        );
        assert!(text(json!({"elicitation": {"url": {}}})).contains(" capability `elicitation.url`, "));
        assert!(text(json!({"sampling": {}})).contains(" capability `sampling`, "));
        assert!(
            text(json!({"sampling": {"tools": {}, "context": {}}}))
                .contains(" capabilities `sampling.context` and `sampling.tools`, ")
        );
        assert!(
            text(json!({"elicitation": {"form": {}}, "roots": {}, "sampling": {}}))
                .contains(" capabilities `elicitation`, `roots` and `sampling`, ")
        );
    }

    #[test]
    fn a_missing_resource_is_32002() {
        let mut e = ErrorObject::resource_not_found("test://nothing");
        error("resources/read", &mut e);
        assert_eq!(e.code, RESOURCE_NOT_FOUND);
        let mut other = ErrorObject::invalid_params("Unknown tool");
        error("tools/call", &mut other);
        assert_eq!(other.code, -32602);
    }

    #[test]
    fn form_elicitations_lose_their_mode() {
        let mut params = json!({"mode": "form", "message": "m", "requestedSchema": {}});
        client_request("2025-11-25", "elicitation/create", &mut params);
        assert_eq!(params, json!({"message": "m", "requestedSchema": {}}));
        let mut url = json!({"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"});
        client_request("2025-11-25", "elicitation/create", &mut url.clone());
        client_request("2025-11-25", "elicitation/create", &mut url);
        assert_eq!(url["mode"], "url");
    }
}
