//! The envelope and `_meta` readers: any bytes either read as one request
//! or notification, or become an error response that is valid JSON-RPC;
//! a message nested deeper than the limit is never accepted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::fuzzing;

/// The nesting limit of the dispatcher (`dispatch/nesting.rs`).
const MAX_DEPTH: usize = 128;

fn depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &byte in bytes {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fuzz_target!(|bytes: &[u8]| {
    match fuzzing::parse_message(bytes) {
        Ok(_) => assert!(depth(bytes) <= MAX_DEPTH, "a message nested deeper than {MAX_DEPTH} was accepted"),
        Err(response) => {
            // Judged by its text: an id beyond 64 bits is an integer on the wire.
            let report = mcp_runtime_fuzz::wire_schema::check_error_text(&response.to_json());
            assert!(report.is_ok(), "{report:?}");
        }
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        // Twice: the second read may come from the per-thread cache, and must agree.
        let first = fuzzing::read_meta(text);
        let again = fuzzing::read_meta(text);
        assert_eq!(first.is_ok(), again.is_ok());
        if let (Ok(first), Ok(again)) = (first, again) {
            assert_eq!(*first, *again);
        }
    }
});
