use mcp_runtime::resource;

/// A user's profile of some kind.
#[resource("users://{userId}/{type}/{user.name}")]
fn profile(user_id: String) -> String {
    user_id
}

fn main() {}
