//! A server as a client of this process speaks to it:
//! [`Client::in_process`], each request handed to the dispatcher as JSON
//! text, as the stdio transport hands it.

use std::sync::Arc;

use super::RequestOptions;
use crate::client::{Client, LocalServer};
use crate::handler::BoxFuture;
use crate::handler::context::NotificationSink;
use crate::response::Response;
use crate::server::Server;

impl Client {
    /// A client of `server`, in this process: each request handed to it as
    /// JSON text ([`Server::handle_bytes`],
    /// the stdio transport's entry point), so a test goes through the same
    /// envelope and `_meta` reading as a client over a wire. It speaks the
    /// stateless revision (2026-07-28); needs no feature.
    ///
    /// ```
    /// use mcp_runtime::{Args, Server, client::Client, entry::ToolEntry};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Add { a: i64, b: i64 }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let server = Server::builder("calc", "1.0.0")
    ///     .tool(ToolEntry::new("add", |Args(x): Args<Add>| async move { x.a + x.b }))
    ///     .build()
    ///     .unwrap();
    /// let client = Client::in_process(server);
    /// let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
    /// assert_eq!(serde_json::json!(result)["content"][0]["text"], "5");
    /// # });
    /// ```
    pub fn in_process(server: Server) -> Client {
        Client::over_local(Arc::new(server))
    }
}

impl LocalServer for Server {
    fn name(&self) -> &str {
        &self.info().name
    }

    fn serve(&self, message: Vec<u8>, sink: Arc<dyn NotificationSink>) -> BoxFuture<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            let options = RequestOptions { sink, cancellation: None };
            // The stdio transport's entry point: the envelope read as a wire's.
            self.handle_bytes(&message, options).await.map(Response::into_bytes)
        })
    }
}
