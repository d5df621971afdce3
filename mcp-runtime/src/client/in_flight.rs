//! A request while it waits for its answer: the notifications the server
//! sends for it (progress), and its cancellation when the caller stops
//! waiting (the future dropped, or the client's time limit reached).
//!
//! Cancelling is what each transport and era says: over stdio, and in a
//! 2025-era session over HTTP, `notifications/cancelled` naming the
//! request; over HTTP in 2026-07-28, closing the request's connection,
//! which dropping its response does (no notification there).

use std::future::Future;

use serde_json::{Value, json};

use super::negotiation::Negotiated;
use super::notices::Notices;
use super::{Client, Error, Transport};
use crate::protocol::{CallToolResult, ProgressParams, RequestId};

/// Sends `notifications/cancelled` for a request unless it was answered.
pub(super) struct Outstanding {
    /// Where to send it; `None` once answered, or where closing suffices.
    cancel: Option<Box<dyn FnOnce() + Send>>,
}

impl Outstanding {
    /// Marks the request answered: nothing is sent.
    pub(super) fn answered(mut self) {
        self.cancel = None;
    }
}

impl Drop for Outstanding {
    fn drop(&mut self) {
        if let Some(cancel) = self.cancel.take() {
            cancel();
        }
    }
}

impl Client {
    /// What cancels request `id` if it is given up.
    pub(super) fn outstanding(&self, negotiated: &Negotiated, id: &RequestId) -> Outstanding {
        #[cfg(feature = "client")]
        let notice = || {
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": { "requestId": id, "reason": "The client stopped waiting for the answer" },
            })
        };
        let cancel: Option<Box<dyn FnOnce() + Send>> = match (&self.transport, negotiated) {
            #[cfg(feature = "client")]
            (Transport::Lines(lines), _) => {
                let (lines, notice) = (lines.clone(), notice());
                Some(Box::new(move || spawn(async move { lines.notify(&notice).await })))
            }
            #[cfg(feature = "client")]
            (Transport::Http(http), Negotiated::Session(session)) => {
                let poster = http.poster(&self.head(session.version.as_str(), None, session.id.as_deref()));
                let notice = notice();
                Some(Box::new(move || spawn(async move { poster.post(&notice).await })))
            }
            // Dropping the response closes its connection: that is the cancellation.
            #[cfg(feature = "client")]
            (Transport::Http(_), Negotiated::Stateless) => None,
            // Dropping the future drops the server's: its handler is cancelled.
            (Transport::InProcess(_), _) => None,
        };
        Outstanding { cancel }
    }

    /// [`request`](Self::request), with the server's progress reported to
    /// `on_progress` as it comes (the request carries a `progressToken`).
    pub async fn request_with_progress(
        &self,
        method: &str,
        params: Value,
        on_progress: impl Fn(ProgressParams) + Send + Sync + 'static,
    ) -> Result<Value, Error> {
        self.request_as(method, params, Some(self.progress_listener(on_progress))).await
    }

    /// A progress token of this client, and what passes the progress the
    /// server reports under it to `on_progress`.
    pub(crate) fn progress_listener(
        &self,
        on_progress: impl Fn(ProgressParams) + Send + Sync + 'static,
    ) -> (Value, Notices) {
        let token = Value::from(format!("progress-{}", self.next_id()));
        let named = token.clone();
        let notices = Notices::new(move |message: &Value| {
            let params = message.get("params");
            if message.get("method").and_then(Value::as_str) == Some("notifications/progress")
                && params.and_then(|p| p.get("progressToken")) == Some(&named)
                && let Some(Ok(progress)) = params.map(|p| serde_json::from_value::<ProgressParams>(p.clone()))
            {
                on_progress(progress);
            }
        });
        (token, notices)
    }

    /// [`call_tool`](Self::call_tool), with the server's progress reported
    /// to `on_progress` as it comes.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_runtime::client::Error> {
    /// use mcp_runtime::client::Client;
    ///
    /// let client = Client::http("http://127.0.0.1:3000/mcp");
    /// let result = client
    ///     .call_tool_with_progress("export", serde_json::json!({}), |p| {
    ///         eprintln!("{} of {:?}: {}", p.progress, p.total, p.message.unwrap_or_default())
    ///     })
    ///     .await?;
    /// # let _ = result; Ok(()) }
    /// ```
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        on_progress: impl Fn(ProgressParams) + Send + Sync + 'static,
    ) -> Result<CallToolResult, Error> {
        let params = json!({ "name": name, "arguments": arguments });
        super::read_as("tools/call", self.request_with_progress("tools/call", params, on_progress).await?)
    }
}

/// Runs `sending` on its own, if there is a runtime to run it on.
fn spawn(sending: impl Future<Output = Result<(), Error>> + Send + 'static) {
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move {
            if let Err(e) = sending.await {
                tracing::debug!(error = %e, "the cancellation was not sent");
            }
        });
    }
}
