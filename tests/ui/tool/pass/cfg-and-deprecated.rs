//! `#[cfg]` on an annotated function also removes what is generated beside
//! it, and calling a deprecated function from the adapter warns nobody.
#![deny(warnings)]

use mcp_runtime::tool;

/// Compiled out, together with its descriptor.
#[tool]
#[cfg(any())]
fn hidden() -> String {
    this_function_does_not_exist()
}

/// Deprecated, yet still served.
#[deprecated(note = "use a newer tool")]
#[tool]
fn old() -> i64 {
    1
}

fn main() {
    let server = mcp_runtime::server!("cfg", "1.0.0").build();
    assert_eq!(server.map(|s| s.tools().count()).ok(), Some(1));
}
