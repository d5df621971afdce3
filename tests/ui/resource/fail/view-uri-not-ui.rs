use mcp_runtime::resource;

/// The board.
#[resource("https://example.com/board.html", view)]
fn board() -> &'static str {
    "<!doctype html><html></html>"
}

fn main() {}
