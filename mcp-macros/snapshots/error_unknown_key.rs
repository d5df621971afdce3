/// Adds two numbers.
#[tool(nmae = "add")]
fn add(#[arg(description = "left")] a: i64, b: i64) -> i64 {
    a + b
}
