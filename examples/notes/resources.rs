//! Notes as resources: an index, each note, and each tag's notes.

use mcp_runtime::{State, extract::CompleteCall, outcome::NotFound, resource};

use crate::db::{Db, DbError};

/// Every note, as a Markdown list of links.
#[resource("notes://index", name = "index", mime_type = "text/markdown", scopes = ["notes:read"])]
async fn index(db: State<Db>) -> Result<String, DbError> {
    let notes = db.0.run(|db| db.search("", None, 1000)).await?;
    let mut text = String::from("# Notes\n\n");
    for note in notes {
        text.push_str(&format!("- [{}](notes://{}) {}\n", note.title, note.id, note.tags.join(", ")));
    }
    Ok(text)
}

async fn complete_id(call: CompleteCall) -> Vec<String> {
    let Some(db) = mcp_runtime::extract::Call::context(&call).state::<Db>() else { return Vec::new() };
    let typed = call.value().to_owned();
    let ids = db.run(|db| db.ids()).await.unwrap_or_default();
    ids.into_iter().map(|id| id.to_string()).filter(|id| id.starts_with(&typed)).collect()
}

pub(crate) async fn complete_tag(call: CompleteCall) -> Vec<String> {
    let Some(db) = mcp_runtime::extract::Call::context(&call).state::<Db>() else { return Vec::new() };
    let typed = call.value().to_lowercase();
    let tags = db.run(|db| db.tags()).await.unwrap_or_default();
    tags.into_iter().filter(|t| t.starts_with(&typed)).collect()
}

/// One note, in Markdown.
#[resource("notes://{id}", name = "note", mime_type = "text/markdown", scopes = ["notes:read"])]
async fn note(db: State<Db>, #[arg(complete = complete_id)] id: i64) -> Result<Result<String, NotFound>, DbError> {
    let note = db.0.run(move |db| db.get(id)).await?;
    Ok(note.map(|n| format!("# {}\n\n{}\n\nTags: {}\n", n.title, n.body, n.tags.join(", "))).ok_or(NotFound))
}

/// The notes filed under a tag, as a Markdown list.
#[resource("notes://tags/{tag}", name = "tag", mime_type = "text/markdown", scopes = ["notes:read"])]
async fn tag(db: State<Db>, #[arg(complete = complete_tag)] tag: String) -> Result<String, DbError> {
    let shown = tag.clone();
    let notes = db.0.run(move |db| db.search("", Some(&tag), 1000)).await?;
    let mut text = format!("# Notes tagged `{shown}`\n\n");
    for note in notes {
        text.push_str(&format!("- [{}](notes://{})\n", note.title, note.id));
    }
    Ok(text)
}
