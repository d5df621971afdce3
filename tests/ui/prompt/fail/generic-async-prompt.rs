use mcp_runtime::prompt;

/// Asks about a topic.
#[prompt]
async fn ask<'a>(topic: String) -> String {
    topic
}

fn main() {}
