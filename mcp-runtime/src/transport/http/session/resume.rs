//! Resuming, on one replica, a 2025-era stream another replica holds.
//!
//! Behind a balancer without affinity, a client's GET with `Last-Event-ID`
//! may reach a replica other than the one whose request (or standalone
//! stream) wrote those events. The event id names the replica that holds
//! the stream (`<replica>.<stream>-<n>`), so the replica reached asks that
//! one, through the store's messages, to resume the stream and forward its
//! events; it answers the GET with them as they come:
//!
//! ```text
//! client ── GET Last-Event-ID: a1.3-7 ──▶ b2 ── Resume ──▶ a1
//!                                          b2 ◀── Accepted, Event…, Ended ── a1
//! ```
//!
//! The holder sends `Accepted` (or `Refused`, when it keeps no such
//! stream) at once, then each event, `Alive` in long silences, and `Ended`
//! when the stream or its forwarding ends. The replica reached waits
//! [`ANSWER_WITHIN`] for the first word and [`SILENT_AT_MOST`] between
//! words: a holder that died ends the resumed connection, as it would have
//! ended the original one, rather than leaving it open forever. When the
//! client goes away, the next event forwarded is answered with `Detach`,
//! which stops the forwarding. As on one replica, reading a stream from a
//! new connection ends the connection that read it before.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::live::{self, Bound, LiveReceiver, LiveSender};
use super::relay::{Part, Relay};
use super::stream::Stream;
use crate::sync::lock;

/// How long the replica reached waits for the holder's first word.
pub(crate) const ANSWER_WITHIN: Duration = Duration::from_secs(3);

/// The longest silence from a holder before its forwarding counts as lost;
/// a holder speaks every [`ALIVE_EVERY`] at least.
const SILENT_AT_MOST: Duration = Duration::from_secs(30);
const ALIVE_EVERY: Duration = Duration::from_secs(10);

/// The resumptions this replica waits on, and those it forwards.
#[derive(Default)]
pub(crate) struct Resumptions {
    next: AtomicU64,
    /// Streams resumed here from other replicas, by forwarding number.
    waiting: Mutex<HashMap<u64, mpsc::UnboundedSender<Part>>>,
    /// Streams forwarded from here, by (replica reading, forwarding number).
    forwarding: Mutex<HashMap<(String, u64), CancellationToken>>,
}

/// The replica an event id names when it is not `here`: where the stream
/// it belongs to is held.
pub(crate) fn holder<'a>(event_id: &'a str, here: &str) -> Option<&'a str> {
    let (head, _seq) = event_id.trim().rsplit_once('-')?;
    let (replica, _stream) = head.rsplit_once('.')?;
    (!replica.is_empty() && replica != here).then_some(replica)
}

impl Resumptions {
    /// Asks `holder` to resume, for `session`, the stream of `event_id`
    /// after that event; the events as they come, or `None` when the holder
    /// refuses or does not answer in time.
    pub(crate) async fn resume(
        self: &Arc<Self>,
        relay: &Relay,
        (holder, bound): (&str, Bound),
        session: &str,
        event_id: &str,
    ) -> Option<LiveReceiver> {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let (parts_tx, mut parts) = mpsc::unbounded_channel();
        lock(&self.waiting).insert(number, parts_tx);
        relay.ask_resume(holder, session, event_id, number).await;
        let first = tokio::time::timeout(ANSWER_WITHIN, parts.recv()).await;
        if !matches!(first, Ok(Some(Part::Accepted))) {
            lock(&self.waiting).remove(&number);
            return None;
        }
        let (events_tx, events) = live::channel(bound);
        tokio::spawn(Arc::clone(self).pump(number, parts, events_tx));
        Some(events)
    }

    /// Passes the holder's events on to the connection, until the stream
    /// ends, the holder falls silent, or the client goes away; then forgets
    /// the forwarding, so that the holder's next word is answered with
    /// `Detach`.
    async fn pump(self: Arc<Self>, number: u64, mut parts: mpsc::UnboundedReceiver<Part>, events: LiveSender) {
        loop {
            match tokio::time::timeout(SILENT_AT_MOST, parts.recv()).await {
                // A client too far behind loses this connection, as it
                // would on the holder; it resumes again from what it read.
                Ok(Some(Part::Event { text })) => {
                    if events.send(Bytes::from(text)).is_err() {
                        break;
                    }
                }
                Ok(Some(Part::Alive | Part::Accepted)) if !events.is_closed() => {}
                // Ended, refused, gone quiet, or nobody reads any more.
                _ => break,
            }
        }
        lock(&self.waiting).remove(&number);
    }

    /// A word from a holder about forwarding `number`; `false` when nothing
    /// here reads that forwarding any more (the holder should stop).
    pub(crate) fn heard(&self, number: u64, part: Part) -> bool {
        match lock(&self.waiting).get(&number) {
            Some(parts) => parts.send(part).is_ok(),
            None => false,
        }
    }

    /// As the holder: resumes `stream` after event `after` (holding `open`,
    /// which keeps its session in use here), and forwards its events to
    /// replica `to` until the stream ends or `to` detaches. Refuses when
    /// no such stream is kept here (`found` is `None`).
    pub(crate) fn forward<G: Send + 'static>(
        self: &Arc<Self>,
        relay: &Arc<Relay>,
        found: Option<(Arc<Stream>, u64, G)>,
        to: String,
        number: u64,
    ) {
        let relay = Arc::clone(relay);
        let Some((stream, after, open)) = found else {
            tokio::spawn(async move { relay.forwarded(&to, number, Part::Refused).await });
            return;
        };
        let stop = CancellationToken::new();
        lock(&self.forwarding).insert((to.clone(), number), stop.clone());
        let mut events = stream.resume(after);
        let this = Arc::clone(self);
        tokio::spawn(async move {
            // The session counts as in use, and its copy stays here, while
            // its stream is read elsewhere.
            let _open = open;
            relay.forwarded(&to, number, Part::Accepted).await;
            let mut alive = tokio::time::interval_at(tokio::time::Instant::now() + ALIVE_EVERY, ALIVE_EVERY);
            loop {
                let part = tokio::select! {
                    () = stop.cancelled() => break,
                    event = events.recv() => match event {
                        Some(event) => Part::Event { text: String::from_utf8_lossy(&event).into_owned() },
                        None => Part::Ended,
                    },
                    _ = alive.tick() => Part::Alive,
                };
                let ended = matches!(part, Part::Ended);
                relay.forwarded(&to, number, part).await;
                if ended {
                    break;
                }
            }
            lock(&this.forwarding).remove(&(to, number));
        });
    }

    /// As the holder: replica `from` no longer reads forwarding `number`.
    pub(crate) fn detached(&self, from: &str, number: u64) {
        if let Some(stop) = lock(&self.forwarding).remove(&(from.to_owned(), number)) {
            stop.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::holder;

    #[test]
    fn an_event_id_names_its_holder_unless_it_is_here() {
        assert_eq!(holder("a1.3-7", "b2"), Some("a1"));
        assert_eq!(holder("a1.0-0", "b2"), Some("a1"), "a standalone stream");
        assert_eq!(holder("a1.3-7", "a1"), None, "held here");
        assert_eq!(holder("3-7", "a1"), None, "a store no other process shares");
        assert_eq!(holder(".3-7", "a1"), None);
        assert_eq!(holder("junk", "a1"), None);
    }
}
