//! `#[mcp_runtime::main(logging)]` installs the stderr subscriber before the
//! body runs, beside tokio's arguments: a second one is then refused.

#[mcp_runtime::main(logging, flavor = "current_thread")]
async fn main() {
    assert!(mcp_runtime::logging::init().is_err(), "the attribute installed a subscriber first");
}
