use mcp_runtime::resource;

/// The board.
#[resource("ui://notes/board.html", view(connect_domains = ["https://api.example.com/v1"], frame_domains = ["https://*.example.com"]))]
fn board() -> &'static str {
    "<!doctype html><html></html>"
}

fn main() {}
