//! The client against this framework's servers, over HTTP and over a pipe:
//! typed results, every page of a list, the bearer token, and each way a
//! request can fail (a JSON-RPC error, an input request, no server, an
//! answer that is none, no answer), and what an observer sees of it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, Error, MessageKind, Remote};
use mcp_runtime::entry::{PromptEntry, ResourceEntry, ToolEntry};
use mcp_runtime::extract::Logger;
use mcp_runtime::input::Elicitation;
use mcp_runtime::protocol::{CallToolResult, LoggingLevel};
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Input, RequestContext, Server};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn server() -> Server {
    let mut builder = Server::builder("client-test", "1.0.0")
        .page_size(2)
        .tool(ToolEntry::new("authorization", |cx: RequestContext| async move {
            let header = cx.http_request().and_then(|parts| parts.headers.get("authorization"));
            header.and_then(|v| v.to_str().ok()).unwrap_or("none").to_owned()
        }))
        .tool(ToolEntry::new("ask", |input: Input| async move {
            input.elicit("name", Elicitation::form("Your name?").text("name", true)).await;
            "asked"
        }))
        .prompt(PromptEntry::new("greeting", || async { "Say hello." }))
        .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Hello" }));
    for i in 0..5 {
        builder = builder.tool(ToolEntry::new(format!("tool_{i}"), move || async move { format!("tool {i}") }));
    }
    builder.build().expect("a server")
}

/// A client of [`server`] served on a pipe, and the task serving it (to
/// end it).
fn over_pipe() -> (Client, tokio::task::JoinHandle<std::io::Result<()>>) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    let serving = tokio::spawn(server().serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);
    (Client::stdio(read, write), serving)
}

async fn serve() -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server().serve_http_with_shutdown(listener, HttpConfig::default(), async {
        let _ = stopped.await;
    }));
    (url, stop)
}

#[tokio::test]
async fn over_http_results_are_typed_lists_complete_and_the_token_sent() {
    let (url, _stop) = serve().await;
    let client = Client::http(&url).bearer("secret-token");
    let discover = client.discover().await.expect("server/discover");
    assert!(discover.supported_versions.iter().any(|v| v == "2026-07-28"), "{discover:?}");
    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["ask", "authorization", "tool_0", "tool_1", "tool_2", "tool_3", "tool_4"], "every page of 2");
    let called = client.call_tool("tool_3", json!({})).await.expect("tools/call");
    assert_eq!(serde_json::to_value(&called.content).expect("JSON"), json!([{"type": "text", "text": "tool 3"}]));
    let token = client.call_tool("authorization", json!({})).await.expect("tools/call");
    assert_eq!(serde_json::to_value(&token.content).expect("JSON")[0]["text"], "Bearer secret-token");
    let readme = client.read_resource("docs://readme").await.expect("resources/read");
    assert_eq!(serde_json::to_value(&readme.contents).expect("JSON")[0]["text"], "# Hello");
    let prompt = client.get_prompt("greeting", json!({})).await.expect("prompts/get");
    assert_eq!(prompt.messages.len(), 1);
    assert_eq!(client.list_prompts().await.expect("prompts/list").len(), 1);
    assert_eq!(client.list_resources().await.expect("resources/list").len(), 1);

    match client.call_tool("nope", json!({})).await {
        Err(Error::Rpc(error)) => assert_eq!(error.code, -32602),
        other => panic!("a JSON-RPC error, not {other:?}"),
    }
    let asking = client.clone().capabilities(serde_json::from_value(json!({"elicitation": {}})).expect("capabilities"));
    match asking.call_tool("ask", json!({})).await {
        Err(Error::InputRequired(result)) => {
            assert_eq!(result["inputRequests"]["name"]["method"], "elicitation/create")
        }
        other => panic!("an input request, not {other:?}"),
    }
}

/// A server whose one tool logs twice before it answers.
fn chatty() -> Server {
    let chatty = ToolEntry::new("chatty", |log: Logger| async move {
        log.info("one");
        log.info("two");
        "done"
    });
    Server::builder("chatty", "1.0.0").tool(chatty).build().expect("a server")
}

