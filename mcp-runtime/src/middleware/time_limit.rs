//! [`TimeLimit`]: a request that takes too long is answered with an error.

use std::time::Duration;

use super::{BoxFuture, Layer, McpRequest, Next, Response};
use crate::protocol::ErrorObject;

/// Answers a request that runs longer than a limit with an error, and
/// gives its handler up (its cancellation token fires, and it has the
/// server's [cancellation grace](crate::ServerBuilder::cancellation_grace)
/// to stop). Meant for one tool (`#[tool(layer = TimeLimit::new(...))]`):
/// the HTTP transport's request timeout is the limit for everything.
///
/// A `tools/call` is answered as a tool error (`isError: true`), which the
/// model reads and can act on; other methods with `-32603`. A task's work
/// is limited the same way: the task fails. A request waiting on a
/// client's answer (a 2025-era session's elicitation) waits within the
/// limit.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::TimeLimit;
///
/// /// Looks the weather up at a slow provider.
/// #[mcp_runtime::tool(layer = TimeLimit::new(Duration::from_secs(10)))]
/// async fn weather(city: String) -> String {
///     format!("Sunny in {city}")
/// }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TimeLimit {
    limit: Duration,
}

impl TimeLimit {
    /// At most `limit` per request.
    pub fn new(limit: Duration) -> Self {
        TimeLimit { limit }
    }
}

impl Layer for TimeLimit {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let answer = request.clone();
            match tokio::time::timeout(self.limit, next.run(request)).await {
                Ok(response) => response,
                Err(_) => {
                    let message = format!("Took longer than its limit of {}", seconds(self.limit));
                    match answer.method() {
                        crate::protocol::Method::ToolsCall => answer.tool_error(message),
                        _ => answer.error(ErrorObject::internal(message)),
                    }
                }
            }
        })
    }
}

/// `1.5 s`, `30 s`, `250 ms`.
fn seconds(limit: Duration) -> String {
    if limit < Duration::from_secs(1) {
        format!("{} ms", limit.as_millis())
    } else {
        format!("{} s", limit.as_secs_f64())
    }
}
