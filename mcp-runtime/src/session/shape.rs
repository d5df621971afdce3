//! What changes between a 2026-07-28 answer and the same answer to a
//! 2025-era session, beyond the shape its results are written in
//! (`results.rs`): a missing client capability is said otherwise, a
//! missing resource gets that era's own code, and our requests to the
//! client take the form its version reads.

use serde_json::{Map, Value};

use crate::protocol::{ErrorObject, Method, ProtocolVersion};

/// `-32002`: the 2025-era code for a resource that does not exist.
pub(crate) const RESOURCE_NOT_FOUND: i32 = -32002;

/// `-32021` (a client capability is missing) belongs to the stateless
/// revision: on a session, where a client without the capability is simply
/// not asked, a tool's call becomes a tool error the model can read, and
/// any other request an internal error. Other errors pass unchanged.
pub(crate) fn missing_capability(method: Option<Method>, error: ErrorObject) -> Result<Value, ErrorObject> {
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
    if method == Some(Method::ToolsCall) {
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
pub(crate) fn error(method: Option<Method>, error: &mut ErrorObject) {
    let names_a_uri = error.data.as_ref().and_then(|d| d.get("uri")).is_some();
    if method == Some(Method::ResourcesRead)
        && error.code == -32602
        && names_a_uri
        && error.message.starts_with("Resource not found")
    {
        error.code = RESOURCE_NOT_FOUND;
    }
}

/// Rewrites the params of a request the server makes of the client: the
/// 2025-era form elicitation has no `mode` (every version reads it as a form).
pub(crate) fn client_request(version: ProtocolVersion, method: &str, params: &mut Value) {
    if method != "elicitation/create" {
        return;
    }
    let Some(params) = params.as_object_mut() else { return };
    if params.get("mode").and_then(Value::as_str) == Some("form") {
        params.remove("mode");
    }
    if !version.has_titled_choices()
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
        client_request(ProtocolVersion::V2025_06_18, "elicitation/create", &mut older);
        let fields = &older["requestedSchema"]["properties"];
        assert!(fields["name"].get("default").is_none());
        assert_eq!(fields["subscribed"]["default"], true);
        assert_eq!(fields["size"], json!({"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}));
        let mut newest = form();
        client_request(ProtocolVersion::V2025_11_25, "elicitation/create", &mut newest);
        assert_eq!(newest["requestedSchema"], form()["requestedSchema"]);
    }

    #[test]
    fn a_missing_capability_is_a_tool_error_or_an_internal_one() {
        let missing = || ErrorObject { code: -32021, message: "Needs elicitation".into(), data: None };
        let call = missing_capability(Some(Method::ToolsCall), missing()).unwrap();
        assert_eq!(call["isError"], true);
        assert!(call["content"][0]["text"].as_str().unwrap().starts_with("Needs elicitation"));
        assert_eq!(missing_capability(Some(Method::PromptsGet), missing()).unwrap_err().code, -32603);
        let other = ErrorObject::invalid_params("x");
        assert_eq!(missing_capability(Some(Method::ToolsCall), other.clone()).unwrap_err(), other);
    }

    #[test]
    fn a_missing_capability_is_named_as_a_client_declares_it() {
        let text = |required: Value| {
            let error = ErrorObject::missing_client_capability("This request needs client capabilities", required);
            let call = missing_capability(Some(Method::ToolsCall), error).unwrap();
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
        error(Some(Method::ResourcesRead), &mut e);
        assert_eq!(e.code, RESOURCE_NOT_FOUND);
        let mut other = ErrorObject::invalid_params("Unknown tool");
        error(Some(Method::ToolsCall), &mut other);
        assert_eq!(other.code, -32602);
    }

    #[test]
    fn form_elicitations_lose_their_mode() {
        let mut params = json!({"mode": "form", "message": "m", "requestedSchema": {}});
        client_request(ProtocolVersion::V2025_11_25, "elicitation/create", &mut params);
        assert_eq!(params, json!({"message": "m", "requestedSchema": {}}));
        let mut url = json!({"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"});
        client_request(ProtocolVersion::V2025_11_25, "elicitation/create", &mut url.clone());
        client_request(ProtocolVersion::V2025_11_25, "elicitation/create", &mut url);
        assert_eq!(url["mode"], "url");
    }
}
