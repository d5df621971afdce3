use mcp_runtime::tool;

#[derive(Debug)]
struct ParseFailure;

/// Parses a number.
#[tool]
fn parse(text: String) -> Result<i64, ParseFailure> {
    text.parse().map_err(|_| ParseFailure)
}

fn main() {}
