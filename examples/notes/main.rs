//! A small notebook as an MCP server: tools to add, search, tag and delete
//! notes, notes as resources (with templates and completion), and prompts.
//! Its data lives in a SQLite file created on first run; the tasks of
//! `export_notes` (for clients of the tasks extension) in another beside it
//! (`notes.tasks.db`), so that an export's result outlives a restart.
//!
//! ```text
//! cargo run -p examples --bin notes                        # HTTP at http://127.0.0.1:3000/mcp, ./notes.db
//! cargo run -p examples --bin notes -- --stdio --db /tmp/n.db
//! cargo run -p examples --bin notes -- --issuer https://auth.example.com   # HTTP needs a bearer token
//! ```
//!
//! Hosts that render interactive views (MCP Apps) show `show_board` as a
//! board of notes (`board.rs`, `board.html`): filter by tag, add, delete.
//!
//! The tools that change the notebook declare the OAuth scope `notes:write`,
//! those that read it and the notes as resources `notes:read`; `whoami`
//! shows the caller. The scopes are enforced only when the server is
//! authenticated (a layer in front verifies tokens and the builder says so
//! with `authenticated_by_layer`): as it runs here every tool is usable,
//! and serving it over HTTP logs a warning saying so.
//!
//! Deployment settings (Redis, the shared `requestState` key, probes...)
//! come from flags or `MCP_*` variables: see the README and `mcp_runtime::deployment`.

mod board;
mod db;
#[path = "../observability.rs"]
mod observability;
mod prompts;
mod resources;
mod tools;

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use mcp_runtime::deployment::Deployment;
use mcp_runtime::tasks::SqliteTaskStore;

use crate::db::Db;

const USAGE: &str = "usage: notes [--db PATH] [deployment settings]";

/// The database file, from the arguments that are no deployment setting.
fn database(args: &[String]) -> anyhow::Result<PathBuf> {
    match args {
        [] => Ok(PathBuf::from("notes.db")),
        [flag, path] if flag == "--db" => Ok(path.into()),
        [flag] if flag == "--db" => bail!("--db needs a file path"),
        [other, ..] => bail!("unknown argument `{other}`\n{USAGE}\n\n{}", Deployment::usage()),
    }
}

