/// A prompt with two arguments.
#[prompt(name = "test_prompt_with_arguments")]
fn with_arguments(
    #[arg(description = "First argument", complete = complete_arg1)] arg1: String,
    arg2: Option<u32>,
) -> String {
    format!("{arg1} {arg2:?}")
}
