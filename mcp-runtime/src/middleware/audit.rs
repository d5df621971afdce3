//! [`Audit`]: one `tracing` event per request, saying who did what and how
//! it ended.

use std::collections::BTreeSet;
use std::time::Instant;

use serde::Deserialize;

use super::{BoxFuture, Layer, McpRequest, Next, Refusal, Response};
use crate::protocol::Method;

/// Records each request it sees as one `tracing` event (target
/// `mcp_runtime::audit`, level INFO), so that the logs, and OpenTelemetry
/// when it exports them, say who called what and how it ended:
///
/// - `caller`: the principal's subject, else the client's address, else
///   `anonymous`, always quoted (a subject is the token issuer's text, and
///   must not read as more fields of the line); `client`: the client's
///   name, when it sent one;
/// - `method` and `target` (the tool, prompt, resource or task);
/// - `outcome`: `ok`, `tool_error` (a result with `isError`),
///   `input_required` or `error`, with `error_code` for the last;
/// - `duration_ms`; `task` and `later_round` when they hold;
/// - `arguments`, only for the tools that opt in
///   ([`ToolEntry::trace_content`](crate::entry::ToolEntry::trace_content),
///   which puts them in request spans too) or that
///   [`arguments_of`](Self::arguments_of) names: arguments may hold what a
///   log must not.
///
/// Requests refused before they reached the layers are recorded too, as
/// `request refused` events with `outcome="refused"` and the `reason`
/// (`origin`, `unauthenticated`, `forbidden`, `invalid`, `busy`,
/// `admission`; see [`Refusal`](super::Refusal)), `http_status` and
/// `error_code` as far as known. Texts the client chose (a method, a tool
/// name) are cut at 256 characters.
///
/// ```
/// use mcp_runtime::middleware::Audit;
///
/// let server = mcp_runtime::Server::builder("demo", "1.0.0")
///     .layer(Audit::new().arguments_of(["search"]))
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Default)]
pub struct Audit {
    arguments_of: BTreeSet<String>,
}

impl Audit {
    /// Records every request, without arguments.
    pub fn new() -> Self {
        Audit::default()
    }

    /// Records the arguments of the tools named too.
    pub fn arguments_of<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.arguments_of.extend(tools.into_iter().map(Into::into));
        self
    }
}

impl Layer for Audit {
    fn call<'a>(&'a self, request: McpRequest, next: Next) -> BoxFuture<'a, Response> {
        Box::pin(async move {
            let started = Instant::now();
            let seen = request.clone();
            let response = next.run(request).await;
            let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
            let (outcome, error_code) = outcome(&response);
            let caller = caller(&seen);
            let opted_in = seen.records_content() || seen.target().is_some_and(|tool| self.arguments_of.contains(tool));
            let arguments =
                (seen.method() == Method::ToolsCall && opted_in).then(|| seen.arguments().map_or("{}", |a| a.get()));
            tracing::info!(
                target: "mcp_runtime::audit",
                caller = ?caller,
                client = seen.client_info().map(|c| cut(&c.name)),
                method = seen.method().name(),
                target = seen.target().map(cut),
                outcome,
                error_code,
                duration_ms,
                task = seen.is_task().then_some(true),
                later_round = seen.is_later_round().then_some(true),
                arguments,
                "request served"
            );
            response
        })
    }

    fn refused(&self, refusal: &Refusal<'_>) {
        let caller = match (refusal.principal().and_then(|p| p.subject()), refusal.client_address()) {
            (Some(subject), _) => subject.to_owned(),
            (None, Some(address)) => address.ip().to_string(),
            (None, None) => "anonymous".to_owned(),
        };
        tracing::info!(
            target: "mcp_runtime::audit",
            caller = ?caller,
            method = refusal.method().map(cut),
            target = refusal.target().map(cut),
            outcome = "refused",
            reason = refusal.reason().as_str(),
            http_status = refusal.http_status(),
            error_code = refusal.error_code(),
            detail = cut(refusal.message()),
            "request refused"
        );
    }
}

/// At most 256 characters of a text the client chose.
fn cut(text: &str) -> &str {
    match text.char_indices().nth(256) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// Who makes the request, as the event names them.
fn caller(request: &McpRequest) -> String {
    if let Some(subject) = request.principal().and_then(|p| p.subject()) {
        return subject.to_owned();
    }
    match request.client_address() {
        Some(address) => address.ip().to_string(),
        None => "anonymous".to_owned(),
    }
}

/// How the response ends the request, and the error's code.
fn outcome(response: &Response) -> (&'static str, Option<i32>) {
    #[derive(Deserialize)]
    struct Flags {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    if let Some(error) = response.as_error() {
        return ("error", Some(error.code));
    }
    if response.needs_input() {
        return ("input_required", None);
    }
    match response.as_result().map(serde_json::from_str::<Flags>) {
        Some(Ok(Flags { is_error: true })) => ("tool_error", None),
        _ => ("ok", None),
    }
}
