//! A gateway passes a remote tool's result on as the remote wrote it:
//! bytes in, the same bytes out, with only what the gateway must add (a
//! `resultType` a 2025-era remote leaves out, its own `_meta` where the
//! remote gave none); and what it cannot pass on (a result of no kind this
//! revision defines, blocks of no type it knows, no content) is refused,
//! naming the mount and nothing of the remote's answer.
//!
//! The remote is scripted over HTTP: a real server for everything but the
//! `tools/call`s it answers with a text written here.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use mcp_runtime::Server;
use mcp_runtime::client::{Client, Remote};
use mcp_runtime::dispatch::RequestOptions;
use mcp_runtime::entry::ToolEntry;
use mcp_tests::http_wire::STUCK;
use serde_json::{Value, json};

/// What the scripted remote answers each of its tools with: a result's
/// JSON text, as written.
const ANSWERS: &[(&str, &str)] = &[
    (
        "exact",
        r#"{"resultType":"complete","content":[{"type":"text","text":"ok","x-extra":{"n":1.50}}],"structuredContent":{"v":1.50,"big":12345678901234567890},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"},"com.example/trace":"t"}}"#,
    ),
    ("older", r#"{ "content": [{"type": "text", "text": "from 2025"}], "isError": false }"#),
    ("unnamed", r#"{"resultType":"complete","content":[],"_meta":{"com.example/trace":"t"}}"#),
    ("later", r#"{"resultType":"later","content":[]}"#),
    ("video", r#"{"resultType":"complete","content":[{"type":"video","url":"http://10.0.0.7/"}]}"#),
    ("flat", r#"{"resultType":"complete","content":{"type":"text","text":"x"}}"#),
    ("empty", r#"{"resultType":"complete"}"#),
    ("listed", r#"[{"type":"text","text":"x"}]"#),
];

/// A remote serving `ANSWERS` on loopback: its URL.
async fn scripted_remote() -> String {
    let mut real = Server::builder("scripted", "1");
    for (name, _) in ANSWERS {
        real = real.tool(ToolEntry::new(*name, || async { "never called" }));
    }
    let real = Arc::new(real.build().expect("a remote"));
    let app = axum::Router::new().route("/mcp", axum::routing::post(answer)).with_state(real);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/mcp")
}

async fn answer(State(real): State<Arc<Server>>, body: Bytes) -> axum::response::Response {
    let request: Value = serde_json::from_slice(&body).expect("JSON");
    let scripted = (request["method"] == "tools/call")
        .then(|| ANSWERS.iter().find(|(name, _)| request["params"]["name"] == *name))
        .flatten();
    let text = match scripted {
        Some((_, result)) => format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, request["id"]),
        None => real.handle_bytes(&body, RequestOptions::default()).await.expect("an answer").into_json(),
    };
    ([(http::header::CONTENT_TYPE, "application/json")], text).into_response()
}

use axum::response::IntoResponse as _;

/// A gateway mounting the scripted remote at `s`.
async fn gateway() -> Server {
    let remote = Remote::connect(Client::http(scripted_remote().await).timeout(STUCK)).await.expect("listed");
    Server::builder("gateway", "1.0.0").mount_remote("s", remote).build().expect("a gateway")
}

/// The result text the gateway answers a call of `tool` with, or its error.
async fn called(gateway: &Server, tool: &str) -> Result<String, Value> {
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    let response = gateway.handle_bytes(request.to_string().as_bytes(), RequestOptions::default()).await;
    let response = response.expect("an answer");
    match response.as_result() {
        Some(result) => Ok(result.to_owned()),
        None => Err(response.to_value()["error"].clone()),
    }
}

#[tokio::test]
async fn a_result_goes_on_as_the_remote_wrote_it() {
    let gateway = gateway().await;
    // Numbers as written, members this revision does not name, the
    // remote's own `_meta`: byte for byte.
    assert_eq!(called(&gateway, "s_exact").await, Ok(ANSWERS[0].1.to_owned()));
}

#[tokio::test]
async fn what_a_result_lacks_is_added_and_nothing_else_changes() {
    let gateway = gateway().await;
    let info = json!({"io.modelcontextprotocol/serverInfo": {"name": "gateway", "version": "1.0.0"}});
    // A 2025-era remote's result: no `resultType`, no `_meta`.
    assert_eq!(
        called(&gateway, "s_older").await,
        Ok(format!(
            r#"{{"resultType":"complete","content": [{{"type": "text", "text": "from 2025"}}], "isError": false,"_meta":{info}}}"#
        ))
    );
    // A `_meta` of the remote's that says nothing of a server: the
    // gateway's info goes beside its keys.
    let unnamed: Value = serde_json::from_str(&called(&gateway, "s_unnamed").await.expect("a result")).expect("JSON");
    assert_eq!(unnamed["_meta"]["com.example/trace"], "t");
    assert_eq!(unnamed["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "gateway");
    assert_eq!(unnamed["resultType"], "complete");
}

#[tokio::test]
async fn a_result_no_client_could_read_is_refused_without_a_word_of_it() {
    let gateway = gateway().await;
    for tool in ["s_later", "s_video", "s_flat", "s_empty", "s_listed"] {
        let error = called(&gateway, tool).await.expect_err(tool);
        assert_eq!(error["code"], -32603, "{tool}: {error}");
        assert_eq!(error["message"], "The server mounted at `s` gave a result that does not read", "{tool}");
        assert!(!error.to_string().contains("10.0.0.7"), "{tool}: {error}");
    }
}
