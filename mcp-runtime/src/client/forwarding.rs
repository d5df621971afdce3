//! What a server that forwards its own client's requests through this
//! client calls (a mounted remote, a gateway: `server/mount/`), and
//! nothing else does: whether a session was opened, the limits to keep,
//! the capabilities to declare for the caller, one round of a request
//! answered by the caller rather than the callbacks, and what hears a
//! forwarded request's notifications.

use serde_json::{Map, Value};

use super::exchange::{Forwarded, Params};
use super::limits;
pub(crate) use super::message::ResultText;
use super::negotiation::Negotiated;
use super::notices::{Asks, Notices};
use super::{Client, Error};
use crate::answering;
use crate::protocol::{ClientCapabilities, LoggingLevel, ProgressParams, RequestMeta};

/// What hears a request's progress.
pub(crate) type OnProgress = Box<dyn Fn(ProgressParams) + Send + Sync>;
/// What hears a request's log messages (`notifications/message`, whole).
pub(crate) type OnMessage = Box<dyn Fn(&Value) + Send + Sync>;

impl Client {
    /// Whether the client speaks with its server in a 2025-era session
    /// (known once it has spoken with it).
    pub(crate) fn in_session(&self) -> bool {
        matches!(self.negotiated.get(), Some(Negotiated::Session(_)))
    }

    /// The limits the client keeps to, for a server that forwards to it.
    pub(crate) fn limits(&self) -> &limits::Limits {
        &self.limits
    }

    /// One round of `method`, declaring `capabilities` instead of the
    /// client's (in 2026-07-28; a 2025-era session declared its own at
    /// `initialize`): what a server that forwards its own client's request
    /// declares for it, with its progress heard by `progress` if given (see
    /// [`progress_listener`](Self::progress_listener)). An
    /// `input_required` result is [`Error::InputRequired`], for the caller
    /// to answer.
    pub(crate) async fn request_declaring(
        &self,
        method: &str,
        params: Map<String, Value>,
        declared: (&ClientCapabilities, Option<LoggingLevel>),
        progress: Option<&(Value, Notices)>,
    ) -> Result<Value, Error> {
        let negotiated = self.negotiated().await?;
        let meta = self.declaring(declared);
        let result = self.exchange_as(negotiated, method, params, &meta, progress).await?;
        if answering::is_input_required(&result) {
            return Err(Error::InputRequired(result));
        }
        Ok(result)
    }

    /// One round of a forwarded call or prompt, declaring what
    /// [`request_declaring`](Self::request_declaring) does: its result as
    /// the server wrote it (whatever its `resultType`), for the caller to
    /// read as far as it needs.
    pub(crate) async fn forward_round(
        &self,
        method: &str,
        params: &Forwarded<'_>,
        declared: (&ClientCapabilities, Option<LoggingLevel>),
        progress: Option<&(Value, Notices)>,
    ) -> Result<ResultText, Error> {
        let negotiated = self.negotiated().await?;
        let params = Params::Forwarded(params, declared);
        let (reply, id) = self.exchange_reply(negotiated, method, params, progress).await?;
        reply.into_result_text(&id)
    }

    /// The client's `_meta`, declaring `capabilities` and `log_level`.
    fn declaring(&self, (capabilities, log_level): (&ClientCapabilities, Option<LoggingLevel>)) -> RequestMeta {
        let mut meta = (*self.meta).clone();
        meta.client_capabilities = capabilities.clone();
        meta.log_level = log_level;
        meta
    }

    /// What hears a forwarded request's notifications: the progress the
    /// server reports (under a token of this client, `Null` for none when
    /// `on_progress` is `None`) and its log messages (`notifications/message`,
    /// to `on_message`); and where the questions a 2025-era server asks on
    /// its session within the request go (`asks`), instead of the callbacks.
    pub(crate) fn request_listener(
        &self,
        on_progress: Option<OnProgress>,
        on_message: Option<OnMessage>,
        asks: Option<Asks>,
    ) -> (Value, Notices) {
        let (token, progress) = match on_progress {
            Some(on_progress) => {
                let (token, notices) = self.progress_listener(on_progress);
                (token, Some(notices))
            }
            None => (Value::Null, None),
        };
        let messages = on_message.is_some();
        let mut notices = Notices::new(move |message: &Value| {
            if let Some(progress) = &progress {
                progress.hear(message);
            }
            if let Some(on_message) = &on_message
                && message.get("method").and_then(Value::as_str) == Some("notifications/message")
            {
                on_message(message);
            }
        });
        notices.messages = messages;
        notices.asks = asks;
        (token, notices)
    }
}
