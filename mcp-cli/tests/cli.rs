//! `mcp` run as a user runs it, against the `demo_server` example: over its
//! stdio (the command after `--`) and over HTTP (`--url`), in both eras,
//! with each exit status.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// The example server, which `cargo test` builds beside this test.
fn demo_server() -> PathBuf {
    let deps = std::env::current_exe().expect("the test's path");
    let examples = deps.parent().and_then(|d| d.parent()).expect("the profile's folder").join("examples");
    let server = examples.join("demo_server");
    assert!(server.is_file(), "{} is not built (cargo test builds the examples)", server.display());
    server
}

fn mcp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp")).args(args).env_remove("MCP_BEARER_TOKEN").output().expect("mcp runs")
}

/// `mcp ARGS -- demo_server`.
fn over_stdio(args: &[&str]) -> Output {
    let server = demo_server();
    let mut all = args.to_vec();
    all.extend(["--", server.to_str().expect("a UTF-8 path")]);
    mcp(&all)
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {} / {}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    })
}

#[test]
fn over_stdio_it_lists_calls_reads_and_gets_in_both_eras() {
    for revision in ["auto", "legacy"] {
        let tools = over_stdio(&["list", "--revision", revision]);
        assert!(tools.status.success(), "{tools:?}");
        let names: Vec<Value> = json_of(&tools).as_array().expect("a list").iter().map(|t| t["name"].clone()).collect();
        assert_eq!(names, [json!("add"), json!("fail")]);
        let sum = over_stdio(&["call", "add", "--arg", "a=2", "--arg", "b=40", "--revision", revision]);
        assert!(sum.status.success(), "{sum:?}");
        assert_eq!(json_of(&sum)["content"][0]["text"], "42");
        let readme = over_stdio(&["read", "docs://readme", "--revision", revision]);
        assert_eq!(json_of(&readme)["contents"][0]["text"], "# Demo");
        let prompt = over_stdio(&["prompt", "greet", "--revision", revision]);
        assert_eq!(json_of(&prompt)["messages"][0]["content"]["text"], "Say hello.");
        assert_eq!(json_of(&over_stdio(&["list", "prompts"])).as_array().map(Vec::len), Some(1));
    }
}

/// A child process, killed when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn over_http_it_speaks_whichever_era_it_is_told() {
    let mut server =
        Killed(Command::new(demo_server()).arg("--http").stdout(Stdio::piped()).spawn().expect("the server"));
    let mut url = String::new();
    // It binds before it tells: a request sent now waits to be served.
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.0.stdout.take().expect("stdout")), &mut url)
        .expect("its URL");
    let url = url.trim();
    let discover = mcp(&["discover", "--url", url]);
    assert!(json_of(&discover)["supportedVersions"].as_array().expect("versions").contains(&json!("2026-07-28")));
    let legacy = mcp(&["discover", "--revision", "legacy", "--url", url]);
    assert_eq!(json_of(&legacy)["supportedVersions"], json!(["2025-11-25"]));
    let sum = mcp(&["call", "add", "--args", r#"{"a": 1, "b": 2}"#, "--revision", "legacy", "--url", url]);
    assert_eq!(json_of(&sum)["content"][0]["text"], "3");
}

#[test]
fn each_exit_status_says_what_happened() {
    let tool_error = over_stdio(&["call", "fail"]);
    assert_eq!(tool_error.status.code(), Some(1), "a tool's error result: {tool_error:?}");
    assert_eq!(json_of(&tool_error)["isError"], true);
    let unknown = over_stdio(&["call", "nope"]);
    assert_eq!(unknown.status.code(), Some(1), "a JSON-RPC error: {unknown:?}");
    assert_eq!(json_of(&unknown)["code"], -32602);
    let usage = mcp(&["call"]);
    assert_eq!(usage.status.code(), Some(2), "{usage:?}");
    assert!(String::from_utf8_lossy(&usage.stderr).contains("usage:"));
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let nobody = mcp(&["discover", "--url", &format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(nobody.status.code(), Some(3), "no server: {nobody:?}");
    let no_command = mcp(&["discover", "--", "/nonexistent/mcp-server"]);
    assert_eq!(no_command.status.code(), Some(3), "{no_command:?}");
    assert!(String::from_utf8_lossy(&no_command.stderr).contains("did not start"), "{no_command:?}");
    let help = mcp(&["--help"]);
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("TARGET"));
}
