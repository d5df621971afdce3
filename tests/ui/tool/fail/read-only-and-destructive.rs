use mcp_runtime::tool;

/// Deletes a note.
#[tool(annotations(read_only, destructive))]
fn delete(id: u64) -> String {
    format!("deleted {id}")
}

fn main() {}
