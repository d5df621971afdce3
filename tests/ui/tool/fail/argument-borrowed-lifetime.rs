use std::borrow::Cow;

use mcp_runtime::tool;

/// Echoes.
#[tool]
async fn echo(text: Cow<'_, str>) -> String {
    text.into_owned()
}

fn main() {}
