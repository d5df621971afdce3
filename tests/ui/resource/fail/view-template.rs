use mcp_runtime::resource;

/// A board per tag.
#[resource("ui://notes/{tag}/board.html", view)]
fn board(tag: String) -> String {
    format!("<!doctype html><html><body>{tag}</body></html>")
}

fn main() {}
