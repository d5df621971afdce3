use mcp_runtime::resource;

/// One note.
#[resource("notes://{id}", scopes = ["notes:read", "notes:read"])]
async fn note(id: u32) -> String {
    id.to_string()
}

fn main() {}
