//! The one method vocabulary of both eras against the official schemas:
//! every request method a client may send in either schema is read back
//! from its name, as a method of that era.

use std::path::PathBuf;

use mcp_runtime::protocol::Method;
use serde_json::Value;

/// The `method` constants of the schema's `ClientRequest` union.
fn client_request_methods(file: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("a JSON schema");
    let definitions = schema.get("definitions").or_else(|| schema.get("$defs")).expect("definitions");
    let union = definitions["ClientRequest"]["anyOf"].as_array().expect("ClientRequest is a union");
    let methods: Vec<String> = union
        .iter()
        .map(|member| {
            let name = member["$ref"].as_str().and_then(|r| r.rsplit('/').next()).expect("a reference");
            let method = &definitions[name]["properties"]["method"]["const"];
            method.as_str().unwrap_or_else(|| panic!("{name} has no method constant")).to_owned()
        })
        .collect();
    assert!(methods.len() >= 10, "{file}: only {methods:?}");
    methods
}

/// Every request method of the schema in `file` is in the vocabulary, as
/// a method of the era `in_era` tells.
fn every_method_of(file: &str, in_era: fn(Method) -> bool) {
    for name in client_request_methods(file) {
        let method = Method::parse(&name).unwrap_or_else(|| panic!("`{name}` is not in the vocabulary"));
        assert_eq!(method.name(), name);
        assert!(in_era(method), "`{name}` is defined by {file}");
    }
}

#[test]
fn every_request_method_of_the_2026_schema_is_a_stateless_method() {
    every_method_of("schema-2026-07-28.json", Method::in_stateless_revision);
}

#[test]
fn every_request_method_of_the_2025_schema_is_a_session_method() {
    every_method_of("schema-2025-11-25.json", Method::in_session_revisions);
}

#[test]
fn a_method_is_of_an_era_only_if_that_eras_schema_or_extension_defines_it() {
    let stateless = client_request_methods("schema-2026-07-28.json");
    let session = client_request_methods("schema-2025-11-25.json");
    // The extensions' methods are in neither schema: those of tasks are
    // of 2026-07-28 alone, those of skills of both eras.
    let tasks = ["tasks/get", "tasks/update", "tasks/cancel"];
    let skills = ["skills/list", "skills/get", "resources/directory/read"];
    for &method in Method::ALL {
        let name = method.name();
        assert_eq!(
            method.in_stateless_revision(),
            stateless.iter().any(|m| m == name) || tasks.contains(&name) || skills.contains(&name),
            "`{name}`: stateless"
        );
        assert_eq!(
            method.in_session_revisions(),
            session.iter().any(|m| m == name) || skills.contains(&name),
            "`{name}`: session"
        );
    }
}
