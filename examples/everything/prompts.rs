//! Prompts: plain, with arguments (and their completion), with an embedded
//! resource, with an image, and one that asks the client for input.

use mcp_runtime::input::Elicitation;
use mcp_runtime::protocol::{ContentBlock, PromptMessage, ResourceContents, Role};
use mcp_runtime::{Input, prompt};

use crate::fixtures::PIXEL_PNG;

/// A prompt without arguments.
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

fn complete_arg1(typed: &str) -> Vec<String> {
    ["paris", "park", "parrot", "london"].into_iter().filter(|v| v.starts_with(typed)).map(str::to_owned).collect()
}

/// A prompt with two required arguments.
#[prompt]
fn test_prompt_with_arguments(
    /// The first argument.
    #[arg(complete = complete_arg1)]
    arg1: String,
    /// The second argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource.
#[prompt]
fn test_prompt_with_embedded_resource(
    /// The URI of the resource to embed.
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(
            Role::User,
            ContentBlock::resource(
                ResourceContents::text(&resource_uri, "Embedded resource content for testing.")
                    .with_mime_type("text/plain"),
            ),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, ContentBlock::image(PIXEL_PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// A prompt that first asks the user for context.
#[prompt]
async fn test_input_required_result_prompt(input: Input) -> String {
    let answer =
        input.elicit("user_context", Elicitation::form("What should the prompt be about?").text("context", true)).await;
    format!("Write about: {}", answer.field("context").unwrap_or_else(|| "anything".into()))
}
