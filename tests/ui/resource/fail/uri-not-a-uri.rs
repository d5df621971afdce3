use mcp_runtime::resource;

/// The readme.
#[resource("docs://read me")]
fn readme() -> String {
    "# Hello".to_owned()
}

fn main() {}
