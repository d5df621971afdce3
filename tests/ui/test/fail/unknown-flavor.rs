//! Arguments other than `crate` are tokio's, and so are their diagnostics.

#[mcp_runtime::test(flavor = "many_threads")]
async fn counts() {
    assert_eq!(1 + 1, 2);
}

fn main() {}
