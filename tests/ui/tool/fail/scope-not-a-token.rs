use mcp_runtime::tool;

/// Edits a note: every scope here breaks RFC 6749, each reported at its literal.
#[tool(scopes = ["notes write", "say\"hi\"", "back\\slash", "", "é"])]
async fn edit_note() -> String {
    String::new()
}

fn main() {}
