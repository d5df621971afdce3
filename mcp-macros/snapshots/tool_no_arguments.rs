/// Returns a short text.
#[tool(name = "test_simple_text")]
fn simple_text() -> &'static str {
    "This is a simple text response for testing."
}
