//! A 2025-era session's standalone stream over HTTP (a `GET` on the
//! endpoint), read for the requests the server sends there: a server may
//! ask its elicitations, sampling and roots outside any request's own
//! stream, and only a client reading that stream hears them. Opened after
//! `initialize` when the client has a callback to answer them with; a
//! listener ([`Client::listen`]) takes the session's stream over, and
//! answers them in its place.

use std::time::Duration;

use super::negotiation::OpenedSession;
use super::{Client, Transport};

/// How long the standalone stream's answer is waited for at most.
const OPENING: Duration = Duration::from_secs(5);

impl Client {
    /// Opens `session`'s standalone stream and answers the server's
    /// requests on it, if the client answers any (a callback for
    /// elicitation, sampling or roots) and the transport is HTTP. A server
    /// that offers no such stream (`405`) sends its requests elsewhere: that
    /// is no failure.
    pub(super) async fn read_session_stream(&self, session: &OpenedSession) {
        let Transport::Http(http) = &self.transport else { return };
        if !super::callbacks::current(&self.callbacks).answers_questions() {
            return;
        }
        let head = self.head(session.version.as_str(), None, session.id.as_deref());
        // Waited for before the first request, so that what the server asks
        // during it is heard; a server slow to answer it does not hold the
        // client up for long.
        let wait = self.timeout.min(OPENING);
        let mut events = match tokio::time::timeout(wait, http.standalone_stream(&head)).await {
            Ok(Ok(events)) => events,
            Ok(Err(error)) => {
                tracing::debug!(%error, "the server offers no standalone stream to ask the client on");
                return;
            }
            Err(_) => return,
        };
        let poster = http.poster(&head);
        let reader = tokio::spawn(async move {
            while let Ok(Some(message)) = events.next().await {
                if message.get("method").is_some() && message.get("id").is_some_and(|id| !id.is_null()) {
                    poster.answer_later(message, None).await;
                }
            }
        });
        *crate::sync::lock(&session.stream) = Some(reader.abort_handle());
    }

    /// Stops reading `session`'s standalone stream, which a listener is
    /// about to take over.
    pub(super) fn stop_session_stream(session: &OpenedSession) {
        if let Some(reader) = crate::sync::lock(&session.stream).take() {
            reader.abort();
        }
    }
}
