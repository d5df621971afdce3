use mcp_runtime::prompt;

/// Asks for a review.
#[prompt]
fn review(#[arg(header = "Code")] code: String) -> String {
    code
}

fn main() {}
