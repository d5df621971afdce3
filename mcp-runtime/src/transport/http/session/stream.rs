//! The event streams of one 2025-era session: the standalone stream a GET
//! reads, and one stream per request answered with events.
//!
//! A stream outlives its connections. Messages are pushed to the stream,
//! which passes them to the connection reading it, if any: the connection
//! only reads a channel, so a client that goes away cancels nothing
//! (2025-era clients cancel with `notifications/cancelled`).
//!
//! On a 2025-11-25 session streams can be resumed: each event has an id
//! `<stream>-<n>`, unique across the session and naming its stream (with a
//! shared session store, `<replica>.<stream>-<n>`: another replica's copy
//! of the session has streams of its own, and must not take an id of this
//! one's for one of them); the
//! recent events of each stream are kept, and a GET with `Last-Event-ID`
//! replays those that came after that id on that stream only, then goes on
//! with it (a GET naming another replica's stream is forwarded from there:
//! see `resume`). A connection there opens with a priming event (an id, `retry:`
//! and empty data), so that even a stream whose connection ends before
//! anything else was sent can be resumed. Clients of older sessions know
//! none of this: their events carry no id, and they get no priming event,
//! whose empty data they would try to read as JSON.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};

use super::live::{self, Bound, LiveReceiver, LiveSender, Refused};
use crate::sync::lock;
use crate::transport::http::sse::event;

/// How long a client waits before it reconnects to a stream whose
/// connection the server ended (`retry:`), in milliseconds.
pub(crate) const RETRY_MS: u64 = 1000;

/// How many events of one stream are kept for a client that resumes it;
/// one that comes back later misses the older ones.
const KEPT_EVENTS: usize = 256;

/// How many finished request streams a session keeps, and for how long, for
/// a client that lost the connection before their end.
const KEPT_FINISHED: usize = 32;
const FINISHED_KEPT_FOR: Duration = Duration::from_secs(300);

/// The number of the standalone stream; request streams count from 1.
const STANDALONE: u64 = 0;

/// Every stream of one session.
pub(crate) struct Streams {
    resumable: bool,
    /// What may wait unread on one of their connections.
    bound: Bound,
    /// The replica's id, when other replicas hold copies of the session.
    replica: Option<Arc<str>>,
    next: AtomicU64,
    standalone: Arc<Stream>,
    /// The request streams a client may resume: open ones, and recently
    /// finished ones. Empty when streams cannot be resumed.
    requests: Mutex<HashMap<u64, Arc<Stream>>>,
}

impl Streams {
    /// The streams of a session; `resumable` for a 2025-11-25 one. Their
    /// event ids name `replica` when there is one. At most `buffer` bytes
    /// wait unread on a connection (and, on a resumable stream, no more
    /// than half the events it keeps).
    pub(crate) fn new(resumable: bool, replica: Option<&str>, buffer: usize) -> Self {
        let replica: Option<Arc<str>> = replica.map(Arc::from);
        // Half of what is kept: a client cut off for falling behind has
        // as many events again to come back before any it missed is lost.
        let bound = Bound { bytes: buffer, events: if resumable { KEPT_EVENTS / 2 } else { usize::MAX } };
        Streams {
            resumable,
            bound,
            next: AtomicU64::new(STANDALONE + 1),
            standalone: Arc::new(Stream::new(STANDALONE, resumable, replica.as_deref(), bound)),
            requests: Mutex::default(),
            replica,
        }
    }

    pub(crate) fn resumable(&self) -> bool {
        self.resumable
    }

    /// The stream of messages unrelated to any request.
    pub(crate) fn standalone(&self) -> &Arc<Stream> {
        &self.standalone
    }

    /// A new stream for one request's messages.
    pub(crate) fn open(&self) -> Arc<Stream> {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let stream = Arc::new(Stream::new(number, self.resumable, self.replica.as_deref(), self.bound));
        if self.resumable {
            let mut requests = lock(&self.requests);
            prune(&mut requests);
            requests.insert(number, Arc::clone(&stream));
        }
        stream
    }

