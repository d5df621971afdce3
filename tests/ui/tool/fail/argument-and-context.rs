use mcp_runtime::{RequestContext, tool};

/// Says who is asking.
#[tool]
fn whoami(#[arg] #[ctx] cx: RequestContext) -> String {
    format!("{:?}", cx.client_info())
}

fn main() {}
