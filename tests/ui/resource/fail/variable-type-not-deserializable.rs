use mcp_runtime::resource;

struct UserId(u64);

/// A user.
#[resource("users://{id}")]
fn user(id: UserId) -> String {
    id.0.to_string()
}

fn main() {}
