use mcp_runtime::resource;

/// The readme.
#[resource("docs://readme", annotations(last_modified = "yesterday"))]
fn readme() -> String {
    "# Hello".to_owned()
}

fn main() {}
