use mcp_runtime::tool;

/// Edits a note.
#[tool(scopes = [])]
async fn edit_note() -> String {
    String::new()
}

fn main() {}
