use serde_json::{Value, json};

use super::*;

fn tool(input: Value) -> Value {
    json!({"name": "t", "description": "A tool.", "inputSchema": input})
}

fn with_tools(tools: Vec<Value>) -> Value {
    json!({"discover": {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}}}, "tools": tools})
}

fn object(props: Value, required: Value) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

/// The single change between two catalogs holding one tool each.
fn only_change(old: Value, new: Value) -> Change {
    let d = diff(&with_tools(vec![old]), &with_tools(vec![new]));
    assert_eq!(d.changes.len(), 1, "{:#?}", d.changes);
    d.changes.into_iter().next().unwrap()
}

fn assert_class(change: &Change, class: Class, what: &str) {
    assert_eq!((change.class, change.what.as_str()), (class, what), "{change:?}");
}

#[test]
fn identical_catalogs_have_no_changes() {
    let c = with_tools(vec![tool(object(json!({"a": {"type": "string"}}), json!(["a"])))]);
    let d = diff(&c, &c);
    assert!(d.changes.is_empty() && !d.is_breaking());
    assert_eq!(d.render(), "### Tool API: no changes\n");
}

#[test]
fn removals_break_and_additions_do_not() {
    let a = json!({"name": "a", "inputSchema": {"type": "object"}});
    let b = json!({"name": "b", "inputSchema": {"type": "object"}});
    let d = diff(&with_tools(vec![a.clone()]), &with_tools(vec![b]));
    assert_eq!(d.changes[0], Change { class: Class::Breaking, subject: "tool `a`".into(), what: "removed".into() });
    assert_eq!(d.changes[1], Change { class: Class::Compatible, subject: "tool `b`".into(), what: "added".into() });

    let prompt = json!({"prompts": [{"name": "p", "arguments": []}]});
    assert_eq!(diff(&prompt, &json!({})).changes[0].to_string(), "prompt `p`: removed");
    let resource = json!({"resources": [{"uri": "notes://all", "name": "all"}]});
    assert!(diff(&resource, &json!({})).is_breaking());
    let template = json!({"resourceTemplates": [{"uriTemplate": "notes://{id}", "name": "note"}]});
    assert_eq!(diff(&template, &json!({})).changes[0].subject, "resource template `notes://{id}`");
}

#[test]
fn arguments_added_as_required_break_optional_ones_do_not() {
    let old = tool(object(json!({"a": {"type": "string"}}), json!(["a"])));
    let required = tool(object(json!({"a": {"type": "string"}, "b": {"type": "string"}}), json!(["a", "b"])));
    let optional = tool(object(json!({"a": {"type": "string"}, "b": {"type": "string"}}), json!(["a"])));
    assert_class(&only_change(old.clone(), required), Class::Breaking, "argument `b` added as required");
    assert_class(&only_change(old.clone(), optional.clone()), Class::Compatible, "optional argument `b` added");
    assert_class(&only_change(optional, old), Class::Breaking, "argument `b` removed");
    let made_required = tool(object(json!({"a": {"type": "string"}}), json!(["a"])));
    let was_optional = tool(object(json!({"a": {"type": "string"}}), json!([])));
    assert_class(
        &only_change(was_optional.clone(), made_required.clone()),
        Class::Breaking,
        "argument `a` made required",
    );
    assert_class(&only_change(made_required, was_optional), Class::Compatible, "argument `a` made optional");
}

#[test]
fn narrowed_types_break_widened_ones_do_not() {
    let number = tool(object(json!({"n": {"type": "number"}}), json!(["n"])));
    let integer = tool(object(json!({"n": {"type": "integer"}}), json!(["n"])));
    assert_class(
        &only_change(number.clone(), integer.clone()),
        Class::Breaking,
        "type of `n` number → integer (narrowed)",
    );
    assert_class(&only_change(integer, number), Class::Compatible, "type of `n` integer → number (widened)");
    let bounded = tool(object(json!({"n": {"type": "number", "maximum": 10}}), json!(["n"])));
    let tighter = tool(object(json!({"n": {"type": "number", "maximum": 5}}), json!(["n"])));
    assert_class(&only_change(bounded, tighter), Class::Breaking, "`maximum` of `n` 10 → 5");
}

#[test]
fn enum_values_removed_break_added_ones_do_not() {
    let two = tool(object(json!({"u": {"type": "string", "enum": ["c", "f"]}}), json!(["u"])));
    let one = tool(object(json!({"u": {"type": "string", "enum": ["c"]}}), json!(["u"])));
    assert_class(&only_change(two.clone(), one.clone()), Class::Breaking, "enum value \"f\" of `u` removed");
    assert_class(&only_change(one, two), Class::Compatible, "enum value \"f\" of `u` added");
}

