//! A per-thread cache of parsed `_meta` objects, so that a client's `_meta`
//! is read once per worker thread rather than once per request.
//!
//! In this revision every request carries the client's `_meta`, and a client
//! sends the same one (protocol version, capabilities, client info) on
//! request after request. Reading it into a [`RequestMeta`] is the largest
//! part of reading a `tools/call`, so each thread keeps the last few it
//! read, keyed by their exact text: the reading depends on nothing else,
//! and the result is shared read-only (the dispatcher copies it before
//! changing anything). A `_meta` with a progress token or with keys this
//! revision does not define (trace context, say) usually differs on every
//! request and is not kept.

use std::cell::RefCell;
use std::sync::Arc;

use crate::protocol::RequestMeta;

/// How many `_meta` texts a thread keeps: enough for a few clients served
/// in turn on one thread.
const SLOTS: usize = 4;

/// Longer texts are read every time rather than kept.
const MAX_TEXT: usize = 1024;

struct Recent {
    slots: Vec<(Box<str>, Arc<RequestMeta>)>,
    /// The slot the next new text replaces, once all are taken.
    next: usize,
}

thread_local! {
    static RECENT: RefCell<Recent> = const { RefCell::new(Recent { slots: Vec::new(), next: 0 }) };
}

/// The `_meta` in `text` ([`RequestMeta::from_json`]): a kept one if this
/// thread read the same text recently. The error names the offending key.
pub(crate) fn read(text: &str) -> Result<Arc<RequestMeta>, String> {
    read_with(text, |text| RequestMeta::from_json(text).map(Arc::new))
}

/// [`read`], with `read` reading what is not kept; what it reads is kept
/// when it is of the stable kind.
fn read_with<E>(text: &str, read: impl FnOnce(&str) -> Result<Arc<RequestMeta>, E>) -> Result<Arc<RequestMeta>, E> {
    if text.len() > MAX_TEXT {
        return read(text);
    }
    let kept = RECENT.try_with(|recent| {
        let recent = recent.try_borrow().ok()?;
        recent.slots.iter().find(|(kept, _)| **kept == *text).map(|(_, meta)| Arc::clone(meta))
    });
    if let Ok(Some(meta)) = kept {
        return Ok(meta);
    }
    let meta = read(text)?;
    if meta.progress_token.is_none() && meta.other.is_empty() {
        let _ = RECENT.try_with(|recent| {
            if let Ok(mut recent) = recent.try_borrow_mut() {
                recent.keep(text, &meta);
            }
        });
    }
    Ok(meta)
}

impl Recent {
    fn keep(&mut self, text: &str, meta: &Arc<RequestMeta>) {
        let entry = (Box::from(text), Arc::clone(meta));
        if self.slots.len() < SLOTS {
            self.slots.push(entry);
        } else {
            self.slots[self.next] = entry;
            self.next = (self.next + 1) % SLOTS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Arc<RequestMeta>, String> {
        RequestMeta::from_json(text).map(Arc::new)
    }

    const STABLE: &str =
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    #[test]
    fn the_same_text_is_read_once_and_shared() {
        let first = read_with(STABLE, parse).expect("valid");
        let second = read_with(STABLE, |_| Err("read again".to_owned())).expect("kept");
        assert!(Arc::ptr_eq(&first, &second));
    }

    #[test]
    fn per_request_metas_and_errors_are_not_kept() {
        let with_token = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}"#;
        let with_trace = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-1"}"#;
        for text in [with_token, with_trace] {
            read_with(text, parse).expect("valid");
            assert!(read_with(text, |_| Err("read again".to_owned())).is_err(), "kept: {text}");
        }
        let invalid = r#"{"io.modelcontextprotocol/protocolVersion":7}"#;
        assert!(read_with(invalid, parse).is_err());
        assert!(read_with(invalid, |_| Err("read again".to_owned())).is_err());
    }

    #[test]
    fn the_oldest_text_makes_room_for_a_new_one() {
        let texts: Vec<String> = (0..=SLOTS)
            .map(|i| {
                format!(
                    r#"{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"c{i}","version":"1"}}}}"#
                )
            })
            .collect();
        for text in &texts {
            read_with(text, parse).expect("valid");
        }
        assert!(read_with(&texts[0], |_| Err("read again".to_owned())).is_err(), "the oldest gave way");
        for text in &texts[1..] {
            let meta = read_with(text, |_| Err("read again".to_owned())).expect("kept");
            assert!(text.contains(&meta.client_info.as_ref().expect("client info").name));
        }
    }
}
