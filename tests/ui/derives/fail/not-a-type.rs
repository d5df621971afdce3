#[mcp_runtime::derives(Deserialize, JsonSchema)]
fn point() {}

fn main() {}
