use mcp_runtime::tool;

// schemars 0.8's `JsonSchema` is not the schemars 1 trait the runtime needs.
#[derive(serde::Serialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
struct Note {
    title: String,
}

/// The first note.
#[tool]
fn first() -> Note {
    Note { title: "first".into() }
}

fn main() {}
