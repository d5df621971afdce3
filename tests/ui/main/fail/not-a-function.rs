#[mcp_runtime::main]
struct Main;

fn main() {}
