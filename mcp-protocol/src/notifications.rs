//! Request-scoped notifications: progress, log messages and cancellation.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jsonrpc::RequestId;
use super::meta::{LoggingLevel, ProgressToken};

/// Method of a progress notification.
pub const PROGRESS: &str = "notifications/progress";
/// Method of a log message.
pub const MESSAGE: &str = "notifications/message";
/// Method of a cancellation.
pub const CANCELLED: &str = "notifications/cancelled";

/// Params of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProgressParams {
    /// The token from the request's `_meta`.
    #[serde(rename = "progressToken")]
    pub progress_token: ProgressToken,
    /// Progress so far; strictly increasing.
    pub progress: f64,
    /// Total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Human-readable status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ProgressParams {
    /// Progress for the request that sent `progress_token`; `total` and
    /// `message` are set on the value.
    pub fn new(progress_token: ProgressToken, progress: f64) -> Self {
        ProgressParams { progress_token, progress, total: None, message: None }
    }
}

/// Params of `notifications/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LogMessageParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Logger name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON.
    pub data: Value,
}

impl LogMessageParams {
    /// A message at `level`, from no named logger.
    pub fn new(level: LoggingLevel, data: Value) -> Self {
        LogMessageParams { level, logger: None, data }
    }
}

/// Params of `notifications/cancelled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The request to cancel.
    pub request_id: RequestId,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
