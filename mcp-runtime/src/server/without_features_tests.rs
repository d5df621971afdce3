//! Builds without the `session` or `tasks` feature: without `session` a
//! server serves the 2026-07-28 revision only, refuses to be built for
//! anything else, and answers `initialize` as a stateless-only server of a full
//! build does; without `tasks` it offers no extension, runs a `task` tool as
//! an ordinary call, and refuses to be built with a `task(required)` one.

#[cfg(not(feature = "session"))]
use crate::registry::error::BuildError;
#[cfg(not(feature = "session"))]
use crate::server::Eras;
use crate::server::Server;

fn builder() -> crate::ServerBuilder {
    Server::builder("stateless-only", "1.0.0")
}

#[cfg(not(feature = "session"))]
#[test]
fn the_default_is_stateless_and_the_2025_era_is_a_build_error() {
    assert_eq!(builder().build().expect("a stateless-only server").eras(), Eras::Stateless);
    for eras in [Eras::Dual, Eras::Session] {
        let error = builder().eras(eras).build().expect_err("no 2025 era without the feature");
        assert!(matches!(error, BuildError::MissingFeature { feature: "session", .. }), "{error}");
        let sentence = error.to_string();
        assert!(sentence.contains(&format!("(eras `{eras}`) needs the `session` feature")), "{sentence}");
        assert!(sentence.contains("`Eras::Stateless`"), "{sentence}");
    }
}

#[cfg(all(not(feature = "session"), feature = "stdio"))]
#[tokio::test]
async fn initialize_over_stdio_is_refused_naming_the_one_version() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let server = builder().build().expect("a stateless-only server");
    let (input, mut to_server) = tokio::io::duplex(4096);
    let (from_server, output) = tokio::io::duplex(4096);
    let serving = tokio::spawn(server.serve_io(input, from_server, Default::default()));
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    to_server.write_all(format!("{initialize}\n").as_bytes()).await.expect("written");
    let mut line = String::new();
    BufReader::new(output).read_line(&mut line).await.expect("an answer");
    let answer: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(answer["id"], 0);
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], serde_json::json!(["2026-07-28"]), "{answer}");
    assert!(answer["error"]["message"].as_str().is_some_and(|m| m.contains("does not serve `initialize`")), "{answer}");
    drop(to_server);
    serving.await.expect("no panic").expect("a clean end at end of input");
}

#[cfg(all(not(feature = "session"), feature = "http"))]
#[tokio::test]
async fn over_http_initialize_is_refused_and_no_session_is_kept() {
    use tower_service::Service as _;

    let server = builder().build().expect("a stateless-only server");
    let mut service = server.http_service(Default::default());
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let post = http::Request::post("/mcp")
        .header("host", "localhost:3000")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize.to_owned())
        .expect("a request");
    let reply = service.call(post).await.expect("infallible");
    assert_eq!(reply.status(), 400);
    assert!(reply.headers().get("mcp-session-id").is_none());
    let get = http::Request::get("/mcp")
        .header("host", "localhost:3000")
        .header("mcp-session-id", "0123")
        .body(String::new())
        .expect("a request");
    assert_eq!(service.call(get).await.expect("infallible").status(), 405);
}

#[cfg(not(feature = "tasks"))]
mod without_tasks {
    use serde_json::json;

    use super::builder;
    use crate::BuildError;
    use crate::client::{Client, Error};
    use crate::entry::ToolEntry;
    use crate::protocol::ClientCapabilities;
    use crate::tasks::{TASKS_EXTENSION, TaskSupport};

    #[test]
    fn a_tool_that_runs_only_as_a_task_is_a_build_error() {
        let export = ToolEntry::new("export", || async { "exported" }).task(TaskSupport::required());
        let error = builder().tool(export).build().expect_err("no required task without the feature");
        assert!(matches!(error, BuildError::MissingFeature { feature: "tasks", .. }), "{error}");
        let sentence = error.to_string();
        assert!(sentence.starts_with("tool `export` (at "), "{sentence}");
        assert!(sentence.contains("`task(required)`), needs the `tasks` feature"), "{sentence}");
    }

    #[tokio::test]
    async fn a_task_tool_runs_as_a_plain_call_and_the_extension_is_not_offered() {
        let export = ToolEntry::new("export", || async { "exported" }).task(TaskSupport::optional());
        let server = builder().tool(export).build().expect("an optional task tool builds");
        let client = Client::in_process(server)
            .capabilities(ClientCapabilities::default().with_extension(TASKS_EXTENSION, json!({})));
        let discovered = client.request("server/discover", json!({})).await.expect("discover");
        assert!(discovered["capabilities"].get("extensions").is_none(), "{discovered}");
        let called =
            client.request("tools/call", json!({"name": "export", "arguments": {}})).await.expect("a plain call");
        assert_eq!(called["resultType"], "complete", "{called}");
        assert_eq!(called["content"][0]["text"], "exported", "{called}");
        match client.request("tasks/get", json!({"taskId": "0123"})).await {
            Err(Error::Rpc(error)) => assert_eq!(error.code, -32601, "{error:?}"),
            other => panic!("tasks/get without the feature: {other:?}"),
        }
    }
}
