use mcp_runtime::resource;

/// The board.
#[resource("ui://notes/board.html", view(conect_domains = ["https://api.example.com"], clipboard_write = true))]
fn board() -> &'static str {
    "<!doctype html><html></html>"
}

fn main() {}
