use serde_json::{Value, json};

use super::*;

/// For each rule: a schema (or tool name) that passes it and one that
/// breaks it. Every rule of the rules file must have an entry here.
fn cases(id: &str) -> (Value, Value) {
    let strict = |props: Value, required: Value| json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
    match id {
        "openai-function-name" | "anthropic-tool-name" => (json!("get_weather"), json!("notes.search")),
        "gemini-function-name" => (json!("notes.search"), json!("notes/search")),
        "openai-root-object" => (strict(json!({}), json!([])), json!({"type": "array", "items": {"type": "string"}})),
        "openai-root-not-anyof" => (
            strict(json!({}), json!([])),
            json!({"type": "object", "anyOf": [{"type": "object"}], "additionalProperties": false}),
        ),
        "openai-all-required" => (
            strict(json!({"q": {"type": "string"}}), json!(["q"])),
            strict(json!({"q": {"type": "string"}}), json!([])),
        ),
        "openai-closed-objects" => (
            strict(json!({"p": strict(json!({}), json!([]))}), json!(["p"])),
            strict(json!({"p": {"type": "object", "properties": {}}}), json!(["p"])),
        ),
        "openai-unsupported-composition" => (
            strict(json!({"n": {"anyOf": [{"type": "string"}, {"type": "null"}]}}), json!(["n"])),
            strict(json!({"n": {"allOf": [{"type": "string"}]}}), json!(["n"])),
        ),
        "openai-types" | "gemini-types" => (
            strict(json!({"n": {"type": "integer"}}), json!(["n"])),
            strict(json!({"n": {"type": "decimal"}}), json!(["n"])),
        ),
        "openai-max-properties" => {
            let many: serde_json::Map<String, Value> =
                (0..5001).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
            let names: Vec<String> = many.keys().cloned().collect();
            (strict(json!({"a": {"type": "string"}}), json!(["a"])), strict(Value::Object(many), json!(names)))
        }
        "openai-max-depth" => {
            let nest = |levels: usize| {
                let mut s = strict(json!({}), json!([]));
                for _ in 1..levels {
                    s = strict(json!({"c": s}), json!(["c"]));
                }
                s
            };
            (nest(10), nest(11))
        }
        "openai-max-enum-values" => {
            let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
            (
                strict(json!({"e": {"type": "string", "enum": ["a", "b"]}}), json!(["e"])),
                strict(json!({"e": {"type": "string", "enum": values}}), json!(["e"])),
            )
        }
        "gemini-parameter-names" => (
            json!({"type": "object", "properties": {"city_name": {"type": "string"}}}),
            json!({"type": "object", "properties": {"city-name": {"type": "string"}}}),
        ),
        "gemini-schema-fields" => (
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}),
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false}),
        ),
        "gemini-single-type" => (
            json!({"type": "object", "properties": {"n": {"type": "integer", "nullable": true}}}),
            json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}),
        ),
        "gemini-formats" => (
            json!({"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}}),
            json!({"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}}}),
        ),
        other => panic!("rule `{other}` has no passing and failing case: add one to profile/tests.rs"),
    }
}

#[test]
fn every_rule_passes_one_schema_and_rejects_another() {
    for profile in Profile::ALL {
        for rule in profile.rules() {
            let (good, bad) = cases(&rule.id);
            let applies = |v: &Value| -> Vec<Violation> {
                match v {
                    Value::String(name) => check::tool_name(rule, name).into_iter().collect(),
                    schema => check::schema(rule, schema),
                }
            };
            assert!(applies(&good).is_empty(), "{}: the passing case fails: {:?}", rule.id, applies(&good));
            let found = applies(&bad);
            assert!(!found.is_empty(), "{}: the failing case passes", rule.id);
            // Every rejection carries its citation.
            let line = found[0].to_string();
            assert!(line.contains(&rule.source.provider) && line.contains(&rule.source.read), "{line}");
        }
    }
}

#[test]
fn every_rule_is_cited_with_provider_page_and_date() {
    for profile in Profile::ALL {
        assert!(profile.rules().count() > 0, "{profile} has no rule");
        assert!(!profile.info().name.is_empty());
        for rule in profile.rules() {
            let s = &rule.source;
            assert!(!s.provider.is_empty() && !s.page.is_empty(), "{}", rule.id);
            let date: Vec<&str> = s.read.split('-').collect();
            assert!(date.len() == 3 && date.iter().all(|p| p.parse::<u32>().is_ok()), "{}: {}", rule.id, s.read);
            assert!(!s.page.contains("http") && !rule.says.contains("http"), "{}: citations carry no links", rule.id);
        }
    }
}

#[test]
fn a_tool_report_separates_name_input_and_output() {
    let tool = json!({
        "name": "notes.search",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "outputSchema": {"type": "object", "properties": {"hits": {"type": "integer"}}, "required": ["hits"]},
    });
    let openai = check_tool(Profile::OpenAi, &tool);
    assert!(!openai.accepted());
    assert_eq!(openai.tool_violations.len(), 1, "`.` is not allowed in OpenAI function names");
    assert!(openai.input.iter().any(|v| v.rule.id == "openai-all-required"));
    assert!(openai.output.iter().any(|v| v.rule.id == "openai-closed-objects"));
    let gemini = check_tool(Profile::Gemini, &tool);
    assert!(gemini.accepted(), "{:?}", gemini.input);
    let report = render_report(Profile::OpenAi, &[openai]);
    assert!(report.contains("0 of 1 tools accepted") && report.contains("rejected: notes.search"), "{report}");
}

#[test]
fn profiles_parse_from_their_ids() {
    assert_eq!("OpenAI".parse::<Profile>(), Ok(Profile::OpenAi));
    assert_eq!("gemini".parse::<Profile>(), Ok(Profile::Gemini));
    assert!("mistral".parse::<Profile>().is_err());
}

#[test]
fn fitting_makes_optional_properties_nullable_and_closes_objects() {
    let schema = json!({
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "page": {"type": "object", "properties": {"size": {"type": "integer"}}},
            "tags": {"type": "array", "items": {"type": "object", "properties": {"t": {"type": "string"}}}},
            "any": {"description": "anything"},
        },
        "required": ["q", "page", "tags"],
    });
    let fitted = fit_input_schema(Profile::OpenAi, schema.as_object().unwrap()).expect("fits");
    let s = Value::Object(fitted.schema.clone());
    assert!(check_schema(Profile::OpenAi, &s).is_empty(), "{s}");
    assert_eq!(s["properties"]["unit"]["type"], json!(["string", "null"]));
    assert_eq!(s["properties"]["unit"]["enum"], json!(["c", "f", null]));
    assert_eq!(s["properties"]["page"]["additionalProperties"], json!(false));
    assert_eq!(s["properties"]["page"]["properties"]["size"]["type"], json!(["integer", "null"]));
    let mut args =
        json!({"q": "x", "unit": null, "any": null, "page": {"size": null}, "tags": [{"t": null}, {"t": "a"}]});
    fitted.nulls.strip(&mut args);
    assert_eq!(args, json!({"q": "x", "page": {}, "tags": [{}, {"t": "a"}]}));
}

#[test]
fn fitting_refuses_what_no_rewrite_can_satisfy() {
    let map = json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}}}, "required": ["m"]});
    let error = fit_input_schema(Profile::OpenAi, map.as_object().unwrap()).expect_err("a map cannot be closed");
    assert!(error.to_string().contains("/properties/m: an object with free-form keys"), "{error}");

    let recursive = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "required": ["tree"],
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
    });
    let error = fit_input_schema(Profile::OpenAi, recursive.as_object().unwrap()).expect_err("recursive optional");
    assert!(error.to_string().contains("/$defs/Node/properties/next: an optional property under `$defs`"), "{error}");

    let composed = json!({"type": "object", "properties": {"x": {"allOf": [{"type": "string"}]}}, "required": ["x"]});
    let error = fit_input_schema(Profile::OpenAi, composed.as_object().unwrap()).expect_err("allOf");
    assert!(error.to_string().contains("openai-unsupported-composition"), "{error}");

    // Gemini has no rule the fitter can satisfy by rewriting: a type list stays refused.
    let nullable = json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}});
    let error = fit_input_schema(Profile::Gemini, nullable.as_object().unwrap()).expect_err("type list");
    assert!(error.to_string().contains("gemini-single-type"), "{error}");
}