    /// The stream an event id names, and the event's place in it.
    pub(crate) fn find(&self, event_id: &str) -> Option<(Arc<Stream>, u64)> {
        let (stream, seq) = event_id.trim().split_once('-')?;
        let stream = match &self.replica {
            Some(replica) => stream.strip_prefix(&**replica)?.strip_prefix('.')?,
            None => stream,
        };
        let (stream, seq) = (stream.parse::<u64>().ok()?, seq.parse::<u64>().ok()?);
        if stream == STANDALONE {
            return Some((Arc::clone(&self.standalone), seq));
        }
        lock(&self.requests).get(&stream).map(|found| (Arc::clone(found), seq))
    }

    /// Ends every stream and its connection: the session ended.
    pub(crate) fn close_all(&self) {
        self.standalone.finish();
        for (_, stream) in lock(&self.requests).drain() {
            stream.finish();
        }
    }
}

/// Forgets the finished streams that are too old or too many.
///
/// It runs at every request stream's opening, over as many as
/// [`KEPT_FINISHED`] streams: one reading of the clock, one look at each
/// stream, and the oldest picked out rather than all sorted.
fn prune(requests: &mut HashMap<u64, Arc<Stream>>) {
    let now = Instant::now();
    let mut finished: Vec<(Instant, u64)> = Vec::with_capacity(requests.len());
    requests.retain(|&number, stream| match stream.finished_at() {
        None => true,
        Some(at) if now.saturating_duration_since(at) >= FINISHED_KEPT_FOR => false,
        Some(at) => {
            finished.push((at, number));
            true
        }
    });
    if finished.len() > KEPT_FINISHED {
        let excess = finished.len() - KEPT_FINISHED;
        // The `excess` oldest come first, in no particular order.
        finished.select_nth_unstable(excess - 1);
        for (_, number) in &finished[..excess] {
            requests.remove(number);
        }
    }
}

/// One stream: its recent events, and the connection reading it.
pub(crate) struct Stream {
    /// What its event ids start with: its number, after the replica's id if any.
    label: String,
    resumable: bool,
    bound: Bound,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The number of the stream's next event.
    next: u64,
    kept: VecDeque<(u64, Bytes)>,
    live: Option<LiveSender>,
    finished: Option<Instant>,
    /// What a connection cut for falling behind is sent last, on a stream
    /// that cannot be resumed (a request's error).
    last_words: Option<Bytes>,
}

/// What became of a pushed message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// Sent, kept, or both; or dropped because the stream has finished.
    Done,
    /// The connection reading the stream was too far behind and was ended.
    /// A resumable stream kept the message; another lost it.
    Cut,
}

impl Stream {
    fn new(number: u64, resumable: bool, replica: Option<&str>, bound: Bound) -> Self {
        let label = match replica {
            Some(replica) => format!("{replica}.{number}"),
            None => number.to_string(),
        };
        Stream { label, resumable, bound, state: Mutex::default() }
    }

    /// What to send last to a connection cut for falling behind, on a
    /// stream that cannot be resumed.
    pub(crate) fn set_last_words(&self, message: &str) {
        lock(&self.state).last_words = Some(event(message));
    }

    pub(crate) fn resumable(&self) -> bool {
        self.resumable
    }

    /// A connection reading the stream from now on, in place of any other
    /// (which ends). On a resumable stream it opens with a priming event.
    pub(crate) fn connect(&self) -> LiveReceiver {
        let mut state = lock(&self.state);
        let (tx, rx) = live::channel(self.bound);
        if self.resumable {
            let seq = state.next;
            state.next += 1;
            let _ = tx.send_anyway(priming(&self.label, seq));
        }
        if state.finished.is_none() {
            state.live = Some(tx);
        }
        rx
    }

    /// A connection resuming the stream after its event `after`: the kept
    /// events that came after it, then the new ones, in place of any other
    /// connection.
    pub(crate) fn resume(&self, after: u64) -> LiveReceiver {
        let mut state = lock(&self.state);
        let (tx, rx) = live::channel(self.bound);
        // What is kept is bounded already; a client that does not read it
        // is cut at its next event.
        for (_, kept) in state.kept.iter().filter(|(seq, _)| *seq > after) {
            let _ = tx.send_anyway(kept.clone());
        }
        if state.finished.is_none() {
            state.live = Some(tx);
        }
        rx
    }

