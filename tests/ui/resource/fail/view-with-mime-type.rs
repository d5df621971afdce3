use mcp_runtime::resource;

/// The board.
#[resource("ui://notes/board.html", mime_type = "text/html", view(prefers_border = true))]
fn board() -> &'static str {
    "<!doctype html><html></html>"
}

fn main() {}
