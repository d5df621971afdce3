use mcp_runtime::resource;

/// One note.
#[resource("notes://{id}", size = 1024)]
fn note(id: u64) -> String {
    id.to_string()
}

fn main() {}
