use mcp_runtime::resource;

/// The read-me.
#[resource("docs://readme")]
fn readme(language: String) -> String {
    language
}

fn main() {}
