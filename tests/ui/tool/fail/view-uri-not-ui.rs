use mcp_runtime::tool;

/// Shows the board.
#[tool(view = "notes/board.html")]
fn show_board() -> String {
    "3 notes".to_owned()
}

fn main() {}
