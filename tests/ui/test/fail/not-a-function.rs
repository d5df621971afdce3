#[mcp_runtime::test]
struct Fixture;

fn main() {}