    /// Sends one message on the stream (kept for resumption when it can be
    /// resumed). Nothing is sent once the stream has finished.
    ///
    /// A connection that has too much unread is ended instead: with
    /// `retry:` on a resumable stream, whose client comes back with
    /// `Last-Event-ID` for what it missed (all of it is kept, as at most
    /// half as many events wait as are kept); with the stream's last
    /// words, if any, on another.
    pub(crate) fn push(&self, message: &str) -> Pushed {
        let mut state = lock(&self.state);
        if state.finished.is_some() {
            return Pushed::Done;
        }
        let framed = if self.resumable {
            let seq = state.next;
            state.next += 1;
            let framed = with_id(&self.label, seq, message);
            state.kept.push_back((seq, framed.clone()));
            if state.kept.len() > KEPT_EVENTS {
                state.kept.pop_front();
            }
            framed
        } else {
            event(message)
        };
        let Some(live) = &state.live else { return Pushed::Done };
        match live.send(framed) {
            Ok(()) => Pushed::Done,
            Err(Refused::Closed) => {
                state.live = None;
                Pushed::Done
            }
            Err(Refused::Full) => {
                tracing::warn!(stream = %self.label, "a client does not read its event stream; ending its connection");
                let last = if self.resumable { Some(retry()) } else { state.last_words.clone() };
                if let Some(last) = last {
                    let _ = live.send_anyway(last);
                }
                state.live = None;
                Pushed::Cut
            }
        }
    }

    /// Ends the connection reading a resumable stream, after telling the
    /// client when to come back; the stream goes on. `false` when the
    /// stream cannot be resumed or no connection reads it.
    pub(crate) fn close_connection(&self) -> bool {
        if !self.resumable {
            return false;
        }
        match lock(&self.state).live.take() {
            Some(live) => live.send_anyway(retry()).is_ok(),
            None => false,
        }
    }

    /// Ends the stream: its connection ends once it has read what was sent.
    pub(crate) fn finish(&self) {
        let mut state = lock(&self.state);
        state.finished.get_or_insert_with(Instant::now);
        state.live = None;
    }

    fn finished_at(&self) -> Option<Instant> {
        lock(&self.state).finished
    }
}

/// Tells the client when to come back, before its connection ends.
fn retry() -> Bytes {
    Bytes::from(format!("retry: {RETRY_MS}\n\n"))
}

fn priming(stream: &str, seq: u64) -> Bytes {
    Bytes::from(format!("id: {stream}-{seq}\nretry: {RETRY_MS}\ndata: \n\n"))
}

