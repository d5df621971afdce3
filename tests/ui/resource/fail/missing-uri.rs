use mcp_runtime::resource;

/// The read-me.
#[resource(name = "readme")]
fn readme() -> String {
    "# Read me".to_owned()
}

fn main() {}
