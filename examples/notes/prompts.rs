//! Prompts that put notes in front of the model.

use mcp_runtime::protocol::{ContentBlock, PromptMessage, ResourceContents, Role};
use mcp_runtime::{State, prompt};

use crate::db::{Db, DbError};
use crate::resources::complete_tag;

/// Asks for a summary of the notes, optionally only those with a tag.
#[prompt(title = "Summarize notes")]
async fn summarize_notes(
    db: State<Db>,
    /// Only notes with this tag.
    #[arg(complete = complete_tag)]
    tag: Option<String>,
) -> Result<Vec<PromptMessage>, DbError> {
    let notes = db.0.run(move |db| db.search("", tag.as_deref(), 50)).await?;
    let mut messages = vec![PromptMessage::user("Summarize these notes in a few bullet points.")];
    for note in notes {
        let text = format!("# {}\n\n{}", note.title, note.body);
        let contents = ResourceContents::text(format!("notes://{}", note.id), text).with_mime_type("text/markdown");
        messages.push(PromptMessage::new(Role::User, ContentBlock::resource(contents)));
    }
    Ok(messages)
}

/// Asks the model to draft a note on a topic, in the notebook's style.
#[prompt(title = "Draft a note")]
fn draft_note(
    /// What the note is about.
    topic: String,
) -> String {
    format!("Draft a short Markdown note about {topic}: a title line, then at most five sentences.")
}