/// Everything this server serves; its catalog is committed as
/// `notes/catalog.json` (see the test below and `--dump-catalog`).
fn server_builder(db: Db) -> mcp_runtime::ServerBuilder {
    mcp_runtime::server!("notes", env!("CARGO_PKG_VERSION"))
        .title("Notes")
        .instructions("A notebook. Search before adding, to avoid duplicates; notes are also readable as notes://{id}.")
        // One log line per request: who did what, how it ended, how long it took.
        .layer(mcp_runtime::middleware::Audit::new())
        .state(db)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _telemetry = observability::init("notes")?;
    // `--stdio`, `--http ADDR`, `MCP_REDIS_URL`... (the README's table);
    // what it leaves is this server's own.
    let deployment = Deployment::from_process()?;
    if deployment.wants_help() {
        let own = format!("{USAGE}\n\n  --db PATH                    the notebook's SQLite file (notes.db)\n");
        std::io::Write::write_all(&mut std::io::stdout(), own.as_bytes())?;
    }
    let path = database(deployment.args())?;
    // A catalog dump (or the help) needs the state the tools declare, not
    // the notes: no file is created for it.
    let serves = !deployment.dumps_catalog() && !deployment.wants_help();
    let db = if !serves {
        Db::open(std::path::Path::new(":memory:"))?
    } else {
        Db::open(&path).with_context(|| format!("opening {}", path.display()))?
    };
    let mut builder = server_builder(db);
    if serves {
        // Tasks (`export_notes`) outlive a restart, in a file beside the
        // notes; replicas sharing Redis keep them there instead (the
        // deployment replaces this store then).
        let tasks = path.with_extension("tasks.db");
        let store = SqliteTaskStore::open(&tasks).with_context(|| format!("opening {}", tasks.display()))?;
        builder = builder.task_store(store);
        tracing::info!(db = %path.display(), "notes are kept in this database");
    }
    deployment.serve(builder).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use mcp_runtime::client::{Client, Error};
    use mcp_runtime::protocol::{CallToolResult, ClientCapabilities, ElicitResult, ResourceBody};
    use serde_json::json;

    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn own_flags_and_deployment_flags_mix() {
        let env = [("MCP_REDIS_URL", "redis://127.0.0.1:6379/")];
        let deployment =
            Deployment::parse(args(&["--db", "/tmp/n.db", "--http", "0.0.0.0:3000", "--health"]), env).expect("valid");
        assert_eq!(database(deployment.args()).expect("a path"), PathBuf::from("/tmp/n.db"));
        assert_eq!(deployment.redis_url(), Some("redis://127.0.0.1:6379/"));
        let message = database(&args(&["--nope"])).expect_err("unknown").to_string();
        assert!(message.starts_with("unknown argument `--nope`\nusage: notes"), "{message}");
        assert_eq!(database(&[]).expect("a default"), PathBuf::from("notes.db"));
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn export_notes_runs_as_a_task_whose_result_is_the_notebook_in_markdown() {
        use mcp_runtime::tasks::{MemoryTaskStore, TASKS_EXTENSION};

        let db = Db::open(std::path::Path::new(":memory:")).expect("an in-memory notebook");
        db.add("Groceries", "Eggs, flour.", &["home".to_owned()]).expect("added");
        let server = server_builder(db).task_store(MemoryTaskStore::new()).build().expect("builds");
        let client = Client::in_process(server)
            .capabilities(ClientCapabilities::default().with_extension(TASKS_EXTENSION, json!({})));
        // The result is a task, not the tool's result: read as it came.
        let call = json!({"name": "export_notes", "arguments": {}});
        let created = client.request("tools/call", call).await.expect("a task");
        assert_eq!(created["resultType"], "task", "{created}");
        let task = loop {
            let task = client.request("tasks/get", json!({"taskId": created["taskId"]})).await.expect("the task");
            if task["status"] != "working" {
                break task;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        };
        assert_eq!(task["status"], "completed", "{task}");
        let markdown = task["result"]["content"][0]["text"].as_str().expect("text");
        assert!(markdown.starts_with("# Notes\n\n2 notes."), "{markdown}");
        assert!(markdown.contains("## 2. Groceries\n\nTags: home\n\nEggs, flour."), "{markdown}");
    }

    #[tokio::test]
    async fn the_board_is_a_view_served_from_the_binary_with_its_tools() {
        use mcp_runtime::apps::{EXTENSION, MIME_TYPE};

        let db = Db::open(std::path::Path::new(":memory:")).expect("an in-memory notebook");
        db.add("Groceries", "Eggs, flour.", &["home".to_owned()]).expect("added");
        db.add("Talk", "Slides.", &["work".to_owned()]).expect("added");
        let server = server_builder(db).build().expect("builds");
        let renders = ClientCapabilities::default().with_extension(EXTENSION, json!({"mimeTypes": [MIME_TYPE]}));
        let host = Client::in_process(server.clone()).capabilities(renders);

        let read = host.read_resource("ui://notes/board.html").await.expect("the view");
        let ResourceBody::Text(html) = &read.contents[0].body else { panic!("HTML: {read:?}") };
        assert_eq!(read.contents[0].mime_type.as_deref(), Some(MIME_TYPE));
        assert!(html.starts_with("<!doctype html>") && html.contains("ui/initialize"));
        // Everything inlined: hosts and tests may be offline.
        assert!(!html.contains("src=") && !html.contains("<link") && !html.contains("import "), "nothing fetched");

        let shown = host.call_tool("show_board", json!({"tag": "home"})).await.expect("the board");
        assert_eq!(shown.first_text(), Some("1 notes on the board."));
        let board = shown.structured_content.as_ref().expect("the board's data");
        assert_eq!(board["notes"][0]["title"], "Groceries");
        let groceries = board["notes"][0]["id"].as_i64().expect("an id");
        let tags = board["tags"].as_array().expect("the tags");
        assert!(tags.contains(&json!("home")) && tags.contains(&json!("work")), "{tags:?}");
        let plain = Client::in_process(server.clone());
        let listed = plain.call_tool("show_board", json!({})).await.expect("the board, as text");
        let text = listed.first_text().expect("text");
        assert!(text.contains(&format!("- Groceries (#{groceries}): home")), "{text}");

        // The board's delete button: the host asks its user, who confirms.
        let before = host.call_tool("show_board", json!({})).await.expect("the board");
        let count = |board: &CallToolResult| {
            board.structured_content.as_ref().and_then(|data| data["notes"].as_array()).map_or(0, Vec::len)
        };
        let confirming = Client::in_process(server)
            .capabilities(renders_and_asks())
            .on_elicitation(|_| async { ElicitResult::accept(json!({"delete": true})) });
        let removed = confirming.call_tool("remove_from_board", json!({"id": groceries})).await.expect("removed");
        assert_eq!(removed.first_text(), Some(format!("Note {groceries} was deleted.").as_str()));
        let after = host.call_tool("show_board", json!({})).await.expect("the board");
        assert_eq!(count(&after), count(&before) - 1);
    }

    /// What a host that renders views and asks its user declares.
    fn renders_and_asks() -> ClientCapabilities {
        use mcp_runtime::apps::{EXTENSION, MIME_TYPE};
        let renders = ClientCapabilities::default().with_extension(EXTENSION, json!({"mimeTypes": [MIME_TYPE]}));
        let mut declared = serde_json::to_value(renders).expect("JSON");
        declared["elicitation"] = json!({"form": {}});
        serde_json::from_value(declared).expect("capabilities")
    }

    /// A notebook with one note of ours, its server, and the note's id.
    fn notebook() -> (Db, mcp_runtime::Server, i64) {
        let db = Db::open(std::path::Path::new(":memory:")).expect("an in-memory notebook");
        let note = db.add("Groceries", "Eggs, flour.", &["home".to_owned()]).expect("added");
        let server = server_builder(db.clone()).build().expect("builds");
        (db, server, note.id)
    }

    /// `call` was refused as a request that needs elicitation, which the
    /// client did not declare.
    fn refused_for_want_of_elicitation(call: Result<CallToolResult, Error>) {
        match call {
            Err(Error::Rpc(error)) => {
                assert_eq!(error.code, -32021, "{error:?}");
                let required = error.data.as_ref().map(|d| d["requiredCapabilities"].clone());
                assert_eq!(required, Some(json!({"elicitation": {"form": {}}})), "{error:?}");
            }
            other => panic!("refused with -32021, not {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_client_that_cannot_ask_its_user_deletes_no_note_through_delete_note() {
        let (db, server, id) = notebook();
        refused_for_want_of_elicitation(Client::in_process(server).call_tool("delete_note", json!({"id": id})).await);
        assert!(db.get(id).expect("read").is_some(), "the note was deleted unasked");
    }

    #[tokio::test]
    async fn a_client_calling_the_app_only_remove_from_board_itself_deletes_no_note_unconfirmed() {
        let (db, server, id) = notebook();
        // Any client may call it, whatever its visibility says: one that cannot ask is refused...
        let plain = Client::in_process(server.clone());
        refused_for_want_of_elicitation(plain.call_tool("remove_from_board", json!({"id": id})).await);
        assert!(db.get(id).expect("read").is_some(), "the note was deleted unasked");
        // ...one that can is asked, and a user who declines keeps the note...
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let questions = std::sync::Arc::clone(&asked);
        let declining = Client::in_process(server.clone()).on_elicitation(move |request| {
            questions.lock().unwrap().push(serde_json::to_value(request).expect("JSON"));
            async { ElicitResult::decline() }
        });
        let kept = declining.call_tool("remove_from_board", json!({"id": id})).await.expect("answered");
        assert_eq!(kept.first_text(), Some(format!("Note {id} was kept.").as_str()));
        assert!(db.get(id).expect("read").is_some(), "the note was deleted though the user declined");
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert_eq!(asked[0]["message"], format!("Delete note {id}, \"Groceries\"?"), "{asked:?}");
        // ...and one who confirms deletes it.
        let confirming =
            Client::in_process(server).on_elicitation(|_| async { ElicitResult::accept(json!({"delete": true})) });
        let removed = confirming.call_tool("remove_from_board", json!({"id": id})).await.expect("answered");
        assert_eq!(removed.first_text(), Some(format!("Note {id} was deleted.").as_str()));
        assert!(db.get(id).expect("read").is_none());
    }

    #[test]
    fn the_catalog_matches_its_committed_snapshot() {
        let db = Db::open(std::path::Path::new(":memory:")).expect("an in-memory notebook");
        let server = server_builder(db).build().expect("builds");
        mcp_runtime::testing::assert_catalog_snapshot(&server, "notes/catalog.json");
    }
}
