//! A build without the `legacy` feature: it serves the 2026-07-28 revision
//! only, refuses to be built for anything else, and answers `initialize` as
//! a modern-only server of a full build does.

use crate::registry::error::BuildError;
use crate::server::{Eras, Server};

fn builder() -> crate::ServerBuilder {
    Server::builder("modern-only", "1.0.0")
}

#[test]
fn the_default_is_modern_and_the_2025_era_is_a_build_error() {
    assert_eq!(builder().build().expect("a modern-only server").eras(), Eras::Modern);
    for eras in [Eras::Dual, Eras::Legacy] {
        let error = builder().eras(eras).build().expect_err("no 2025 era without the feature");
        assert!(matches!(error, BuildError::MissingFeature { feature: "legacy", .. }), "{error}");
        let sentence = error.to_string();
        assert!(sentence.contains(&format!("(eras `{eras}`) needs the `legacy` feature")), "{sentence}");
        assert!(sentence.contains("`Eras::Modern`"), "{sentence}");
    }
}

#[cfg(feature = "stdio")]
#[tokio::test]
async fn initialize_over_stdio_is_refused_naming_the_one_version() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let server = builder().build().expect("a modern-only server");
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

#[cfg(feature = "http")]
#[tokio::test]
async fn over_http_initialize_is_refused_and_no_session_is_kept() {
    use tower_service::Service as _;

    let server = builder().build().expect("a modern-only server");
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
