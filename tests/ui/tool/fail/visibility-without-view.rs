use mcp_runtime::tool;

/// Refreshes the board.
#[tool(visibility = app)]
fn refresh_board() -> String {
    "refreshed".to_owned()
}

fn main() {}
