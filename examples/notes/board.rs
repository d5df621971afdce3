//! The notebook as a board: an interactive view (MCP Apps) that hosts which
//! render views show beside the conversation, with the tools bound to it.
//! The view is plain HTML and JavaScript compiled into the binary
//! (`board.html`), with nothing loaded from elsewhere.

use mcp_runtime::protocol::{CallToolResult, ContentBlock};
use mcp_runtime::{Input, RequestContext, State, resource, tool};
use serde_json::json;

use crate::db::{Db, DbError};

/// The board's URI.
const BOARD: &str = "ui://notes/board.html";

/// The notebook as a board of notes, with a tag filter, a form to add one
/// and a button to delete each.
#[resource("ui://notes/board.html", name = "board", title = "Notes board", view(prefers_border = true))]
fn board() -> &'static str {
    include_str!("board.html")
}

/// Shows the notes on a board, newest first (only those with `tag`, if given).
#[tool(view = "ui://notes/board.html", scopes = ["notes:read"], annotations(read_only, open_world = false))]
async fn show_board(db: State<Db>, tag: Option<String>, cx: RequestContext) -> Result<CallToolResult, DbError> {
    let filter = tag.clone();
    let notes = db.0.run(move |db| db.search("", filter.as_deref(), 100)).await?;
    let tags = db.0.run(|db| db.tags()).await?;
    // A client that shows the board needs a line; one that does not gets the notes.
    let text = if cx.client_renders_views() {
        format!("{} notes on the board.", notes.len())
    } else if notes.is_empty() {
        "The board is empty.".to_owned()
    } else {
        notes.iter().map(|n| format!("- {} (#{}): {}", n.title, n.id, n.tags.join(", "))).collect::<Vec<_>>().join("\n")
    };
    let mut result = CallToolResult::structured(json!({ "notes": notes, "tags": tags, "tag": tag, "view": BOARD }));
    result.content = vec![ContentBlock::text(text)];
    Ok(result)
}

/// Takes a note off the board (deletes it) once the user confirms: for
/// the board's delete button, the host asking the user as `delete_note`
/// does (a client that cannot ask is refused, and the note stays).
// Asking here too, though the view's user has just clicked: being for the
// view only (`visibility = app`) is advice to hosts, which do not offer the
// tool to the model, not a gate; any client may call it.
#[tool(
    view = "ui://notes/board.html",
    visibility = app,
    scopes = ["notes:write"],
    annotations(destructive, idempotent)
)]
async fn remove_from_board(db: State<Db>, id: i64, input: Input, cx: RequestContext) -> Result<String, DbError> {
    crate::tools::delete_once_confirmed(&db.0, id, &input, &cx).await
}
