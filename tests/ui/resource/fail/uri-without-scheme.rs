use mcp_runtime::resource;

/// The readme.
#[resource("readme")]
fn readme() -> String {
    "# Hello".to_owned()
}

fn main() {}
