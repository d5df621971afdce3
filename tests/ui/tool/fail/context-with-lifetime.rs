use mcp_runtime::{RequestContext, tool};

/// Who calls.
#[tool]
async fn who(cx: &'static RequestContext) -> String {
    cx.method().to_owned()
}

fn main() {}
