//! The limit on `subscriptions/listen` streams: they last as long as their
//! clients want and hold no place under the in-flight limit, so they are
//! bounded on their own, in all and per caller.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::handler::caller::Caller;
use crate::sync::lock;

/// The listen streams of one service.
#[derive(Debug)]
pub(crate) struct ListenLimit {
    limit: usize,
    per_caller: usize,
    open: Arc<Mutex<Open>>,
}

#[derive(Debug, Default)]
struct Open {
    all: usize,
    by_caller: HashMap<Caller, usize>,
}

/// Why a listen stream was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// The service holds its limit of streams.
    Server(usize),
    /// The caller holds its limit.
    Caller(usize),
}

impl Full {
    /// What the client is told.
    pub(crate) fn message(self) -> String {
        match self {
            Full::Server(limit) => format!("The server holds its limit of {limit} listen streams; retry later"),
            Full::Caller(limit) => {
                format!("This caller holds its limit of {limit} listen streams; close one before opening another")
            }
        }
    }
}

/// One stream's place under the limits, given back when dropped.
#[derive(Debug)]
pub(crate) struct ListenSlot {
    open: Arc<Mutex<Open>>,
    /// `None` for a caller nothing tells apart, who counts in the total only.
    caller: Option<Caller>,
}

impl ListenLimit {
    pub(crate) fn new(limit: usize, per_caller: usize) -> Self {
        ListenLimit { limit, per_caller, open: Arc::default() }
    }

    /// A place for one more stream of `caller`. A caller nothing tells
    /// apart (no principal, no address: a mounted service whose host gives
    /// none) counts in the total only: all such would be one caller.
    pub(crate) fn enter(&self, caller: Caller) -> Result<ListenSlot, Full> {
        let mut open = lock(&self.open);
        if open.all >= self.limit {
            return Err(Full::Server(self.limit));
        }
        let caller = caller.is_known().then_some(caller);
        if let Some(caller) = caller {
            let held = open.by_caller.entry(caller).or_insert(0);
            if *held >= self.per_caller {
                return Err(Full::Caller(self.per_caller));
            }
            *held += 1;
        }
        open.all += 1;
        Ok(ListenSlot { open: Arc::clone(&self.open), caller })
    }
}

impl Drop for ListenSlot {
    fn drop(&mut self) {
        let mut open = lock(&self.open);
        open.all -= 1;
        if let Some(caller) = &self.caller
            && let Some(held) = open.by_caller.get_mut(caller)
        {
            *held -= 1;
            if *held == 0 {
                open.by_caller.remove(caller);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(address: &str) -> Caller {
        Caller::of(None, Some(address.parse().unwrap()))
    }

    #[test]
    fn streams_are_bounded_per_caller_and_in_all() {
        let limit = ListenLimit::new(3, 2);
        let a = [limit.enter(from("192.0.2.1")).unwrap(), limit.enter(from("192.0.2.1")).unwrap()];
        assert_eq!(limit.enter(from("192.0.2.1")).unwrap_err(), Full::Caller(2));
        let b = limit.enter(from("192.0.2.2")).unwrap();
        assert_eq!(limit.enter(from("192.0.2.3")).unwrap_err(), Full::Server(3));
        drop(b);
        // Callers nothing tells apart count in the total only.
        let unknown = limit.enter(Caller::of(None, None)).unwrap();
        drop(a);
        let more = [limit.enter(Caller::of(None, None)).unwrap(), limit.enter(Caller::of(None, None)).unwrap()];
        drop((unknown, more));
        assert_eq!(lock(&limit.open).all, 0);
        assert!(lock(&limit.open).by_caller.is_empty());
    }
}
