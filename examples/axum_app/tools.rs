//! The MCP tools: they share the application's [`Counter`] (as server
//! state) and see the caller the auth layer identified (as an extension of
//! the HTTP request).

use mcp_runtime::{State, extract::Extension, tool};

use crate::Counter;
use crate::auth::User;

/// Says who is calling, as the application identified them.
#[tool]
async fn whoami(Extension(user): Extension<User>) -> String {
    format!("You are {}.", user.name)
}

/// Adds one to the application's counter (the one `POST /api/counter`
/// bumps) and returns its new value.
#[tool]
async fn increment(State(counter): State<Counter>, Extension(user): Extension<User>) -> String {
    let value = counter.increment();
    tracing::info!(user = %user.name, value, "counter incremented over MCP");
    value.to_string()
}

/// The application's counter, as `GET /api/counter` shows it.
#[tool]
async fn counter(State(counter): State<Counter>) -> String {
    counter.value().to_string()
}

/// The tools, for the server builder.
pub(crate) fn all() -> [mcp_runtime::entry::ToolEntry; 3] {
    mcp_runtime::tools![whoami, increment, counter]
}
