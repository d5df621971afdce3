//! Handles for the notifications a handler may send while it runs:
//! [`Progress`] and [`Logger`]. Both are handler parameters, tied to the
//! request being served, and send nothing after it ends.

use serde_json::Value;

use crate::handler::call::Call;
use crate::handler::context::RequestContext;
use crate::handler::extract::{FromCall, Rejection};
use crate::protocol::LoggingLevel;

/// Reports progress of the request being served, when the client asked for
/// it with a `progressToken`; otherwise reports are dropped. In a handler
/// running as a task, each report becomes the task's `statusMessage`.
///
/// ```
/// use mcp_runtime::{tool, extract::Progress};
///
/// /// Counts to three.
/// #[tool]
/// async fn count(progress: Progress) -> String {
///     for step in 1..=3 {
///         progress.report(f64::from(step), Some(3.0));
///     }
///     "done".to_owned()
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Progress {
    context: RequestContext,
}

impl Progress {
    /// The progress of the request of `context`.
    pub(crate) fn of(context: RequestContext) -> Self {
        Progress { context }
    }

    /// Whether the client asked for progress.
    pub fn is_requested(&self) -> bool {
        self.context.meta().progress_token.is_some()
    }

    /// Reports `progress` (of `total`, if known). Values must increase; one
    /// that does not is dropped. Returns whether it was sent.
    pub fn report(&self, progress: f64, total: Option<f64>) -> bool {
        self.context.progress(progress, total, None)
    }

    /// Reports progress with a message for the user.
    pub fn report_with_message(&self, progress: f64, total: Option<f64>, message: impl Into<String>) -> bool {
        self.context.progress(progress, total, Some(message.into()))
    }
}

impl<C: Call> FromCall<C> for Progress {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(Progress::of(call.context().clone()))
    }
}

/// Sends log messages for the request being served, at or above the level
/// the request opted in to with `_meta["io.modelcontextprotocol/logLevel"]`;
/// without it, nothing is sent.
///
/// ```
/// use mcp_runtime::{tool, extract::Logger};
///
/// /// Says hello, and logs it.
/// #[tool]
/// fn hello(log: Logger) -> &'static str {
///     log.info("saying hello");
///     "hello"
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Logger {
    context: RequestContext,
    name: Option<String>,
}

impl Logger {
    /// The log of the request of `context`.
    pub(crate) fn of(context: RequestContext) -> Self {
        Logger { context, name: None }
    }

    /// The same logger, reporting itself as `name` (`logger` on the wire).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The least level sent, if any (what a forwarded request asks for).
    #[cfg(feature = "client")]
    pub(crate) fn level(&self) -> Option<LoggingLevel> {
        self.context.meta().log_level
    }

    /// Whether a message at `level` would be sent.
    pub fn enabled(&self, level: LoggingLevel) -> bool {
        self.context.meta().log_level.is_some_and(|min| level >= min)
    }

    /// Sends `data` at `level`; returns whether it was sent.
    pub fn log(&self, level: LoggingLevel, data: impl Into<Value>) -> bool {
        self.context.log(level, self.name.as_deref(), data)
    }

    /// Logs at `debug`.
    pub fn debug(&self, data: impl Into<Value>) -> bool {
        self.log(LoggingLevel::Debug, data)
    }

    /// Logs at `info`.
    pub fn info(&self, data: impl Into<Value>) -> bool {
        self.log(LoggingLevel::Info, data)
    }

    /// Logs at `notice`.
    pub fn notice(&self, data: impl Into<Value>) -> bool {
        self.log(LoggingLevel::Notice, data)
    }

    /// Logs at `warning`.
    pub fn warning(&self, data: impl Into<Value>) -> bool {
        self.log(LoggingLevel::Warning, data)
    }

    /// Logs at `error`.
    pub fn error(&self, data: impl Into<Value>) -> bool {
        self.log(LoggingLevel::Error, data)
    }
}

impl<C: Call> FromCall<C> for Logger {
    fn from_call(call: &C) -> Result<Self, Rejection> {
        Ok(Logger::of(call.context().clone()))
    }
}
