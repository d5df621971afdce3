//! The `gateway` example in front of `everything` served over its stdio and
//! speaking only the 2025-era revisions: clients of either era reach its
//! tools, prompts and resources through the gateway over HTTP, under its
//! name.

use mcp_runtime::client::{Client, Revision};
use mcp_tests::process::serve;
use serde_json::json;
use tokio::process::Command;

#[tokio::test]
async fn a_2025_era_stdio_server_is_reached_through_the_gateway_in_either_era() {
    let remote = format!("everything={} --stdio --eras session", env!("CARGO_BIN_EXE_everything"));
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway.args(["--http", "127.0.0.1:0", &remote]).env("NO_COLOR", "1").env("RUST_LOG", "info");
    let served = serve(gateway).await;
    assert_eq!(served.log.count(r#"protocol="2025-11-25""#), 1, "the remote was opened a 2025-era session");
    let url = format!("http://{}/mcp", served.addr);
    for revision in [Revision::Stateless, Revision::Session] {
        let client = Client::http(&url).revision(revision);
        let tools = client.list_tools().await.expect("tools/list");
        assert!(tools.iter().all(|t| t.name.starts_with("everything_")), "{revision:?}");
        assert!(tools.iter().any(|t| t.name == "everything_test_simple_text"));
        let called = client.call_tool("everything_test_simple_text", json!({})).await.expect("tools/call");
        let text = &serde_json::to_value(&called.content).expect("JSON")[0]["text"];
        assert_eq!(text, "This is a simple text response for testing.", "{revision:?}");
        let prompt = client.get_prompt("everything_test_simple_prompt", json!({})).await.expect("prompts/get");
        assert!(!prompt.messages.is_empty());
        let read = client.read_resource("test://everything/static-text").await.expect("resources/read");
        let contents = serde_json::to_value(&read.contents).expect("JSON");
        assert_eq!(contents[0]["uri"], "test://everything/static-text", "{contents}");
    }
}

#[test]
fn help_prints_the_usage_and_exits_successfully() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_gateway")).arg("--help").output().expect("it runs");
    assert!(help.status.success(), "{help:?}");
    let usage = String::from_utf8_lossy(&help.stdout);
    assert!(usage.starts_with("usage: gateway") && usage.contains("--allow-unauthenticated"), "{usage}");
    let axum_app = std::process::Command::new(env!("CARGO_BIN_EXE_axum_app")).arg("-h").output().expect("it runs");
    assert!(axum_app.status.success() && String::from_utf8_lossy(&axum_app.stdout).contains("--addr ADDR"));
}

#[tokio::test]
async fn a_quoted_command_may_name_a_path_with_a_space() {
    let dir = std::env::temp_dir().join(format!("mcp gateway {}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let server = dir.join("every thing");
    let _ = std::fs::remove_file(&server);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_everything"), &server).expect("a link");
    let remote = format!("everything='{}' --stdio", server.display());
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway.args(["--http", "127.0.0.1:0", &remote]).env("NO_COLOR", "1").env("RUST_LOG", "info");
    let served = serve(gateway).await;
    let client = Client::http(format!("http://{}/mcp", served.addr));
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "everything_test_simple_text"), "{tools:?}");
    drop(served);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_https_remote_is_reached_through_the_gateway_with_the_roots_it_is_given() {
    // `notes` over HTTPS, with a certificate made for this test.
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
    let dir = std::env::temp_dir().join(format!("mcp-gateway-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let (cert, key, db) = (dir.join("cert.pem"), dir.join("key.pem"), dir.join("notes.db"));
    std::fs::write(&cert, made.cert.pem()).expect("written");
    std::fs::write(&key, made.key_pair.serialize_pem()).expect("written");
    let mut notes = Command::new(env!("CARGO_BIN_EXE_notes"));
    notes.arg("--db").arg(&db).args(["--http", "127.0.0.1:0", "--tls-cert"]).arg(&cert).arg("--tls-key").arg(&key);
    notes.env("NO_COLOR", "1").env("RUST_LOG", "info");
    let notes = mcp_tests::process::serve_tls(notes, &made.cert.pem()).await;
    let remote = format!("notes=https://localhost:{}/mcp", notes.addr.port());
    // Without the certificate among its roots, the gateway does not start.
    let refused = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["--http", "127.0.0.1:0", &remote])
        .env("NO_COLOR", "1")
        .output()
        .await
        .expect("it runs");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("connecting to `notes`") && said.contains("certificate"), "{said}");
    // With it, the remote's tools are the gateway's.
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway.args(["--http", "127.0.0.1:0", "--root-certificates"]).arg(&cert).arg(&remote);
    gateway.env("NO_COLOR", "1").env("RUST_LOG", "info");
    let served = serve(gateway).await;
    let client = Client::http(format!("http://{}/mcp", served.addr));
    let added = client.call_tool("notes_add_note", json!({"title": "over TLS", "body": "through the gateway"})).await;
    let added = added.expect("called");
    assert_ne!(added.is_error, Some(true), "{added:?}");
    drop(served);
    // Or with it as the roots `SSL_CERT_FILE` names, as OpenSSL-based tools take them.
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway.args(["--http", "127.0.0.1:0", &remote]).env("SSL_CERT_FILE", &cert);
    gateway.env("NO_COLOR", "1").env("RUST_LOG", "info");
    let served = serve(gateway).await;
    let client = Client::http(format!("http://{}/mcp", served.addr));
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "notes_add_note"), "{tools:?}");
    drop((served, notes));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `notes` over HTTPS, protected by `provider`'s tokens, with its files in
/// `dir`: the running server, its URL (its tokens' audience) and its
/// certificate's file.
async fn protected_notes(
    provider: &mcp_tests::oidc::Provider,
    dir: &std::path::Path,
) -> (mcp_tests::process::Served, String, std::path::PathBuf) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
    std::fs::create_dir_all(dir).expect("a directory");
    let (cert, key, db) = (dir.join("cert.pem"), dir.join("key.pem"), dir.join("notes.db"));
    std::fs::write(&cert, made.cert.pem()).expect("written");
    std::fs::write(&key, made.key_pair.serialize_pem()).expect("written");
    // `notes` names itself in its tokens' audience: its port is chosen first.
    let port = free_port();
    let resource = format!("https://localhost:{port}/mcp");
    let mut notes = Command::new(env!("CARGO_BIN_EXE_notes"));
    notes.arg("--db").arg(&db).args(["--http", &format!("127.0.0.1:{port}"), "--tls-cert"]).arg(&cert);
    notes.arg("--tls-key").arg(&key).args(["--issuer", &provider.issuer, "--resource", &resource]);
    notes.env("NO_COLOR", "1").env("RUST_LOG", "info");
    let notes = mcp_tests::process::serve_tls(notes, &made.cert.pem()).await;
    (notes, resource, cert)
}