#[tokio::test]
async fn an_observer_sees_each_message_over_http_and_over_a_pipe() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(chatty().serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(chatty().serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);

    for (wire, client) in [("HTTP", Client::http(url)), ("a pipe", Client::stdio(read, write))] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let client = client
            .log_level(LoggingLevel::Info)
            .observe(move |m| log.lock().unwrap().push((m.kind, m.method.to_owned(), m.to_value())));
        let result = client.call_tool("chatty", json!({})).await.expect("tools/call");
        assert_eq!(result.first_text(), Some("done"), "over {wire}");
        let seen = seen.lock().unwrap();
        // The `server/discover` that found the revision, then the call.
        let call: Vec<_> = seen.iter().filter(|(_, method, _)| method == "tools/call").collect();
        let kinds: Vec<MessageKind> = call.iter().map(|(kind, _, _)| *kind).collect();
        use MessageKind::*;
        assert_eq!(kinds, [Request, Notification, Notification, Response], "over {wire}: {seen:?}");
        assert_eq!(call[0].2["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "info", "over {wire}");
        assert_eq!((&call[1].2["params"]["data"], &call[2].2["params"]["data"]), (&json!("one"), &json!("two")));
        assert_eq!(call[3].2["result"]["content"][0]["text"], "done", "over {wire}");
    }
}

#[tokio::test]
async fn over_a_pipe_the_same_calls_answer() {
    let (client, _serving) = over_pipe();
    assert_eq!(client.list_tools().await.expect("tools/list").len(), 7);
    // Requests in flight at once are each answered with their own result.
    let (a, b) = tokio::join!(client.call_tool("tool_0", json!({})), client.call_tool("tool_4", json!({})));
    assert_eq!(serde_json::to_value(a.expect("a").content).expect("JSON")[0]["text"], "tool 0");
    assert_eq!(serde_json::to_value(b.expect("b").content).expect("JSON")[0]["text"], "tool 4");
}

#[tokio::test]
async fn no_server_an_answer_that_is_none_and_no_answer_are_clear_errors() {
    // Nothing listens: a port held by a socket of ours that never listens, so that no other
    // process can take it meanwhile, and every connection to it is refused.
    let held = tokio::net::TcpSocket::new_v4().expect("a socket");
    held.bind("127.0.0.1:0".parse().expect("an address")).expect("bound");
    let port = held.local_addr().expect("its address").port();
    assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_err(), "the port is ours until the end");
    match Client::http(format!("http://127.0.0.1:{port}/mcp")).discover().await {
        Err(Error::Transport(why)) => assert!(why.contains(&port.to_string()), "{why}"),
        other => panic!("a transport error, not {other:?}"),
    }
    drop(held);

    // Something answers, but not JSON-RPC; then something that never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let garbage = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("a connection");
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request).await;
        let _ = socket
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\nnot json!")
            .await;
    });
    match Client::http(garbage).discover().await {
        Err(Error::Invalid(why)) => assert!(why.contains("not json!"), "{why}"),
        other => panic!("an invalid answer, not {other:?}"),
    }
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", silent.local_addr().expect("addr"));
    let held = tokio::spawn(async move {
        let (socket, _) = silent.accept().await.expect("a connection");
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(socket);
    });
    match Client::http(url).timeout(Duration::from_millis(200)).discover().await {
        Err(Error::Timeout(limit)) => assert_eq!(limit, Duration::from_millis(200)),
        other => panic!("a time-out, not {other:?}"),
    }
    held.abort();

    // A pipe whose other end closes: the request waiting is told.
    let (ours, theirs) = tokio::io::duplex(1 << 10);
    let (read, write) = tokio::io::split(ours);
    let client = Client::stdio(read, write);
    drop(theirs);
    match client.discover().await {
        Err(Error::Transport(_)) => {}
        other => panic!("a transport error, not {other:?}"),
    }
}

/// `remote` served over a pipe, mounted in a gateway as `remote`; the task
/// serving the remote, to end it.
async fn gateway() -> (Server, tokio::task::JoinHandle<std::io::Result<()>>) {
    let (client, serving) = over_pipe();
    let remote = Remote::connect(client.timeout(Duration::from_secs(5))).await.expect("listed");
    assert_eq!(remote.tools().len(), 7);
    let gateway = Server::builder("gateway", "1.0.0")
        .tool(ToolEntry::new("local", || async { "local" }))
        .mount_remote("remote", remote)
        .build()
        .expect("a gateway");
    (gateway, serving)
}

