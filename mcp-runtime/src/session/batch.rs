//! 2025-03-26 batches: several messages in one, the requests' answers sent
//! back together.

use futures_util::future::join_all;
use serde_json::value::RawValue;

use super::bridge::{self, Delivery, failure};
use super::live::Session;
use super::message::{self, Incoming};
use crate::protocol::{ErrorObject, Method};
use crate::server::Server;

/// Serves every message of a batch concurrently; the answers to its
/// requests, in order.
pub(crate) async fn serve(
    server: &Server,
    session: &Session,
    items: Vec<Box<RawValue>>,
    via: &Delivery,
) -> Vec<String> {
    let answers = items.into_iter().map(|item| async move {
        match message::read_raw(&item) {
            Incoming::Request(request) if request.method == Method::Initialize.name() => {
                let error = ErrorObject::invalid_request("`initialize` may not be part of a batch");
                Some(failure(Some(&request.id), &error))
            }
            Incoming::Request(request) => {
                let cancel = session.begin(request.id.clone());
                bridge::serve(server, session, request, cancel, via).await
            }
            Incoming::Notification { method, params } => {
                let change = session.notified(&method, message::value_of(params.as_deref()))?;
                session.change(change).await.err().map(|error| failure(None, &error))
            }
            Incoming::Answer { id, outcome } => {
                session.answer(&id, outcome);
                None
            }
            Incoming::Stateless | Incoming::Unreadable | Incoming::Batch(_) => Some(failure(
                None,
                &ErrorObject::invalid_request("A batch may hold only 2025-era requests, notifications and answers"),
            )),
        }
    });
    join_all(answers).await.into_iter().flatten().collect()
}