/// A port free a moment ago, for a server that must know its URL before it starts.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

#[tokio::test]
async fn a_protected_https_remote_is_reached_with_client_credentials_from_the_environment() {
    let provider = mcp_tests::oidc::start().await;
    let dir = std::env::temp_dir().join(format!("mcp-gateway-oauth-{}", std::process::id()));
    let (notes, resource, cert) = protected_notes(&provider, &dir).await;
    let remote = format!("notes={resource}");

    // Without credentials the gateway cannot get a token, and says what to give it.
    let refused = Command::new(env!("CARGO_BIN_EXE_gateway"))
        .args(["--http", "127.0.0.1:0", "--root-certificates"])
        .arg(&cert)
        .arg(&remote)
        .env("NO_COLOR", "1")
        .env_remove("MCP_CLIENT_ID")
        .output()
        .await
        .expect("it runs");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("connecting to `notes`") && said.contains("MCP_NOTES_CLIENT_ID"), "{said}");

    // With the remote's client credentials, it asks the provider for a token for
    // `notes` (the resource its metadata names), with `notes:write` once
    // `add_note` asks for it.
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway.args(["--http", "127.0.0.1:0", "--root-certificates"]).arg(&cert).arg(&remote);
    gateway.env("MCP_NOTES_CLIENT_ID", "es256-client").env("MCP_NOTES_CLIENT_SECRET", "secret");
    gateway.env("NO_COLOR", "1").env("RUST_LOG", "info");
    let served = serve(gateway).await;
    let client = Client::http(format!("http://{}/mcp", served.addr));
    let added = client.call_tool("notes_add_note", json!({"title": "authorized", "body": "by the provider"})).await;
    let added = added.expect("called");
    assert_ne!(added.is_error, Some(true), "{added:?}");
    drop((served, notes));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--token-exchange`: the gateway verifies its callers' tokens and reaches
/// `notes` with a token the provider exchanged each caller's for, asking
/// for the scopes `--scopes` demands of callers.
#[tokio::test]
async fn a_remote_is_reached_as_each_caller_by_token_exchange() {
    let provider = mcp_tests::oidc::start().await;
    let dir = std::env::temp_dir().join(format!("mcp-gateway-exchange-{}", std::process::id()));
    let (notes, resource, cert) = protected_notes(&provider, &dir).await;
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway.args(["--http", &format!("127.0.0.1:{port}"), "--root-certificates"]).arg(&cert);
    gateway.args(["--issuer", &provider.issuer, "--scopes", "notes=notes:write"]);
    gateway.args(["--token-exchange", &format!("notes={}/token", provider.issuer), &format!("notes={resource}")]);
    gateway.env("MCP_NOTES_CLIENT_ID", "gateway-client").env("MCP_NOTES_CLIENT_SECRET", "secret");
    gateway.env("NO_COLOR", "1").env("RUST_LOG", "info");
    let served = serve(gateway).await;

    let token = mcp_tests::oidc::token_with_scope(provider.addr, "es256-client", &url, "notes:read notes:write").await;
    let client = Client::http(&url).bearer(token);
    let before = provider.exchanges().await;
    let added = client.call_tool("notes_add_note", json!({"title": "as the caller", "body": "exchanged"})).await;
    let added = added.expect("called");
    assert_ne!(added.is_error, Some(true), "{added:?}");
    assert_eq!(provider.exchanges().await, before + 1, "the caller's token was exchanged");
    // A caller without a token reaches nothing.
    let anonymous = Client::http(&url).call_tool("notes_add_note", json!({"title": "t", "body": "b"})).await;
    assert!(matches!(anonymous, Err(mcp_runtime::client::Error::Http { status: 401, .. })), "{anonymous:?}");
    drop((served, notes));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_gateway_with_tool_search_lists_two_tools_and_finds_and_calls_the_remotes() {
    let remote = format!("everything={} --stdio", env!("CARGO_BIN_EXE_everything"));
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway.args(["--http", "127.0.0.1:0", "--tool-search", &remote]).env("NO_COLOR", "1").env("RUST_LOG", "info");
    let served = serve(gateway).await;
    let url = format!("http://{}/mcp", served.addr);
    for revision in [Revision::Stateless, Revision::Session] {
        let client = Client::http(&url).revision(revision);
        let listed: Vec<String> = client.list_tools().await.expect("tools/list").into_iter().map(|t| t.name).collect();
        assert_eq!(listed, ["call_tool", "search_tools"], "{revision:?}");
        let found = client.call_tool("search_tools", json!({"query": "a simple text response"})).await.expect("search");
        let tools = &found.structured_content.expect("structured content")["tools"];
        assert_eq!(tools[0]["name"], "everything_test_simple_text", "{revision:?}: {tools}");
        let arguments = json!({"name": "everything_test_simple_text", "arguments": {}});
        let called = client.call_tool("call_tool", arguments).await.expect("call_tool");
        assert_eq!(called.first_text(), Some("This is a simple text response for testing."), "{revision:?}");
    }
}
