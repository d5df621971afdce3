use mcp_runtime::tool;

/// Says hello.
#[tool]
fn hello() -> impl std::fmt::Display {
    "hello"
}

fn main() {}
