use mcp_runtime::tool;

struct Database;

/// Counts the rows.
#[tool]
fn rows(#[ctx] db: Database) -> u64 {
    let _ = db;
    0
}

fn main() {}
