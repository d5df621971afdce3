//! The three servers: where their binaries are, and running them as child
//! processes on loopback ports or over stdio.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::process::{Child, Command};

/// One of the servers under test.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Kind {
    /// mcp-runtime with `#[tool]`.
    Ours,
    /// rmcp 3.11.
    Rmcp,
    /// Bare hyper with a fixed answer.
    Floor,
}

impl Kind {
    /// Every server, in the order rounds alternate them.
    pub(crate) const ALL: [Kind; 3] = [Kind::Ours, Kind::Rmcp, Kind::Floor];
    /// The servers that speak MCP for real.
    pub(crate) const MCP: [Kind; 2] = [Kind::Ours, Kind::Rmcp];

    /// The label used in tables.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Ours => "ours",
            Kind::Rmcp => "rmcp",
            Kind::Floor => "floor",
        }
    }

    /// The cargo package, which is also the binary's name.
    pub(crate) fn package(self) -> &'static str {
        match self {
            Kind::Ours => "bench-ours",
            Kind::Rmcp => "bench-rmcp",
            Kind::Floor => "bench-floor",
        }
    }

    /// The source file holding the tool body the rebuild measurement edits.
    pub(crate) fn tool_source(self, bench: &Path) -> Option<PathBuf> {
        match self {
            Kind::Ours => Some(bench.join("ours/src/main.rs")),
            Kind::Rmcp => Some(bench.join("rmcp/src/main.rs")),
            Kind::Floor => None,
        }
    }

    /// The release binary.
    pub(crate) fn binary(self, bench: &Path) -> PathBuf {
        bench.join("target/release").join(self.package())
    }
}

/// A running server, killed when dropped.
pub(crate) struct Running {
    /// Which server.
    pub(crate) kind: Kind,
    /// Its process id, for `/proc`.
    pub(crate) pid: u32,
    /// Where it listens (HTTP only).
    pub(crate) addr: Option<SocketAddr>,
    /// The process; its stdin and stdout are piped for stdio servers.
    pub(crate) child: Child,
}

/// A loopback port nobody listens on right now.
pub(crate) fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

fn command(bench: &Path, kind: Kind, extra: &[String]) -> Command {
    let mut command = Command::new(kind.binary(bench));
    command.args(extra).stderr(Stdio::null()).kill_on_drop(true);
    command
}

/// Starts `kind` over HTTP on a free loopback port and waits until it
/// accepts connections.
pub(crate) async fn start_http(bench: &Path, kind: Kind, extra: &[String]) -> Result<Running> {
    let port = free_port()?;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut args = vec!["http".to_owned(), addr.to_string()];
    args.extend_from_slice(extra);
    let mut child = command(bench, kind, &args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", kind.binary(bench).display()))?;
    let pid = child.id().context("no pid")?;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            break;
        }
        if let Some(status) = child.try_wait()? {
            bail!("{} exited before listening: {status}", kind.label());
        }
        if Instant::now() > deadline {
            bail!("{} did not listen on {addr} within 20 s", kind.label());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(Running { kind, pid, addr: Some(addr), child })
}

/// Starts `kind` over stdio with piped stdin and stdout.
pub(crate) fn start_stdio(bench: &Path, kind: Kind) -> Result<Running> {
    let child = command(bench, kind, &["stdio".to_owned()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", kind.binary(bench).display()))?;
    let pid = child.id().context("no pid")?;
    Ok(Running { kind, pid, addr: None, child })
}

impl Running {
    /// Stops the server and reaps it.
    pub(crate) async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }
}
