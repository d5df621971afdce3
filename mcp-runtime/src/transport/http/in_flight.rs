//! The limit on requests handled at once: beyond it a request is refused
//! at once (503 with `Retry-After`) instead of queueing behind the others.
//!
//! One counter per service, raised and lowered with one atomic operation
//! each: a request that fits costs two, and one refused three.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::protocol::{ErrorObject, RequestId};
use crate::response::{Response, Stage};

/// What a refused client is told to wait before trying again, in seconds.
/// Handlers free their slots continually; a second spreads the retries
/// without keeping clients away for long.
pub(crate) const RETRY_AFTER_SECONDS: u64 = 1;

/// The JSON-RPC code of the refusal: the server's own range, as for a full
/// session table.
pub(crate) const BUSY_CODE: i32 = -32000;

/// The requests of one service being handled now.
#[derive(Debug)]
pub(crate) struct InFlight {
    count: Arc<AtomicUsize>,
    limit: usize,
}

impl InFlight {
    pub(crate) fn new(limit: usize) -> Self {
        InFlight { count: Arc::new(AtomicUsize::new(0)), limit }
    }

    /// A slot for one request, or `None` when `limit` are taken.
    pub(crate) fn enter(&self) -> Option<Slot<'_>> {
        // Relaxed: the count orders nothing else, it only has to add up.
        let before = self.count.fetch_add(1, Ordering::Relaxed);
        if before >= self.limit {
            self.count.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        Some(Slot(&self.count))
    }

    /// How many requests hold a slot now.
    #[cfg(test)]
    pub(crate) fn current(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }
}

/// One request's place under the limit, given back when dropped.
#[derive(Debug)]
pub(crate) struct Slot<'a>(&'a Arc<AtomicUsize>);

impl Slot<'_> {
    /// The same slot, for a handler that goes on past the borrow (inside a
    /// streamed body, or in a task of its own).
    pub(crate) fn owned(self) -> OwnedSlot {
        let count = Arc::clone(self.0);
        std::mem::forget(self);
        OwnedSlot(count)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What an event stream holds until its handler ends: its place under a
/// limit.
#[derive(Debug)]
pub(crate) enum Held {
    /// A request's, under the in-flight limit.
    InFlight(#[allow(dead_code, reason = "held for its drop")] OwnedSlot),
    /// A listen stream's, under the listen limits.
    Listen(#[allow(dead_code, reason = "held for its drop")] super::listen_limit::ListenSlot),
}

/// A [`Slot`] that owns its counter.
#[derive(Debug)]
pub(crate) struct OwnedSlot(Arc<AtomicUsize>);

impl Drop for OwnedSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The JSON-RPC error of a refused request.
pub(crate) fn busy_error(limit: usize) -> ErrorObject {
    ErrorObject {
        code: BUSY_CODE,
        message: format!("The server is busy ({limit} requests in progress); retry later"),
        data: None,
    }
}

/// The refusal of a request when every slot is taken, as a response
/// echoing its id (so that a client matching answers by id knows which
/// request to send again).
pub(crate) fn busy_response(id: RequestId, limit: usize) -> Response {
    Response::error(Some(id), busy_error(limit), Stage::Envelope)
}

#[cfg(test)]
mod tests {
    use http::StatusCode;
    use http::header::RETRY_AFTER;

    use super::*;
    use crate::transport::http::responses::busy_http;

    #[test]
    fn slots_beyond_the_limit_are_refused_and_given_back_when_dropped() {
        let in_flight = InFlight::new(2);
        let first = in_flight.enter().expect("a slot");
        let second = in_flight.enter().expect("a slot").owned();
        assert!(in_flight.enter().is_none(), "the third is refused");
        assert_eq!(in_flight.current(), 2, "a refusal leaves the count as it was");
        drop(first);
        let third = in_flight.enter().expect("a slot freed");
        drop((second, third));
        assert_eq!(in_flight.current(), 0);
    }

    #[test]
    fn the_refusal_is_a_503_telling_when_to_retry() {
        let response = busy_http(busy_response(RequestId::from(7), 3).into_bytes());
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[RETRY_AFTER], "1");
    }
}
