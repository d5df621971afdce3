use mcp_runtime::resource;

/// A user's profile.
#[resource("users://{id}/profile")]
fn profile() -> String {
    "profile".to_owned()
}

fn main() {}
