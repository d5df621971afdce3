use mcp_runtime::prompt;

struct Snippet {
    code: String,
}

/// Asks for a review.
#[prompt]
fn review(snippet: Snippet) -> String {
    snippet.code
}

fn main() {}
