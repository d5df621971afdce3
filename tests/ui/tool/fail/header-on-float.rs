use mcp_runtime::tool;

/// Converts a temperature.
#[tool]
fn convert(#[arg(header = "Celsius")] celsius: f64) -> f64 {
    celsius * 1.8 + 32.0
}

fn main() {}