#[test]
fn output_schemas_break_when_they_widen() {
    let out = |schema: Value| json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema});
    let both = out(object(json!({"a": {"type": "integer"}, "b": {"type": "string"}}), json!(["a", "b"])));
    let fewer = out(object(json!({"a": {"type": "integer"}}), json!(["a"])));
    let maybe = out(object(json!({"a": {"type": "integer"}, "b": {"type": "string"}}), json!(["a"])));
    assert_class(&only_change(both.clone(), fewer.clone()), Class::Breaking, "output field `b` removed");
    assert_class(&only_change(fewer, both.clone()), Class::Compatible, "output field `b` added");
    assert_class(&only_change(both.clone(), maybe), Class::Breaking, "output field `b` may now be absent");
    let wider = out(object(json!({"a": {"type": "number"}, "b": {"type": "string"}}), json!(["a", "b"])));
    assert_class(&only_change(both.clone(), wider), Class::Breaking, "type of `a` integer → number (widened)");
    let none = json!({"name": "t", "inputSchema": {"type": "object"}});
    assert_class(
        &only_change(both.clone(), none.clone()),
        Class::Breaking,
        "outputSchema removed (structured results no longer promised)",
    );
    assert_class(&only_change(none, both), Class::Compatible, "outputSchema added");
}

#[test]
fn annotations_made_more_dangerous_break() {
    let hinted = |a: Value| json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": a});
    let read_only = hinted(json!({"readOnlyHint": true}));
    let writes = hinted(json!({"readOnlyHint": false}));
    assert_class(
        &only_change(read_only.clone(), writes.clone()),
        Class::Breaking,
        "annotation readOnlyHint true → false (more dangerous)",
    );
    assert_class(&only_change(writes, read_only), Class::Compatible, "annotation readOnlyHint false → true (safer)");
    // Absent means the protocol's default: destructiveHint true.
    let safe = hinted(json!({"destructiveHint": false}));
    let unsaid = hinted(json!({}));
    assert_class(
        &only_change(safe, unsaid),
        Class::Breaking,
        "annotation destructiveHint false → true (more dangerous)",
    );
}

#[test]
fn descriptions_and_titles_are_compatible() {
    let old = tool(object(json!({"a": {"type": "string", "description": "A."}}), json!(["a"])));
    let mut new = tool(object(json!({"a": {"type": "string", "description": "The a."}}), json!(["a"])));
    new["description"] = json!("A better tool.");
    let d = diff(&with_tools(vec![old]), &with_tools(vec![new]));
    assert!(!d.is_breaking(), "{:#?}", d.changes);
    let text = d.render();
    assert!(text.starts_with("### Tool API: 0 breaking, 2 compatible"), "{text}");
    assert!(
        text.contains("- tool `t`: `description` of `a` changed") && text.contains("- tool `t`: `description` changed"),
        "{text}"
    );
}

#[test]
fn prompt_arguments_and_server_capabilities() {
    let p = |args: Value| json!({"prompts": [{"name": "p", "arguments": args}]});
    let old = p(json!([{"name": "code", "required": true}]));
    let new = p(json!([{"name": "code", "required": true}, {"name": "lang", "required": true}]));
    assert_eq!(diff(&old, &new).changes[0].what, "argument `lang` added as required");
    assert!(diff(&old, &new).is_breaking());
    let new = p(json!([{"name": "code", "required": true}, {"name": "lang"}]));
    assert!(!diff(&old, &new).is_breaking());

    let caps = |c: Value, v: Value| json!({"discover": {"supportedVersions": v, "capabilities": c}});
    let old = caps(json!({"tools": {"listChanged": true}, "logging": {}}), json!(["2025-11-25", "2026-07-28"]));
    let new = caps(json!({"tools": {}}), json!(["2026-07-28"]));
    let whats: Vec<String> = diff(&old, &new).changes.into_iter().map(|c| c.what).collect();
    assert_eq!(
        whats,
        [
            "protocol version 2025-11-25 no longer supported",
            "capability `logging` removed",
            "capability `tools.listChanged` turned off"
        ]
    );
}

#[test]
fn a_scope_added_is_breaking_and_one_removed_compatible() {
    let entry = |key: &str, scopes: Value| {
        let mut item = json!({key: "x", "inputSchema": {"type": "object"}});
        if !scopes.is_null() {
            item["scopes"] = scopes;
        }
        item
    };
    for (list, key, subject) in
        [("tools", "name", "tool `x`"), ("prompts", "name", "prompt `x`"), ("resources", "uri", "resource `x`")]
    {
        let snapshot = |scopes: Value| json!({list: [entry(key, scopes)]});
        let added = diff(&snapshot(Value::Null), &snapshot(json!(["notes:write"])));
        assert!(added.is_breaking(), "{list}");
        assert_eq!(added.changes.len(), 1, "{:#?}", added.changes);
        assert_eq!(added.changes[0].subject, subject);
        assert_eq!(added.changes[0].what, "scope `notes:write` now required (callers without it lose access)");
        let removed = diff(&snapshot(json!(["a", "b"])), &snapshot(json!(["b"])));
        assert!(!removed.is_breaking(), "{:#?}", removed.changes);
        assert_eq!(removed.changes[0].what, "scope `a` no longer required");
        assert!(diff(&snapshot(json!(["a"])), &snapshot(json!(["a"]))).changes.is_empty());
    }
}
