use mcp_runtime::prompt;

fn languages(count: u32) -> Vec<String> {
    vec![count.to_string()]
}

/// Asks for a review.
#[prompt]
fn review(code: String, #[arg(complete = languages)] language: String) -> String {
    format!("{language}: {code}")
}

fn main() {}
