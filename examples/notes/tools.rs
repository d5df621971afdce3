//! What the model can do with the notebook.

use std::fmt::Write as _;

use mcp_runtime::auth::Principal;
use mcp_runtime::input::Elicitation;
use mcp_runtime::middleware::RateLimit;
use mcp_runtime::{CancellationToken, Input, RequestContext, State, extract::Progress, tool};

use crate::db::{Db, DbError, Note};

/// Adds a note and returns it with its number.
// At most 120 a minute per caller: a model caught in a loop fills no disk.
#[tool(scopes = ["notes:write"], annotations(destructive = false), layer = RateLimit::per_minute(120))]
async fn add_note(
    db: State<Db>,
    /// A short title.
    title: String,
    /// The text, in Markdown.
    body: String,
    /// Tags to file the note under.
    #[arg(default = Vec::new())]
    tags: Vec<String>,
    cx: RequestContext,
) -> Result<Note, DbError> {
    let note = db.0.run(move |db| db.add(&title, &body, &tags)).await?;
    cx.server().notify(mcp_runtime::events::ServerEvent::ResourcesListChanged);
    Ok(note)
}

/// Finds notes whose title or text contains the query, newest first.
#[tool(scopes = ["notes:read"], annotations(read_only, open_world = false))]
async fn search_notes(
    db: State<Db>,
    /// Words to look for (empty matches every note).
    query: String,
    /// Only notes with this tag.
    tag: Option<String>,
    #[arg(description = "How many notes at most", default = 10)] limit: u32,
) -> Result<Vec<Note>, DbError> {
    db.0.run(move |db| db.search(&query, tag.as_deref(), limit.min(100))).await
}

/// Files a note under one more tag.
#[tool(scopes = ["notes:write"], annotations(destructive = false, idempotent))]
async fn tag_note(db: State<Db>, id: i64, tag: String) -> Result<String, DbError> {
    let shown = tag.clone();
    let found = db.0.run(move |db| db.tag(id, &tag)).await?;
    Ok(if found { format!("Note {id} is tagged `{shown}`.") } else { format!("There is no note {id}.") })
}

/// Deletes a note once the user confirms, asked through the client (which
/// must support form elicitation: nothing is deleted unasked).
#[tool(scopes = ["notes:write"], annotations(destructive, idempotent))]
async fn delete_note(db: State<Db>, id: i64, input: Input, cx: RequestContext) -> Result<String, DbError> {
    delete_once_confirmed(&db.0, id, &input, &cx).await
}

/// Deletes note `id` if the user, asked through the client, confirms it;
/// what `delete_note` and the board's `remove_from_board` do.
///
/// Nothing is deleted unasked. A client that cannot put the question to
/// its user (it did not declare form elicitation) is refused with the
/// error the runtime raises when `input.elicit` is awaited without that
/// capability, and the note stays: -32021 (missing required client
/// capability, naming it) at 2026-07-28, a tool error naming it to a
/// 2025-era session, which has no such code. That error rather than a tool
/// result of our own, because it is the protocol's answer to a request
/// that needs a capability the client did not declare: a client reads it
/// by its code and knows what to declare to be asked, and every tool of
/// every server that asks says it the same way.
pub(crate) async fn delete_once_confirmed(
    db: &Db,
    id: i64,
    input: &Input,
    cx: &RequestContext,
) -> Result<String, DbError> {
    let Some(note) = db.run(move |db| db.get(id)).await? else {
        return Ok(format!("There is no note {id}."));
    };
    let question = format!("Delete note {id}, \"{}\"?", note.title);
    let answer = input.elicit("confirm", Elicitation::form(question).boolean("delete", true)).await;
    if answer.field("delete").as_deref() != Some("true") {
        return Ok(format!("Note {id} was kept."));
    }
    if db.run(move |db| db.delete(id)).await? {
        cx.server().notify(mcp_runtime::events::ServerEvent::ResourcesListChanged);
        Ok(format!("Note {id} was deleted."))
    } else {
        // Deleted by another request while the user was asked.
        Ok(format!("There is no note {id}."))
    }
}

/// Exports every note as one Markdown document, oldest first. A large
/// notebook takes a while: clients that support tasks get a task at once,
/// whose status tells how far the export got, and can cancel it.
#[tool(task, scopes = ["notes:read"], annotations(read_only, open_world = false))]
async fn export_notes(db: State<Db>, progress: Progress, cancel: CancellationToken) -> Result<String, DbError> {
    let ids = db.0.run(|db| db.ids()).await?;
    let total = ids.len();
    let mut markdown = format!("# Notes\n\n{total} notes.\n");
    for (done, id) in ids.into_iter().enumerate() {
        if cancel.is_cancelled() {
            return Ok(format!("The export stopped after {done} of {total} notes."));
        }
        // One note at a time, so that writers are not held off by a long read.
        if let Some(note) = db.0.run(move |db| db.get(id)).await? {
            let _ = write!(markdown, "\n## {}. {}\n\n", note.id, note.title);
            if !note.tags.is_empty() {
                let _ = writeln!(markdown, "Tags: {}\n", note.tags.join(", "));
            }
            let _ = writeln!(markdown, "{}", note.body.trim_end());
        }
        let exported = done + 1;
        progress.report_with_message(
            exported as f64,
            Some(total as f64),
            format!("Exported {exported} of {total} notes"),
        );
    }
    Ok(markdown)
}

/// Says who is calling: the caller an authenticated deployment verified,
/// or that the notebook is open to anyone (over stdio, or served without
/// authentication, where the scopes of the other tools are not enforced).
#[tool(annotations(read_only, open_world = false))]
async fn whoami(caller: Option<Principal>) -> String {
    match caller {
        Some(caller) => {
            let who = caller.subject().or(caller.client_id()).unwrap_or("an anonymous client");
            let scopes: Vec<&str> = caller.scopes().iter().map(String::as_str).collect();
            format!(
                "You are {who}, granted: {}.",
                if scopes.is_empty() { "no scope".to_owned() } else { scopes.join(" ") }
            )
        }
        None => "You are not authenticated: this notebook is open to anyone who can reach it.".to_owned(),
    }
}
