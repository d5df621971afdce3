use mcp_runtime::tool;

struct Report {
    lines: usize,
}

/// Counts lines.
#[tool]
fn count(text: String) -> Report {
    Report { lines: text.lines().count() }
}

fn main() {}
