//! A server served with `ServerBuilder::serve()`, run as a process: the
//! deployment table of the README holds for it, from flags and from
//! `MCP_*` variables, and a setting that does not read stops it with a
//! sentence naming the setting.

use std::process::Stdio;

use http::{Method, StatusCode};
use http_body_util::BodyExt as _;
use mcp_tests::http_wire::{self, answer, stateless_meta};
use mcp_tests::process::serve;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::Command;

fn server() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_deployed_server"));
    // Only what each test sets reaches the server, and no colours.
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("MCP_")) {
        command.env_remove(name);
    }
    command.env("NO_COLOR", "1").env("RUST_LOG", "info").stdin(Stdio::null());
    command
}

/// The status of a `GET` of `path` (a probe), its body read to the end.
async fn probe(addr: std::net::SocketAddr, path: &str) -> StatusCode {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(connection);
    let request = http::Request::get(path).header("host", "127.0.0.1").body(String::new()).expect("a request");
    let response = sender.send_request(request).await.expect("an answer");
    let status = response.status();
    response.into_body().collect().await.expect("a body");
    status
}

fn ping(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"_meta": stateless_meta(json!({})), "name": "ping", "arguments": {}}})
}

#[tokio::test]
async fn http_settings_come_from_the_environment() {
    let mut command = server();
    command.env("MCP_HTTP_ADDR", "127.0.0.1:0").env("MCP_HEALTH", "1").env("MCP_PUBLIC_URL", "http://mcp.example.test");
    let served = serve(command).await;

    assert_eq!(probe(served.addr, "/healthz").await, StatusCode::OK, "MCP_HEALTH=1");

    // MCP_PUBLIC_URL: its name is accepted as `Host`, another is not.
    let named = http_wire::send(served.addr, Method::POST, None, Some(&ping(1)), &[("host", "mcp.example.test")]).await;
    let result = answer(named, &json!(1), |_| {}).await;
    assert_eq!(result["result"]["content"][0]["text"], "pong", "{result}");
    let other =
        http_wire::send(served.addr, Method::POST, None, Some(&ping(2)), &[("host", "other.example.test")]).await;
    assert_eq!(other.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn stdio_is_a_flag() {
    let mut command = server();
    // The variable is overruled by the flag: nothing listens.
    command.arg("--stdio").env("MCP_HTTP_ADDR", "127.0.0.1:0").stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = command.kill_on_drop(true).spawn().expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let line = format!("{}\n", ping(7));
    stdin.write_all(line.as_bytes()).await.expect("written");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let answer: Value = serde_json::from_str(&lines.next_line().await.expect("read").expect("a line")).expect("JSON");
    assert_eq!(answer["result"]["content"][0]["text"], "pong", "{answer}");
    drop(stdin);
    assert!(child.wait().await.expect("exits").success(), "the end of stdin ends serving");
}

/// Runs the server to its end with `args` and `vars`.
async fn run(args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    let mut command = server();
    command.args(args).envs(vars.iter().copied());
    command.output().await.expect("runs")
}

#[tokio::test]
async fn help_names_the_settings_and_serves_nothing() {
    let output = run(&["--help"], &[]).await;
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("Deployment settings") && text.contains("MCP_REQUEST_STATE_KEY"), "{text}");
}

#[tokio::test]
async fn a_bad_setting_stops_the_server_with_its_name() {
    let output = run(&[], &[("MCP_HEALTH", "maybe")]).await;
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.ends_with("Error: MCP_HEALTH: `maybe` is not 1 or 0\n"), "{stderr}");

    let output = run(&["--db", "x.db"], &[]).await;
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Error: unknown argument `--db`\n\nDeployment settings"), "{stderr}");

    let output = run(&[], &[("MCP_REQUEST_STATE_KEY", "too short")]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Error: MCP_REQUEST_STATE_KEY: 9 bytes is too short"), "{stderr}");
}

#[tokio::test]
async fn the_catalog_is_dumped_without_serving() {
    let output = run(&["--dump-catalog"], &[("MCP_HTTP_ADDR", "127.0.0.1:0")]).await;
    assert!(output.status.success(), "{output:?}");
    let catalog: Value = serde_json::from_slice(&output.stdout).expect("the catalog, alone on stdout");
    assert_eq!(catalog["tools"][0]["name"], "ping", "{catalog}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("serving MCP"), "nothing bound: {stderr}");
}

#[tokio::test]
async fn flags_set_the_address_and_the_probes() {
    let mut command = server();
    command.args(["--http", "127.0.0.1:0", "--health"]);
    let served = serve(command).await;
    assert_eq!(probe(served.addr, "/readyz").await, StatusCode::OK, "--health");
}
