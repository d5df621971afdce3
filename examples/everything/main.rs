//! Every feature of the framework in one server, and every fixture the
//! official MCP conformance suite calls.
//!
//! ```text
//! cargo run -p examples --bin everything -- --http 127.0.0.1:3000   # Streamable HTTP at /mcp
//! cargo run -p examples --bin everything -- --stdio                 # stdio
//! ```
//!
//! Deployment settings (Redis, the shared `requestState` key, probes...)
//! come from flags or `MCP_*` variables: see `deploy.rs` and the README.
//!
//! Everything here is declared with `#[tool]`, `#[resource]` and `#[prompt]`
//! (but for one tool that shows the full JSON Schema dialect, see
//! `json_schema.rs`); schemas come from the Rust types.

#[path = "../deploy.rs"]
mod deploy;
mod fixtures;
mod json_schema;
#[path = "../observability.rs"]
mod observability;
mod prompts;
mod resources;
mod round_trips;
mod session_fixtures;

use std::collections::BTreeMap;

use crate::deploy::Deployment;

const USAGE: &str = "usage: everything [--stdio | --http ADDR] [--redis URL] [--public-url URL] [--health | \
                     --no-health] [--eras modern|legacy|dual]";

/// How to serve, from the command line and the environment.
#[derive(Debug)]
struct Options {
    stdio: bool,
    deployment: Deployment,
}

fn parse_args(args: Vec<String>, env: &BTreeMap<String, String>) -> anyhow::Result<Options> {
    let (deployment, rest) = deploy::parse(args, env)?;
    match rest.as_slice() {
        [] => Ok(Options { stdio: false, deployment }),
        [flag] if flag == "--stdio" => Ok(Options { stdio: true, deployment }),
        _ => anyhow::bail!(USAGE),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _telemetry = observability::init("everything")?;

    let options = parse_args(std::env::args().skip(1).collect(), &deploy::environment()?)?;
    let deployment = &options.deployment;
    // Over stdio there is one client and no replica to share anything with.
    let shared = if options.stdio { None } else { deployment.connect("everything").await? };
    let builder = mcp_runtime::server!("everything", env!("CARGO_PKG_VERSION"))
        .tool(json_schema::tool())
        .instructions("A test server exposing every MCP feature; its tools are fixtures, not useful work.");
    let server = deployment.server(builder, shared.as_ref()).build()?;
    if options.stdio {
        server.serve_stdio().await?;
    } else {
        tracing::info!("serving MCP at http://{}/mcp", deployment.addr);
        server.serve_http_with(deployment.addr, deployment.http_config(shared)).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn stdio_http_and_unknown_flags() {
        let env = BTreeMap::from([("MCP_HTTP_ADDR".to_owned(), "0.0.0.0:9000".to_owned())]);
        let options = parse_args(args(&["--stdio"]), &BTreeMap::new()).expect("valid");
        assert!(options.stdio);
        let options = parse_args(args(&["--health"]), &env).expect("valid");
        assert!(!options.stdio && options.deployment.health);
        assert_eq!(options.deployment.addr.port(), 9000);
        let options = parse_args(args(&["--http", "127.0.0.1:4000"]), &env).expect("valid");
        assert_eq!(options.deployment.addr.port(), 4000, "the flag wins");
        let message = parse_args(args(&["--db", "x"]), &env).expect_err("not a flag of this example").to_string();
        assert!(message.starts_with("usage: everything"), "{message}");
    }
}
