use mcp_runtime::resource;

/// The read-me.
#[resource("docs://readme", annotations(audience = ["robot"]))]
fn readme() -> String {
    "# Read me".to_owned()
}

fn main() {}