#[tokio::test]
async fn a_remote_servers_tools_are_served_and_their_calls_forwarded() {
    let (gateway, serving) = gateway().await;
    let client = mcp_tests::validated_client::checked(gateway);
    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names[..3], ["local", "remote_ask", "remote_authorization"], "{names:?}");
    let called =
        client.request("tools/call", json!({"name": "remote_tool_2", "arguments": {}})).await.expect("forwarded");
    assert_eq!(called["content"][0]["text"], "tool 2");
    assert_eq!(called["resultType"], "complete", "answered as the gateway's own: {called}");

    // The remote's error, as the remote gave it (its client declared no
    // elicitation); then a remote that ended.
    match client.call_tool("remote_ask", json!({})).await {
        Err(Error::Rpc(error)) => {
            assert_eq!(error.code, -32021, "{error:?}");
            assert_eq!(error.data.expect("data")["requiredCapabilities"], json!({"elicitation": {"form": {}}}));
        }
        other => panic!("the remote's error, not {other:?}"),
    }
    serving.abort();
    let _ = serving.await;
    match client.call_tool("remote_tool_0", json!({})).await {
        Err(Error::Rpc(error)) => {
            assert_eq!(error.code, -32603);
            assert_eq!(error.message, "The server mounted at `remote` could not be reached");
        }
        other => panic!("a clear error, not {other:?}"),
    }
    let local = client.call_tool("local", json!({})).await.expect("the gateway goes on");
    assert_eq!(local.first_text(), Some("local"));
}

#[tokio::test]
async fn a_remote_under_a_bad_namespace_stops_the_build() {
    let remote = Remote::connect(over_pipe().0).await.expect("listed");
    match Server::builder("gateway", "1.0.0").mount_remote("not a name", remote).build() {
        Err(e @ mcp_runtime::BuildError::Mount { .. }) => assert!(e.to_string().contains("`not a name`"), "{e}"),
        other => panic!("a bad namespace, not {:?}", other.map(|s| s.tool_names())),
    }
}

/// A gateway in front of a remote over a pipe whose `wait` tool tells
/// `started` and never ends; `break_pipe` makes the remote's side write a
/// line that is no JSON, and aborting the returned task ends the pipe as a
/// remote that dies does.
async fn gateway_to_a_failing_remote(
    limit: Duration,
) -> (Server, std::sync::Arc<tokio::sync::Notify>, std::sync::Arc<tokio::sync::Notify>, tokio::task::JoinHandle<()>) {
    use tokio::io::AsyncBufReadExt as _;
    let started = std::sync::Arc::new(tokio::sync::Notify::new());
    let break_pipe = std::sync::Arc::new(tokio::sync::Notify::new());
    let told = std::sync::Arc::clone(&started);
    let remote = Server::builder("failing", "1.0.0")
        .tool(ToolEntry::new("wait", move || {
            let told = std::sync::Arc::clone(&told);
            async move {
                told.notify_one();
                std::future::pending::<String>().await
            }
        }))
        .build()
        .expect("a remote");
    // remote -> (its output, copied line by line unless broken) -> client
    let (client_side, remote_side) = tokio::io::duplex(1 << 16);
    let (remote_read, remote_write) = tokio::io::split(remote_side);
    let (output, remote_output) = tokio::io::duplex(1 << 16);
    let (remote_output_read, _) = tokio::io::split(remote_output);
    let (_, output_write) = tokio::io::split(output);
    tokio::spawn(remote.serve_io(remote_read, output_write, StdioConfig::default()));
    let (client_read, client_write) = tokio::io::split(client_side);
    let (to_client, mut to_client_write) = tokio::io::duplex(1 << 16);
    let (to_client_read, _) = tokio::io::split(to_client);
    let broken = std::sync::Arc::clone(&break_pipe);
    let copying = tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(remote_output_read).lines();
        let mut remote_write = remote_write;
        let mut client_read = client_read;
        // The client's requests go to the remote as they are.
        tokio::spawn(async move {
            let _ = tokio::io::copy(&mut client_read, &mut remote_write).await;
        });
        loop {
            tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => {
                        let _ = to_client_write.write_all(format!("{line}\n").as_bytes()).await;
                    }
                    _ => return,
                },
                () = broken.notified() => {
                    let _ = to_client_write.write_all(b"this is not JSON\n").await;
                    std::future::pending::<()>().await;
                }
            }
        }
    });
    let client = Client::stdio(to_client_read, client_write).timeout(limit);
    let remote = Remote::connect(client).await.expect("listed");
    let gateway = Server::builder("gateway", "1.0.0")
        .tool(ToolEntry::new("local", || async { "local" }))
        .mount_remote("remote", remote)
        .build()
        .expect("a gateway");
    (gateway, started, break_pipe, copying)
}

