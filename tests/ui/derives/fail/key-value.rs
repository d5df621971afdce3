#[mcp_runtime::derives(Deserialize, rename_all = "camelCase")]
struct Point {
    x: i64,
}

fn main() {}
