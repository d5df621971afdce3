//! A small server for the CLI's tests, over its stdio, or over HTTP on a
//! loopback port of the system's choice (`--http`: its URL is the first
//! line of stdout). Any era. Its tools ask what servers ask of a client:
//! a confirmation, a form, a URL to visit, a model's answer, the roots.
//!
//! `--https CERT KEY` serves HTTPS with that certificate (for `localhost`)
//! and key, PEM files, its URL the first line of stdout.
//!
//! `--trace` writes each request's method to stderr (`demo_server: METHOD`),
//! for a test to count what a command sent. `--rogue` is no `mcp_runtime`
//! server but a hand-written one that asks what it must not (a URL and a
//! model's answer of a client that declared neither) and answers a call
//! with what the client said.

use std::io::{BufRead as _, Write as _};

use mcp_runtime::entry::{PromptEntry, ResourceEntry, ToolEntry};
use mcp_runtime::input::{Elicitation, Sampling};
use mcp_runtime::server::Eras;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{Args, Input, Server};
use serde_json::{Value, json};

const USAGE: &str = "usage: demo_server [--http | --https CERT KEY] [--trace] [--rogue]";

fn server() -> Server {
    Server::builder("demo", "1.0.0")
        .eras(Eras::Dual)
        .tool(ToolEntry::new("add", |Args(args): Args<Value>| async move {
            (args["a"].as_i64().unwrap_or_default() + args["b"].as_i64().unwrap_or_default()).to_string()
        }))
        .tool(ToolEntry::new("fail", || async { Err::<String, _>("it failed, as asked".to_owned()) }))
        .tool(ToolEntry::new("delete", |input: Input| async move {
            let confirm = Elicitation::form("Delete the file?").boolean("delete", true);
            let answer = input.elicit("confirm", confirm).await;
            if answer.field("delete").as_deref() == Some("true") { "deleted" } else { "kept" }
        }))
        .tool(ToolEntry::new("survey", |input: Input| async move {
            let form = Elicitation::form("A few questions")
                .text("name", true)
                .property("age", json!({"type": "integer", "minimum": 0}), true)
                .property("colour", json!({"type": "string", "enum": ["red", "green"], "default": "red"}), false);
            let answer = input.elicit("survey", form).await;
            serde_json::to_string(&answer.0).unwrap_or_default()
        }))
        .tool(ToolEntry::new("visit", |input: Input| async move {
            let answer = input.elicit("visit", Elicitation::url("Sign in", "https://example.com/sign-in")).await;
            format!("{:?}", answer.action())
        }))
        .tool(ToolEntry::new("summarize", |input: Input| async move {
            let answer = input.sample("summary", Sampling::prompt("Summarize.", 20)).await;
            answer.text().unwrap_or_default().to_owned()
        }))
        .tool(ToolEntry::new("roots", |input: Input| async move {
            let roots = input.roots("roots").await;
            serde_json::to_string(&roots).unwrap_or_default()
        }))
        .prompt(PromptEntry::new("greet", || async { "Say hello." }))
        .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Demo" }))
        .resource(ResourceEntry::template("docs://pages/{page}", "page", |Args(args): Args<Value>| async move {
            format!("# Page {}", args["page"].as_str().unwrap_or_default())
        }))
        .build()
        .expect("a valid server")
}

// Logs on stderr, as `RUST_LOG` says: a stdio server's stdout stays the protocol's.
#[mcp_runtime::main(logging)]
async fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let https = match args.iter().position(|a| a == "--https") {
        Some(at) if args.len() >= at + 3 => Some(args.drain(at..at + 3).skip(1).collect::<Vec<_>>()),
        Some(_) => {
            writeln!(std::io::stderr(), "--https needs CERT and KEY\n{USAGE}")?;
            std::process::exit(2);
        }
        None => None,
    };
    if let Some(other) = args.iter().find(|a| !["--http", "--trace", "--rogue"].contains(&a.as_str())) {
        if other == "--help" || other == "-h" {
            return writeln!(std::io::stdout(), "{USAGE}");
        }
        writeln!(std::io::stderr(), "unknown argument `{other}`\n{USAGE}")?;
        std::process::exit(2);
    }
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--rogue") {
        return tokio::task::spawn_blocking(rogue).await?;
    }
    if let Some(files) = https {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        writeln!(std::io::stdout(), "https://localhost:{}/mcp", listener.local_addr()?.port())?;
        let config = mcp_runtime::transport::http::HttpConfig::default().tls(&files[0], &files[1]);
        return server().serve_http_with_shutdown(listener, config, std::future::pending()).await;
    }
    if has("--http") {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        writeln!(std::io::stdout(), "http://{}/mcp", listener.local_addr()?)?;
        let config = mcp_runtime::transport::http::HttpConfig::default();
        return server().serve_http_with_shutdown(listener, config, std::future::pending()).await;
    }
    if has("--trace") {
        // Each line read on stdin is told on stderr, then served.
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
            let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            let mut ours = ours;
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(method) =
                    serde_json::from_str::<Value>(&line).ok().and_then(|m| m["method"].as_str().map(str::to_owned))
                {
                    eprintln!("demo_server: {method}");
                }
                if ours.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                    break;
                }
            }
        });
        return server().serve_io(theirs, tokio::io::stdout(), StdioConfig::default()).await;
    }
    server().serve_stdio().await
}

/// The rogue server: speaks enough of both eras for one `tools/call`, at
/// which it asks a URL and a model's answer regardless of what the client
/// declared (at 2026-07-28 in an `input_required` result, in a 2025-era
/// session as requests of its own), and answers with what it was told.
fn rogue() -> std::io::Result<()> {
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout();
    let mut send = |message: Value| writeln!(out, "{message}").and_then(|()| out.flush());
    let asks = json!({
        "visit": {"method": "elicitation/create",
                  "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/sign-in"}},
        "summary": {"method": "sampling/createMessage",
                    "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
                               "maxTokens": 5}},
    });
    let mut line = String::new();
    let mut call_id = Value::Null;
    let mut told = Vec::new();
    while {
        line.clear();
        input.read_line(&mut line)? > 0
    } {
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let id = message["id"].clone();
        let result = match message["method"].as_str() {
            Some("server/discover") => json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                                              "serverInfo": {"name": "rogue", "version": "1"}}),
            Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                         "serverInfo": {"name": "rogue", "version": "1"}}),
            Some("tools/call") if message["params"]["_meta"].is_object() => {
                json!({"resultType": "input_required", "inputRequests": asks})
            }
            Some("tools/call") => {
                call_id = id;
                for (key, ask) in asks.as_object().into_iter().flatten() {
                    send(json!({"jsonrpc": "2.0", "id": key, "method": ask["method"], "params": ask["params"]}))?;
                }
                continue;
            }
            Some(_) => continue,
            // An answer to one of its requests.
            None => {
                told.push(message);
                if told.len() == 2 {
                    let text = serde_json::to_string(&told).unwrap_or_default();
                    let content = json!({"content": [{"type": "text", "text": text}]});
                    send(json!({"jsonrpc": "2.0", "id": call_id, "result": content}))?;
                }
                continue;
            }
        };
        send(json!({"jsonrpc": "2.0", "id": id, "result": result}))?;
    }
    Ok(())
}
