//! [`Remote`]: a server reached through a [`Client`], whose tools another
//! server serves as its own
//! ([`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)).

use super::Client;
use super::error::Error;
use crate::protocol::Tool;

/// A server in another process or behind a URL, with the tools it listed
/// when it was connected: what
/// [`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)
/// serves, each call forwarded through the client.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::Server;
/// use mcp_runtime::client::{Client, Remote};
///
/// let mut legacy = tokio::process::Command::new("legacy-mcp-server");
/// legacy.arg("--stdio");
/// let remote = Remote::connect(Client::spawn(legacy)?).await?;
/// let gateway = Server::builder("gateway", "1.0.0").mount_remote("legacy", remote).build()?;
/// gateway.serve_http("127.0.0.1:3000").await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Remote {
    pub(crate) client: Client,
    pub(crate) tools: Vec<Tool>,
}

impl Remote {
    /// Lists the server's tools (every page) through `client`.
    pub async fn connect(client: Client) -> Result<Remote, Error> {
        let tools = client.list_tools().await?;
        Ok(Remote { client, tools })
    }

    /// The tools the server listed.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }
}
