use mcp_runtime::tool;

const WRITE: &str = "notes:write";

/// Edits a note: scopes are literals, checked at compile time.
#[tool(scopes = [WRITE], description = "Edits.")]
async fn edit_note() -> String {
    String::new()
}

/// Reads a note.
#[tool(scopes = "notes:read")]
async fn read_note() -> String {
    String::new()
}

fn main() {}
