use mcp_runtime::tool;

struct Calculator;

impl Calculator {
    /// Adds two numbers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

fn main() {}
