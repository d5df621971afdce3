use mcp_runtime::tool;

#[tool]
struct Adder;

fn main() {}