// On a paused clock, which moves only when every task waits: the 300 ms
// limit of the first gateway's client, under which it also connects (a
// `Remote` keeps the client it was connected through, limit and all), can
// run out only in the call that hangs, never while the remote is being
// listed on a machine too busy to list it in 300 ms of wall time.
#[tokio::test(start_paused = true)]
async fn a_remote_that_never_answers_dies_mid_call_or_answers_garbage_is_a_clear_error() {
    async fn failed(client: &Client, pending: tokio::task::JoinHandle<Result<CallToolResult, Error>>) -> String {
        let answered = tokio::time::timeout(Duration::from_secs(10), pending).await.expect("no hang").expect("joined");
        let local = client.call_tool("local", json!({})).await.expect("the gateway goes on");
        assert_eq!(local.first_text(), Some("local"));
        match answered {
            Err(Error::Rpc(error)) => {
                assert_eq!(error.code, -32603, "{error:?}");
                // What kind of failure, naming the mount; the details are logged.
                assert!(error.message.starts_with("The server mounted at `remote` "), "{}", error.message);
                error.message
            }
            other => panic!("a clear error, not {other:?}"),
        }
    }
    let call = |client: &Client| {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("remote_wait", json!({})).await })
    };

    // It never answers: the gateway's client gives up at its time limit.
    let (gateway, _, _, _copying) = gateway_to_a_failing_remote(Duration::from_millis(300)).await;
    let client = mcp_tests::validated_client::checked(gateway);
    let why = failed(&client, call(&client)).await;
    assert!(why.ends_with("did not answer in time"), "{why}");

    // It dies mid-call; it writes what is no JSON mid-call.
    for dies in [true, false] {
        let (gateway, started, break_pipe, copying) = gateway_to_a_failing_remote(Duration::from_secs(60)).await;
        let client = mcp_tests::validated_client::checked(gateway);
        let pending = call(&client);
        started.notified().await;
        match dies {
            true => copying.abort(),
            false => break_pipe.notify_one(),
        }
        let why = failed(&client, pending).await;
        assert!(why.ends_with("could not be reached"), "{why}");
    }
}

/// Echoes `message`; `region` travels in the `Mcp-Param-Region` header too,
/// which the server checks against the body.
#[mcp_runtime::tool]
fn regional(message: String, #[arg(header = "Region")] region: Option<String>) -> String {
    format!("{message} from {}", region.as_deref().unwrap_or("nowhere"))
}

/// `server` over HTTP on loopback: its URL, and what stops it when dropped.
async fn serve_http(server: Server) -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), async {
        let _ = stopped.await;
    }));
    (url, stop)
}

#[tokio::test]
async fn a_tools_mirrored_arguments_travel_in_headers_directly_and_through_a_gateway() {
    let regional = Server::builder("regional", "1.0.0").tools(mcp_runtime::tools![regional]).build().expect("built");
    let (url, _stop) = serve_http(regional).await;
    let arguments = json!({"message": "hi", "region": " Zürich "});

    // Listed first, the client knows what the tool mirrors. Not listed, it
    // sends no header, is refused for it, and lists the tools to learn it.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let unlisted = Client::http(&url)
        .revision(mcp_runtime::client::Revision::Stateless)
        .observe(move |m| log.lock().expect("lock").push((m.kind, m.method.to_owned())));
    let called = unlisted.call_tool("regional", arguments.clone()).await.expect("sent again with the header");
    assert_eq!(called.first_text(), Some("hi from  Zürich "));
    unlisted.call_tool("regional", arguments.clone()).await.expect("the header at once");
    let requests: Vec<String> = seen
        .lock()
        .expect("lock")
        .iter()
        .filter(|(kind, _)| *kind == MessageKind::Request)
        .map(|(_, m)| m.clone())
        .collect();
    assert_eq!(requests, ["tools/call", "tools/list", "tools/call", "tools/call"]);
    let client = Client::http(&url);
    client.list_tools().await.expect("tools/list");
    let called = client.call_tool("regional", arguments.clone()).await.expect("the header matches the body");
    assert_eq!(called.first_text(), Some("hi from  Zürich "));
    let without = client.call_tool("regional", json!({"message": "hi"})).await.expect("no region, no header");
    assert_eq!(without.first_text(), Some("hi from nowhere"));

    // A gateway over HTTP in front: its caller mirrors the argument to the
    // gateway, and the gateway to the remote.
    let remote = Remote::connect(Client::http(&url)).await.expect("listed");
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("far", remote).build().expect("a gateway");
    let (gateway_url, _stop_gateway) = serve_http(gateway).await;
    let caller = Client::http(&gateway_url);
    caller.list_tools().await.expect("tools/list");
    let called = caller.call_tool("far_regional", arguments).await.expect("forwarded with the header");
    assert_eq!(called.first_text(), Some("hi from  Zürich "));
}
