use mcp_runtime::{RequestContext, tool};

/// The method's name.
#[tool]
fn method(cx: &RequestContext) -> &str {
    cx.method()
}

fn main() {}
