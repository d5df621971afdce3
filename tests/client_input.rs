//! The client answers a server's requests for input with its callbacks,
//! in either era and over either transport: in 2026-07-28 by answering the
//! `input_required` result and calling again, in a 2025-era session by
//! answering the server's request on its stream. Without a callback, the
//! result is `Error::InputRequired` (2026-07-28), the request refused
//! (2025).

use mcp_runtime::client::{Client, Error, Revision};
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::input::{Elicitation, Root, Sampling};
use mcp_runtime::protocol::{CreateMessageResult, ElicitRequest, ElicitResult};
use mcp_runtime::server::Eras;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Input, Server};
use serde_json::json;

fn server() -> Server {
    Server::builder("input-test", "1.0.0")
        .eras(Eras::Dual)
        .tool(ToolEntry::new("greet", |input: Input| async move {
            let answer = input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
            format!("Hello, {}!", answer.field("name").unwrap_or_else(|| "nobody".to_owned()))
        }))
        .tool(ToolEntry::new("summarize", |input: Input| async move {
            let sampled = input.sample("text", Sampling::prompt("Summarize: a long text", 100)).await;
            let roots = input.roots("roots").await;
            format!("{} ({} roots)", sampled.text().unwrap_or("none"), roots.len())
        }))
        .build()
        .expect("a server")
}

/// `server` served over HTTP on a port of its own; its URL.
async fn serve(server: Server) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    url
}

async fn over_http() -> Client {
    Client::http(serve(server()).await)
}

/// A gateway serving the remote behind `remote` as `namespace`, over HTTP; its URL.
async fn gateway(namespace: &str, remote: Client) -> String {
    let remote = mcp_runtime::client::Remote::connect(remote).await.expect("connected");
    serve(Server::builder("gateway", "1.0.0").mount_remote(namespace, remote).build().expect("a gateway")).await
}

/// Checks that clients of either era of the gateway at `url` get the
/// remote's questions (`greet`, `summarize` under `namespace`) and answer them.
async fn relayed_in_either_era(url: &str, namespace: &str, remote: &str) {
    for revision in [Revision::Stateless, Revision::Session] {
        let client = answering(Client::http(url).revision(revision));
        let greeted = client.call_tool(&format!("{namespace}_greet"), json!({})).await.expect("relayed and answered");
        assert_eq!(text(&greeted), "Hello, Ada!", "{revision:?} through {remote}");
        let summary =
            client.call_tool(&format!("{namespace}_summarize"), json!({})).await.expect("relayed and answered");
        assert_eq!(text(&summary), "summary of `Summarize: a long text` (1 roots)", "{revision:?} through {remote}");
    }
}

fn over_pipe() -> Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(server().serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);
    Client::stdio(read, write)
}

fn answering(client: Client) -> Client {
    client
        .on_elicitation(|request| async move {
            match request {
                ElicitRequest::Form { .. } => ElicitResult::accept(json!({"name": "Ada"})),
                _ => ElicitResult::decline(),
            }
        })
        .on_sampling(|params| async move {
            let asked = params["messages"][0]["content"]["text"].as_str().unwrap_or_default().to_owned();
            CreateMessageResult::text("echo-model", format!("summary of `{asked}`"))
        })
        .on_roots(|| async { vec![Root { uri: "file:///repo".into(), name: Some("repo".into()) }] })
}

fn text(result: &mcp_runtime::protocol::CallToolResult) -> String {
    serde_json::to_value(&result.content).expect("JSON")[0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn callbacks_answer_the_servers_questions_in_either_era_over_either_transport() {
    for revision in [Revision::Stateless, Revision::Session] {
        for (transport, client) in [("http", over_http().await), ("pipe", over_pipe())] {
            let client = answering(client.revision(revision));
            let greeted = client.call_tool("greet", json!({})).await.expect("answered");
            assert_eq!(text(&greeted), "Hello, Ada!", "{revision:?} over {transport}");
            let summary = client.call_tool("summarize", json!({})).await.expect("answered");
            assert_eq!(
                text(&summary),
                "summary of `Summarize: a long text` (1 roots)",
                "{revision:?} over {transport}"
            );
        }
    }
}

#[tokio::test]
async fn without_a_callback_the_question_is_an_error_not_a_hang() {
    // Declared, but with no callback to answer.
    let capabilities: mcp_runtime::protocol::ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {}})).expect("capabilities");
    let stateless = over_http().await.revision(Revision::Stateless).capabilities(capabilities.clone());
    match stateless.call_tool("greet", json!({})).await {
        Err(Error::InputRequired(result)) => {
            assert_eq!(result["inputRequests"]["name"]["method"], "elicitation/create")
        }
        other => panic!("the input_required result, not {other:?}"),
    }
    // The 2025-era server is refused at once.
    let session = over_pipe().revision(Revision::Session).capabilities(capabilities);
    match session.call_tool("greet", json!({})).await {
        Err(Error::Rpc(error)) => assert!(error.message.contains("elicitation/create"), "{error:?}"),
        other => panic!("the server's error for the refused request, not {other:?}"),
    }
}

#[tokio::test]
async fn a_gateway_relays_a_remotes_questions_to_its_own_client_in_either_era() {
    // The remote speaks 2026-07-28 over a pipe: its questions come as input_required results.
    let url = gateway("far", over_pipe()).await;
    relayed_in_either_era(&url, "far", "a 2026-07-28 remote").await;
    // A client that declares nothing is told what the remote's question needs.
    match Client::http(&url).revision(Revision::Stateless).call_tool("far_greet", json!({})).await {
        Err(Error::Rpc(error)) => assert_eq!(error.code, -32021, "{error:?}"),
        other => panic!("missing capabilities, not {other:?}"),
    }
}

#[tokio::test]
async fn a_gateway_relays_a_2025_era_remotes_questions_on_its_session_to_its_own_client() {
    // The remote speaks a 2025-era session, over a pipe and over HTTP: its
    // questions are requests on the session, within the forwarded call.
    for (transport, remote) in [("pipe", over_pipe()), ("http", over_http().await)] {
        let url = gateway("old", remote.revision(Revision::Session)).await;
        relayed_in_either_era(&url, "old", &format!("a 2025-era remote over {transport}")).await;
        // In 2026-07-28 the question comes back as this server's own round.
        let capabilities: mcp_runtime::protocol::ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}})).expect("capabilities");
        let stateless = Client::http(&url).revision(Revision::Stateless).capabilities(capabilities);
        match stateless.call_tool("old_greet", json!({})).await {
            Err(Error::InputRequired(result)) => {
                let asked = &result["inputRequests"]["elicitation/create#1"];
                assert_eq!(asked["method"], "elicitation/create", "{result}");
                assert_eq!(asked["params"]["message"], "Your name?", "{result}");
            }
            other => panic!("the remote's question as an input_required round, not {other:?}"),
        }
    }
}
