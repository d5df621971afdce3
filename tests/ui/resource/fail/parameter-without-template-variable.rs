use mcp_runtime::resource;

/// A user's profile.
#[resource("users://{id}/profile")]
fn profile(id: u64, section: String) -> String {
    format!("{id}: {section}")
}

fn main() {}
