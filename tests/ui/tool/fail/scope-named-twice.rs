use mcp_runtime::tool;

/// Edits a note.
#[tool(scopes = ["notes:write", "notes:read", "notes:write"])]
async fn edit_note() -> String {
    String::new()
}

fn main() {}
