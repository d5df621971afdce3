//! What a client takes of a server at most: the server is a peer that may
//! be hostile (a remote behind a gateway), and every line, event, list and
//! queue fed by it is bounded. Shared by a client's clones and its
//! transports, which read them as they go.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The longest message read (an answer, an event, a line): 16 MiB.
pub(crate) const DEFAULT_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The most items of one list, over all its pages.
pub(crate) const DEFAULT_LIST_ITEMS: usize = 100_000;

/// The most announcements a listener holds for its reader, besides list
/// changes (which are held as one each however often they come).
pub(crate) const DEFAULT_PENDING_CHANGES: usize = 1024;

/// The most requests of the server answered at once, and the most
/// questions one `input_required` round may ask.
pub(crate) const DEFAULT_QUESTIONS_AT_ONCE: usize = 16;

/// The limits of one client and its clones.
#[derive(Debug)]
pub(crate) struct Limits {
    message_bytes: AtomicUsize,
    list_items: AtomicUsize,
    pending_changes: AtomicUsize,
    questions_at_once: AtomicUsize,
    rounds: AtomicUsize,
    /// The server's requests being answered now.
    questions: Arc<AtomicUsize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            message_bytes: AtomicUsize::new(DEFAULT_MESSAGE_BYTES),
            list_items: AtomicUsize::new(DEFAULT_LIST_ITEMS),
            pending_changes: AtomicUsize::new(DEFAULT_PENDING_CHANGES),
            questions_at_once: AtomicUsize::new(DEFAULT_QUESTIONS_AT_ONCE),
            rounds: AtomicUsize::new(crate::answering::MAX_ROUNDS),
            questions: Arc::default(),
        }
    }
}

/// The limits a client and its transports share.
pub(crate) type SharedLimits = Arc<Limits>;

impl Limits {
    pub(crate) fn message_bytes(&self) -> usize {
        self.message_bytes.load(Ordering::Relaxed)
    }

    pub(crate) fn set_message_bytes(&self, bytes: usize) {
        self.message_bytes.store(bytes.max(1024), Ordering::Relaxed);
    }

    pub(crate) fn list_items(&self) -> usize {
        self.list_items.load(Ordering::Relaxed)
    }

    pub(crate) fn set_list_items(&self, items: usize) {
        self.list_items.store(items.max(1), Ordering::Relaxed);
    }

    pub(crate) fn pending_changes(&self) -> usize {
        self.pending_changes.load(Ordering::Relaxed)
    }

    pub(crate) fn set_pending_changes(&self, changes: usize) {
        self.pending_changes.store(changes.max(1), Ordering::Relaxed);
    }

    pub(crate) fn questions_at_once(&self) -> usize {
        self.questions_at_once.load(Ordering::Relaxed)
    }

    pub(crate) fn rounds(&self) -> usize {
        self.rounds.load(Ordering::Relaxed)
    }

    pub(crate) fn set_rounds(&self, rounds: usize) {
        self.rounds.store(rounds.max(1), Ordering::Relaxed);
    }

    pub(crate) fn set_questions_at_once(&self, questions: usize) {
        self.questions_at_once.store(questions.max(1), Ordering::Relaxed);
    }

    /// A place for one more of the server's requests, if it is within the
    /// limit: held while it is answered.
    pub(crate) fn question(&self) -> Option<QuestionPlace> {
        let limit = self.questions_at_once.load(Ordering::Relaxed);
        let before = self.questions.fetch_add(1, Ordering::AcqRel);
        if before >= limit {
            self.questions.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(QuestionPlace(Arc::clone(&self.questions)))
    }
}

/// One of the server's requests being answered, given back when dropped.
#[derive(Debug)]
pub(crate) struct QuestionPlace(Arc<AtomicUsize>);

impl Drop for QuestionPlace {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `future`, unless `limit` passes first: [`Error::Timeout`].
pub(super) async fn within<T>(
    limit: std::time::Duration,
    future: impl std::future::Future<Output = Result<T, super::Error>>,
) -> Result<T, super::Error> {
    tokio::time::timeout(limit, future).await.map_err(|_| super::Error::Timeout(limit))?
}
