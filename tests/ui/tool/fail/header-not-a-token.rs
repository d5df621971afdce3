use mcp_runtime::tool;

/// Looks up the weather.
#[tool]
fn weather(#[arg(header = "Region Code")] region: String) -> String {
    region
}

fn main() {}
