//! `#[derives]` and `#[main]` with the runtime reachable only as `renamed`:
//! `::mcp_runtime` names this crate itself, so a generated path that forgot
//! `crate = ...` would fail to resolve.

extern crate self as mcp_runtime;
extern crate mcp_runtime as renamed;

use renamed::tool;

/// A pair of numbers.
#[renamed::derives(Debug, Deserialize, Serialize, JsonSchema, crate = ::renamed)]
struct Pair {
    a: i64,
    b: i64,
}

/// Swaps a pair.
#[tool(crate = ::renamed)]
fn swap(pair: Pair) -> Pair {
    Pair { a: pair.b, b: pair.a }
}

#[renamed::main(crate = ::renamed, flavor = "current_thread")]
async fn main() {
    let server = renamed::Server::builder("renamed", "1.0.0").tools(renamed::tools![swap]).build();
    assert!(server.is_ok());
    let pair: Pair = renamed::serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap();
    assert_eq!(format!("{:?}", swap(pair)), "Pair { a: 2, b: 1 }");
}
