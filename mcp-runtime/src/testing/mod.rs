//! What tests of a server need besides a client: a committed snapshot of
//! its whole catalog ([`assert_catalog_snapshot`]), and a sink that
//! collects a request's notifications ([`CollectNotifications`]).
//!
//! A test drives its server with the one client of this crate, in this
//! process: [`Client::in_process`](crate::client::Client::in_process)
//! hands each request to the server as JSON text, through the same
//! envelope and `_meta` reading as a wire, and answers the server's
//! requests for input with the same callbacks as over HTTP or stdio.
//!
//! ```
//! use mcp_runtime::{Args, Server, client::Client, entry::ToolEntry, protocol::ContentBlock};
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add { a: i64, b: i64 }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let server = Server::builder("calc", "1.0.0")
//!     .tool(ToolEntry::new("add", |Args(x): Args<Add>| async move { x.a + x.b }))
//!     .build()
//!     .unwrap();
//! let client = Client::in_process(server);
//! let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
//! assert_eq!(result.content, [ContentBlock::text("5")]);
//! # });
//! ```
//!
//! A tool that asks for input is answered by the client's callbacks, which
//! declare the matching capabilities; the request is sent again with the
//! answers until the result is complete:
//!
//! ```
//! use mcp_runtime::protocol::{ContentBlock, ElicitResult};
//! use mcp_runtime::{Input, Server, client::Client, entry::ToolEntry, input::Elicitation};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let server = Server::builder("greeter", "1.0.0")
//!     .tool(ToolEntry::new("greet", |input: Input| async move {
//!         let answer = input.elicit("who", Elicitation::form("Your name?").text("name", true)).await;
//!         format!("Hello, {}!", answer.field("name").unwrap_or_default())
//!     }))
//!     .build()
//!     .unwrap();
//! let client = Client::in_process(server)
//!     .on_elicitation(|_request| async { ElicitResult::accept(serde_json::json!({"name": "Ada"})) });
//! let result = client.call_tool("greet", serde_json::json!({})).await.unwrap();
//! assert_eq!(result.content, [ContentBlock::text("Hello, Ada!")]);
//! # });
//! ```
//!
//! Without a callback, the `input_required` result comes back as
//! [`Error::InputRequired`](crate::client::Error::InputRequired), for a
//! test that answers it by hand; [`Client::request`](crate::client::Client::request)
//! returns any result as the server sent it, and
//! [`Client::observe`](crate::client::Client::observe) sees every message.

mod catalog;

use std::sync::Mutex;

pub use self::catalog::assert_catalog_snapshot;
use crate::handler::context::NotificationSink;
use crate::protocol::Notification;

/// The in-process test client, now the crate's one client.
///
/// `TestClient::new(server)` is [`Client::in_process(server)`](crate::client::Client::in_process);
/// `with_capabilities`, `with_log_level` and `with_max_rounds` are
/// [`capabilities`](crate::client::Client::capabilities),
/// [`log_level`](crate::client::Client::log_level) and
/// [`max_rounds`](crate::client::Client::max_rounds); calls return typed
/// results ([`CallToolResult`](crate::protocol::CallToolResult), ...), and
/// [`request`](crate::client::Client::request) the result as JSON.
#[deprecated(note = "use `mcp_runtime::client::Client::in_process(server)`, the one client of the crate")]
pub type TestClient = crate::client::Client;

/// Why a request of the test client gave no result: the client's error.
#[deprecated(note = "use `mcp_runtime::client::Error`")]
pub type ClientError = crate::client::Error;

/// What a message seen by an observer is.
#[deprecated(note = "use `mcp_runtime::client::MessageKind`")]
pub type MessageKind = crate::client::MessageKind;

/// A message seen by an observer.
#[deprecated(note = "use `mcp_runtime::client::Observed`")]
pub type Observed<'a> = crate::client::Observed<'a>;

/// How many rounds of answers a request goes through at most, unless set.
#[deprecated(note = "the client's default round limit, set with `mcp_runtime::client::Client::max_rounds`")]
pub const DEFAULT_MAX_ROUNDS: usize = crate::answering::MAX_ROUNDS;

/// Collects the notifications of one request served with
/// [`Server::handle_bytes`](crate::Server::handle_bytes), as a transport
/// of its own would.
#[derive(Debug, Default)]
pub struct CollectNotifications(Mutex<Vec<Notification>>);

impl CollectNotifications {
    /// The notifications received so far.
    pub fn take(&self) -> Vec<Notification> {
        std::mem::take(&mut *crate::sync::lock(&self.0))
    }
}

impl NotificationSink for CollectNotifications {
    fn send(&self, notification: Notification) {
        crate::sync::lock(&self.0).push(notification);
    }
}
