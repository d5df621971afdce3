//! Two functions registering one tool name: the server refuses to start and
//! names both definitions.

mod first {
    /// One `add`.
    #[mcp_runtime::tool(name = "add")]
    pub(crate) fn add(a: i64, b: i64) -> i64 {
        a + b
    }
}

mod second {
    /// Another `add`.
    #[mcp_runtime::tool(name = "add")]
    pub(crate) fn plus(a: i64, b: i64) -> i64 {
        a + b
    }
}

#[test]
fn a_duplicate_name_is_a_startup_error_naming_both_locations() {
    let error = match mcp_runtime::server!().build() {
        Ok(_) => panic!("two tools named `add` were accepted"),
        Err(e) => e,
    };
    let message = error.to_string();
    assert!(message.starts_with("duplicate tool `add`: defined at "), "{message}");
    assert!(message.contains("macros_duplicates.rs:7 (in `macros_duplicates::first`)"), "{message}");
    assert!(message.contains("macros_duplicates.rs:15 (in `macros_duplicates::second`)"), "{message}");
    // The explicit list finds the same conflict.
    let explicit = mcp_runtime::Server::builder("t", "1").tools(mcp_runtime::tools![first::add, second::plus]).build();
    assert!(explicit.is_err());
}

#[test]
fn mixing_server_with_an_explicit_list_says_that_server_holds_every_entry_already() {
    let error = match mcp_runtime::server!().tools(mcp_runtime::tools![first::add]).build() {
        Ok(_) => panic!("`add` listed twice was accepted"),
        Err(e) => e,
    };
    let message = error.to_string();
    assert!(message.contains("`server!()` holds every `#[tool]` linked into the binary already"), "{message}");
}

#[test]
fn every_problem_is_reported_at_once() {
    use mcp_runtime::{BuildError, State, entry::ToolEntry};

    let error = match mcp_runtime::server!()
        .tool(ToolEntry::new("count", |State(n): State<u32>| async move { n }))
        .tool(ToolEntry::new("a b", || async { 1 }))
        .build()
    {
        Ok(_) => panic!("three problems were accepted"),
        Err(e) => e,
    };
    let problems = error.problems();
    assert!(matches!(error, BuildError::Several { .. }), "{error}");
    assert_eq!(problems.len(), 3, "{error}");
    assert!(problems.iter().any(|p| matches!(p, BuildError::MissingState { name, .. } if name == "count")), "{error}");
    assert!(problems.iter().any(|p| matches!(p, BuildError::ToolName { name, .. } if name == "a b")), "{error}");
    assert!(problems.iter().any(|p| matches!(p, BuildError::Duplicate { name, .. } if name == "add")), "{error}");
    assert!(error.to_string().starts_with("3 problems stop this server from being built:\n  1. "), "{error}");
}
