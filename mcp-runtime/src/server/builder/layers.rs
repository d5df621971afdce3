//! The builder's middleware: [`ServerBuilder::layer`].

use std::sync::Arc;

use super::ServerBuilder;
use crate::middleware::Layer;

impl ServerBuilder {
    /// Adds a middleware layer around every request the dispatcher runs,
    /// on every transport and in both eras (see the
    /// [`middleware`](crate::middleware) module for what layers see and
    /// when). The first layer added is the outermost: it sees a request
    /// first and its response last. A tool's own layers
    /// ([`ToolEntry::layer`](crate::entry::ToolEntry::layer)) run inside
    /// the server's.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::middleware::{Audit, TimeLimit};
    ///
    /// let server = mcp_runtime::Server::builder("demo", "1.0.0")
    ///     .layer(Audit::new())
    ///     .layer(TimeLimit::new(Duration::from_secs(30)))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn layer(mut self, layer: impl Layer) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }
}
