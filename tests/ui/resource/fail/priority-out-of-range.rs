use mcp_runtime::resource;

/// The read-me.
#[resource("docs://readme", annotations(priority = 2.5))]
fn readme() -> String {
    "# Read me".to_owned()
}

fn main() {}
