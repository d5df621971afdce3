use mcp_runtime::{Server, prompt, tools};

/// Asks for a haiku.
#[prompt]
fn haiku() -> String {
    "Write a haiku".to_owned()
}

fn main() {
    let _ = Server::builder("demo", "1.0.0").tools(tools![haiku]);
}
