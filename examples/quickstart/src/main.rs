//! A calculator served over Streamable HTTP at http://127.0.0.1:3000/mcp.

use mcp_runtime::tool;

/// A point on the plane.
#[mcp_runtime::derives(Deserialize, Serialize, JsonSchema)]
struct Point {
    /// Distance along the horizontal axis.
    x: f64,
    /// Distance along the vertical axis.
    y: f64,
}

/// Adds two numbers.
#[tool(annotations(read_only))]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The point halfway between two points.
#[tool(annotations(read_only))]
async fn midpoint(from: Point, to: Point) -> Point {
    Point { x: (from.x + to.x) / 2.0, y: (from.y + to.y) / 2.0 }
}

#[mcp_runtime::main(logging)] // logs on stderr, filtered by RUST_LOG (default info)
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcp_runtime::server!() // every #[tool], #[resource], #[prompt] linked into the binary
        .serve() // http://127.0.0.1:3000/mcp, or --stdio, --http ADDR, MCP_* variables (--help)
        .await?; // duplicate names and missing state stop it before it serves
    Ok(())
}
