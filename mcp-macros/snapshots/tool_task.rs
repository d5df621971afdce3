/// Renders the report, which takes a while.
#[tool(task(required, input_first))]
async fn render(input: Input) -> String {
    input.answer("go").map(ToString::to_string).unwrap_or_default()
}
