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
