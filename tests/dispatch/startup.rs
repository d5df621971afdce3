//! Mistakes that stop a server from starting: state a handler needs but
//! nobody provided, and two definitions with one name.

use mcp_runtime::{
    Args, BuildError, Server, State,
    entry::{PromptEntry, ResourceEntry, ToolEntry},
};

use crate::fixture::{self, AddArgs, Counter};

#[test]
fn missing_state_is_a_startup_error_naming_the_handler() {
    let line = line!() + 2;
    let server = Server::builder("s", "1")
        .tool(ToolEntry::new("count", |State(c): State<Counter>| async move {
            c.0.load(std::sync::atomic::Ordering::SeqCst)
        }))
        .build();
    let error = server.expect_err("state was never provided");
    let BuildError::MissingState { kind, name, type_name, location } = &error else { panic!("wrong error: {error}") };
    assert_eq!((*kind, name.as_str()), ("tool", "count"));
    assert!(type_name.ends_with("Counter"), "{type_name}");
    assert_eq!((location.file, location.line), (file!(), line));
    let message = error.to_string();
    assert!(message.contains("`count`") && message.contains("Counter") && message.contains(".state("), "{message}");

    let prompt = Server::builder("s", "1")
        .prompt(PromptEntry::new("p", |State(_): State<Counter>| async move { "x" }))
        .build()
        .expect_err("prompt state missing");
    assert!(matches!(&prompt, BuildError::MissingState { kind: "prompt", name, .. } if name == "p"), "{prompt}");

    let resource = Server::builder("s", "1")
        .resource(ResourceEntry::fixed("x://r", "r", |State(_): State<Counter>| async move { "x" }))
        .build()
        .expect_err("resource state missing");
    assert!(
        matches!(&resource, BuildError::MissingState { kind: "resource", name, .. } if name == "x://r"),
        "{resource}"
    );

    // Provided, it builds.
    fixture::full_builder().build().expect("state provided");
}

#[test]
fn duplicate_names_are_a_startup_error_naming_both_definitions() {
    let first_line = line!() + 1;
    let first = ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b });
    let second_line = line!() + 1;
    let second = ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a - x.b });
    let error = Server::builder("s", "1").tool(first).tool(second).build().expect_err("two tools named add");
    let BuildError::Duplicate { kind, name, first, second } = &error else { panic!("wrong error: {error}") };
    assert_eq!((*kind, name.as_str()), ("tool", "add"));
    let mut lines = [first.line, second.line];
    lines.sort_unstable();
    assert_eq!(lines, [first_line, second_line]);
    assert!(first.file.ends_with("startup.rs") && second.file.ends_with("startup.rs"));
    let message = error.to_string();
    assert!(message.contains(&format!(":{first_line}")) && message.contains(&format!(":{second_line}")), "{message}");

    let prompts = Server::builder("s", "1")
        .prompt(PromptEntry::new("p", || async { "a" }))
        .prompt(PromptEntry::new("p", || async { "b" }))
        .build()
        .expect_err("two prompts named p");
    assert!(matches!(prompts, BuildError::Duplicate { kind: "prompt", .. }));

    let resources = Server::builder("s", "1")
        .resource(ResourceEntry::fixed("x://same", "one", || async { "a" }))
        .resource(ResourceEntry::fixed("x://same", "two", || async { "b" }))
        .build()
        .expect_err("two resources at one URI");
    assert!(matches!(resources, BuildError::Duplicate { kind: "resource", .. }));

    let templates = Server::builder("s", "1")
        .resource(ResourceEntry::template("x://{id}", "one", || async { "a" }))
        .resource(ResourceEntry::template("x://{id}", "two", || async { "b" }))
        .build()
        .expect_err("two templates with one pattern");
    assert!(matches!(templates, BuildError::Duplicate { kind: "resource template", .. }));
}

#[test]
fn an_unsupported_uri_template_is_a_startup_error() {
    let error = Server::builder("s", "1")
        .resource(ResourceEntry::template("x://{?query}", "q", || async { "a" }))
        .build()
        .expect_err("query expansion is not supported");
    assert!(matches!(error, BuildError::Template { .. }), "{error}");
}

#[test]
fn a_resource_whose_uri_is_not_a_uri_is_a_startup_error() {
    let error = Server::builder("s", "1")
        .resource(ResourceEntry::fixed("notes://a b", "n", || async { "a" }))
        .build()
        .expect_err("a space is no URI character");
    assert!(matches!(error, BuildError::ResourceUri { .. }), "{error}");
    let message = error.to_string();
    assert!(message.starts_with(r#"resource "notes://a b" (at "#), "{message}");
    assert!(message.contains("is not an absolute URI (RFC 3986)"), "{message}");
}