fn with_id(stream: &str, seq: u64, message: &str) -> Bytes {
    let data = event(message);
    let mut out = BytesMut::with_capacity(data.len() + 24);
    out.put_slice(format!("id: {stream}-{seq}\n").as_bytes());
    out.put_slice(&data);
    out.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(rx: &mut LiveReceiver) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(event) = rx.try_recv() {
            out.push(String::from_utf8_lossy(&event).into_owned());
        }
        out
    }

    #[test]
    fn a_resumed_stream_replays_what_came_after_the_id_then_goes_on() {
        let streams = Streams::new(true, None, usize::MAX);
        let stream = streams.open();
        let mut first = stream.connect();
        stream.push(r#"{"n":1}"#);
        assert!(stream.close_connection());
        stream.push(r#"{"n":2}"#);
        let seen = drain(&mut first);
        assert_eq!(seen[0], format!("id: 1-0\nretry: {RETRY_MS}\ndata: \n\n"));
        assert_eq!(seen[1], "id: 1-1\ndata: {\"n\":1}\n\n");
        assert_eq!(seen[2], format!("retry: {RETRY_MS}\n\n"));
        assert_eq!(seen.len(), 3, "nothing after the connection was ended: {seen:?}");
        let (found, after) = streams.find("1-1").expect("the stream is kept");
        let mut again = found.resume(after);
        stream.push(r#"{"n":3}"#);
        stream.finish();
        assert_eq!(drain(&mut again), ["id: 1-2\ndata: {\"n\":2}\n\n", "id: 1-3\ndata: {\"n\":3}\n\n"]);
        assert!(again.try_recv().is_none(), "the finished stream's connection ended");
    }

    #[test]
    fn older_sessions_get_no_ids_no_priming_and_no_closed_connections() {
        let streams = Streams::new(false, None, usize::MAX);
        let stream = streams.open();
        let mut rx = stream.connect();
        stream.push("{}");
        assert!(!stream.close_connection());
        assert_eq!(drain(&mut rx), ["data: {}\n\n"]);
        assert!(streams.find("1-0").is_none());
    }

    #[test]
    fn with_a_shared_store_event_ids_name_the_replica_and_only_its_own_are_found() {
        let streams = Streams::new(true, Some("a1"), usize::MAX);
        let stream = streams.open();
        let mut rx = stream.connect();
        stream.push("{}");
        assert_eq!(drain(&mut rx)[1], "id: a1.1-1\ndata: {}\n\n");
        assert!(streams.find("a1.1-0").is_some());
        assert!(streams.find("a1.0-3").is_some(), "the standalone stream");
        for foreign in ["1-0", "b2.1-0", "a1-0", "a11.1-0", "0-0"] {
            assert!(streams.find(foreign).is_none(), "{foreign}");
        }
    }

    #[test]
    fn a_resumable_stream_cuts_a_reader_too_far_behind_and_replays_it_all() {
        let streams = Streams::new(true, None, 1 << 20);
        let stream = streams.open();
        let mut stalled = stream.connect();
        let mut cut_at = None;
        for n in 0..1000 {
            if stream.push(&format!(r#"{{"n":{n}}}"#)) == Pushed::Cut {
                cut_at = Some(n);
                break;
            }
        }
        let cut_at = cut_at.expect("cut once as many events wait as are kept");
        assert_eq!(cut_at, KEPT_EVENTS / 2 - 1, "the priming event waits too");
        for n in cut_at + 1..cut_at + 10 {
            assert_eq!(stream.push(&format!(r#"{{"n":{n}}}"#)), Pushed::Done, "kept for the client's return");
        }
        let seen = drain(&mut stalled);
        assert_eq!(seen.last().map(String::as_str), Some(format!("retry: {RETRY_MS}\n\n").as_str()));
        // The client read the priming event and nothing else, then comes back.
        let (found, after) = streams.find("1-0").expect("the stream is kept");
        let replayed = drain(&mut found.resume(after));
        assert_eq!(replayed.len(), cut_at + 10, "every message since, none lost");
        assert!(
            replayed[0].contains(r#"{"n":0}"#) && replayed[cut_at + 9].contains(&format!(r#"{{"n":{}}}"#, cut_at + 9))
        );
    }

    #[test]
    fn a_stream_that_cannot_be_resumed_ends_a_reader_too_far_behind_with_its_last_words() {
        let streams = Streams::new(false, None, 4096);
        let stream = streams.open();
        stream.set_last_words(r#"{"error":"gone"}"#);
        let mut stalled = stream.connect();
        let pushed: Vec<Pushed> = (0..1000).map(|n| stream.push(&format!(r#"{{"n":{n}}}"#))).collect();
        let cut = pushed.iter().position(|p| *p == Pushed::Cut).expect("cut");
        assert!(pushed[cut + 1..].iter().all(|p| *p == Pushed::Done), "once: the connection is gone");
        let seen = drain(&mut stalled);
        assert_eq!(seen.len(), cut + 1, "what fit, then the last words");
        assert!(seen.iter().map(String::len).sum::<usize>() <= 4096 + 64);
        assert_eq!(seen.last().map(String::as_str), Some("data: {\"error\":\"gone\"}\n\n"));
    }

    #[test]
    fn only_so_many_finished_streams_are_kept() {
        let streams = Streams::new(true, None, usize::MAX);
        let all: Vec<_> = (0..KEPT_FINISHED + 5).map(|_| streams.open()).collect();
        for stream in &all {
            stream.finish();
        }
        streams.open();
        assert!(streams.find("1-0").is_none(), "the oldest finished streams are forgotten");
        assert!(streams.find(&format!("{}-0", KEPT_FINISHED + 5)).is_some());
        assert!(streams.find("0-0").is_some(), "the standalone stream is always there");
        assert!(streams.find("junk").is_none());
    }
}
