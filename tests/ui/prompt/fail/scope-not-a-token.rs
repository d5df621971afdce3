use mcp_runtime::prompt;

/// Summarizes the notes.
#[prompt(scopes = ["notes read"])]
async fn summary() -> String {
    String::new()
}

fn main() {}
