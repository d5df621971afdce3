//! The notifications a client's requests brought besides their results
//! (progress, log messages), seen by an observer of the client.
//!
//! ```no_run
//! # async fn demo(server: mcp_runtime::Server) {
//! let (client, heard) = mcp_tests::heard::hearing(mcp_runtime::client::Client::in_process(server));
//! let _ = client.call_tool("report", serde_json::json!({})).await;
//! for notification in heard.take() {
//!     println!("{}", notification["method"]);
//! }
//! # }
//! ```

use std::sync::{Arc, Mutex};

use mcp_runtime::client::{Client, MessageKind};
use serde_json::Value;

/// The notifications heard so far, in order.
#[derive(Clone, Default)]
pub struct Heard(Arc<Mutex<Vec<Value>>>);

impl Heard {
    /// The notifications heard since the last `take`.
    pub fn take(&self) -> Vec<Value> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// `client`, with each notification it hears kept in the returned [`Heard`].
pub fn hearing(client: Client) -> (Client, Heard) {
    let heard = Heard::default();
    let into = heard.clone();
    let client = client.observe(move |message| {
        if message.kind == MessageKind::Notification {
            into.0.lock().unwrap_or_else(|e| e.into_inner()).push(message.to_value());
        }
    });
    (client, heard)
}
