use mcp_runtime::tool;

fn cities(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

/// Looks up the weather.
#[tool]
fn weather(#[arg(complete = cities)] city: String) -> String {
    city
}

fn main() {}
