//! What the fuzz targets share: the wire schema check of the tests, and the
//! way a target cuts its input into fields.

#![forbid(unsafe_code)]

/// Validation against the committed JSON Schema of the revision, as the
/// tests do it (the same file; `schemas/` links to `tests/schemas/`).
#[allow(dead_code, unreachable_pub, missing_docs)]
#[path = "../../tests/support/wire_schema.rs"]
pub mod wire_schema;

/// The input as lines: a target with several fields reads one a line, the
/// last one taking the rest, so the seeds stay readable text.
pub fn fields<const N: usize>(text: &str) -> [&str; N] {
    let mut out = [""; N];
    let mut rest = text;
    for (i, slot) in out.iter_mut().enumerate() {
        if i + 1 == N {
            *slot = rest;
            break;
        }
        match rest.split_once('\n') {
            Some((head, tail)) => {
                *slot = head;
                rest = tail;
            }
            None => {
                *slot = rest;
                rest = "";
            }
        }
    }
    out
}
