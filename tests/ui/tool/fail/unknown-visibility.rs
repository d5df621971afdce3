use mcp_runtime::tool;

/// Refreshes the board.
#[tool(view = "ui://notes/board.html", visibility = user)]
fn refresh_board() -> String {
    "refreshed".to_owned()
}

fn main() {}
