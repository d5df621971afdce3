use std::rc::Rc;

use mcp_runtime::tool;

/// Holds a non-`Send` value across an await.
#[tool]
async fn counter() -> usize {
    let shared = Rc::new(1);
    std::future::ready(()).await;
    *shared
}

fn main() {}
