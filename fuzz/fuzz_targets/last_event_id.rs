//! `Last-Event-ID` on a 2025-era session over HTTP: never a panic, and an
//! id names a stream only in the form the session mints
//! (`[replica.]stream-seq`).
//!
//! Input: the replica (empty: none) on the first line, then the id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::fuzzing;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let [replica, id] = mcp_runtime_fuzz::fields::<2>(text);
    let replica = Some(replica).filter(|r| !r.is_empty());
    let open = bytes.first().map_or(0, |b| usize::from(b % 4));
    let (found, holder) = fuzzing::read_last_event_id(id, replica, open);
    if let Some(after) = found {
        let (_, seq) = id.trim().split_once('-').expect("a found id has a sequence number");
        assert_eq!(seq.parse::<u64>().ok(), Some(after), "{id:?}");
    }
    if let Some(holder) = holder {
        assert!(replica.is_some_and(|here| here != holder));
        assert!(id.contains(&holder));
    }
});
