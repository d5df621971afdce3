//! A gateway: no tools of its own, the tools, prompts and resources of other
//! MCP servers served as one endpoint, each server's under its name, to
//! clients of either era, over HTTP or stdio. A remote is a command speaking
//! MCP on its stdio (started here, ended with the gateway), or a Streamable
//! HTTP URL; it may speak 2026-07-28 or only a 2025-era revision.
//!
//! ```text
//! cargo run -p examples --bin gateway -- --http 127.0.0.1:3000 \
//!     everything="target/debug/everything --stdio" weather=http://127.0.0.1:4000/mcp
//! ```
//!
//! `everything`'s tool `test_simple_text` is then `everything_test_simple_text`, its resource
//! `test://static-text` is `test://everything/static-text`. A remote without a name
//! (`=COMMAND` or `=URL`) is served as it is, unprefixed: a proxy. A command is split at
//! spaces (no quoting). What a gateway relays of a remote: see `mcp_runtime::client::Remote`.

#[path = "../observability.rs"]
mod observability;

use std::net::SocketAddr;

use anyhow::{Context as _, bail};
use mcp_runtime::client::{Client, Remote};
use mcp_runtime::transport::http::HttpConfig;

const USAGE: &str = "usage: gateway [--stdio | --http ADDR] [NAME]=COMMAND... | [NAME]=URL...";

/// What to serve, and how.
#[derive(Debug, PartialEq)]
struct Options {
    /// Serve over stdio rather than HTTP.
    stdio: bool,
    addr: SocketAddr,
    remotes: Vec<(String, Target)>,
}

/// Where a remote server is.
#[derive(Debug, PartialEq)]
enum Target {
    Url(String),
    Command(Vec<String>),
}

fn parse_args(args: &[String]) -> anyhow::Result<Options> {
    let mut options = Options { stdio: false, addr: "127.0.0.1:3000".parse()?, remotes: Vec::new() };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => options.stdio = true,
            "--http" => {
                let addr = args.next().context("--http needs an address")?;
                options.addr = addr.parse().with_context(|| format!("`{addr}` is not an address"))?;
            }
            flag if flag.starts_with("--") => bail!("unknown option `{flag}`\n{USAGE}"),
            remote => {
                let Some((name, target)) = remote.split_once('=') else {
                    bail!("`{remote}` is not NAME=TARGET\n{USAGE}")
                };
                let target = if target.starts_with("http://") || target.starts_with("https://") {
                    Target::Url(target.to_owned())
                } else {
                    let words: Vec<String> = target.split_whitespace().map(str::to_owned).collect();
                    if words.is_empty() {
                        bail!("no command for `{name}`\n{USAGE}");
                    }
                    Target::Command(words)
                };
                options.remotes.push((name.to_owned(), target));
            }
        }
    }
    if options.remotes.is_empty() {
        bail!("no server to serve\n{USAGE}");
    }
    Ok(options)
}

/// Connects to the remote, which lists what it serves.
async fn connect(name: &str, target: &Target) -> anyhow::Result<Remote> {
    let client = match target {
        Target::Url(url) => Client::http(url.clone()),
        Target::Command(words) => {
            let mut command = tokio::process::Command::new(&words[0]);
            command.args(&words[1..]);
            Client::spawn(command)?
        }
    };
    let remote = Remote::connect(client).await.with_context(|| format!("connecting to `{name}`"))?;
    let protocol = remote.client().protocol_version().await?;
    tracing::info!(
        remote = name,
        protocol,
        tools = remote.tools().len(),
        prompts = remote.prompts().len(),
        resources = remote.resources().len(),
        "mounted"
    );
    Ok(remote)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _telemetry = observability::init("gateway")?;
    let options = parse_args(&std::env::args().skip(1).collect::<Vec<_>>())?;
    let mut builder = mcp_runtime::Server::builder("gateway", env!("CARGO_PKG_VERSION"))
        .instructions("A gateway: each server's tools, prompts and resources under its name.");
    for (name, target) in &options.remotes {
        let remote = connect(name, target).await?;
        builder = if name.is_empty() { builder.proxy(remote) } else { builder.mount_remote(name.clone(), remote) };
    }
    let server = builder.build()?;
    if options.stdio {
        server.serve_stdio().await?;
    } else {
        server.serve_http_with(options.addr, HttpConfig::default()).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> Vec<String> {
        line.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn remotes_are_commands_or_urls_by_name() {
        let options =
            parse_args(&args(&["--http", "127.0.0.1:0", "a=server --stdio", "b=http://h:1/mcp"])).expect("valid");
        assert_eq!(options.addr, "127.0.0.1:0".parse::<SocketAddr>().expect("an address"));
        assert_eq!(
            options.remotes,
            [
                ("a".to_owned(), Target::Command(vec!["server".into(), "--stdio".into()])),
                ("b".to_owned(), Target::Url("http://h:1/mcp".into())),
            ]
        );
        for (bad, says) in [
            (&["--http"][..], "needs an address"),
            (&["x"], "NAME=TARGET"),
            (&[], "no server"),
            (&["a= "], "no command"),
        ] {
            let message = parse_args(&args(bad)).expect_err("refused").to_string();
            assert!(message.contains(says), "{bad:?}: {message}");
        }
    }
}
