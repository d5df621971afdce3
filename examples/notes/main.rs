//! A small notebook as an MCP server: tools to add, search, tag and delete
//! notes, notes as resources (with templates and completion), and prompts.
//! Its data lives in a SQLite file created on first run.
//!
//! ```text
//! cargo run -p examples --bin notes                        # HTTP at http://127.0.0.1:3000/mcp, ./notes.db
//! cargo run -p examples --bin notes -- --stdio --db /tmp/n.db
//! ```

mod db;
mod prompts;
mod resources;
mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context as _, bail};

use crate::db::Db;

struct Options {
    stdio: bool,
    addr: SocketAddr,
    db: PathBuf,
}

fn parse_args() -> anyhow::Result<Options> {
    let mut options = Options { stdio: false, addr: "127.0.0.1:3000".parse()?, db: PathBuf::from("notes.db") };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => options.stdio = true,
            "--http" => {
                let addr = args.next().context("--http needs an address such as 127.0.0.1:3000")?;
                options.addr = addr.parse().with_context(|| format!("`{addr}` is not an address"))?;
            }
            "--db" => options.db = args.next().context("--db needs a file path")?.into(),
            other => bail!("unknown argument `{other}`; usage: notes [--stdio | --http ADDR] [--db PATH]"),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .init();
    let options = parse_args()?;
    let db = Db::open(&options.db).with_context(|| format!("opening {}", options.db.display()))?;
    let server = mcp_runtime::server!("notes", env!("CARGO_PKG_VERSION"))
        .title("Notes")
        .instructions("A notebook. Search before adding, to avoid duplicates; notes are also readable as notes://{id}.")
        .state(db)
        .build()?;
    if options.stdio {
        server.serve_stdio().await?;
    } else {
        tracing::info!(db = %options.db.display(), "serving MCP at http://{}/mcp", options.addr);
        server.serve_http(options.addr).await?;
    }
    Ok(())
}
