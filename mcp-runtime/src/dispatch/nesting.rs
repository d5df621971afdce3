//! How deeply a message nests, checked before it is read.
//!
//! serde_json refuses more than 128 levels in what it reads into values,
//! but the parts a reader skips (an unknown member, raw `arguments` a tool
//! never reads) are skipped without that limit. Once a message has been
//! read, one nested deeper than that is refused whole, whichever part holds
//! the depth.

/// The deepest nesting of arrays and objects a message may have: serde_json's
/// own limit for what it reads.
pub(crate) const MAX_DEPTH: usize = 128;

/// Whether `bytes` nests arrays and objects at most `limit` deep. Brackets
/// inside strings do not count.
///
/// A message cannot nest deeper than it has opening brackets, and counting
/// those is one comparison per byte that the compiler vectorizes, so the
/// common message is cleared without a walk through its strings.
pub(crate) fn within(bytes: &[u8], limit: usize) -> bool {
    if openings(bytes) <= limit {
        return true;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
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
                if depth > limit {
                    return false;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// How many `[` and `{` `bytes` holds, strings included. Counted in `u8`
/// per block of 128 bytes, a form the compiler turns into vector
/// comparisons and additions.
fn openings(bytes: &[u8]) -> usize {
    bytes
        .chunks(128)
        .map(|block| {
            // `[` is 0x5B and `{` 0x7B: setting bit 5 makes both, and nothing else, 0x7B.
            let count: u8 = block.iter().map(|&byte| u8::from(byte | 0x20 == b'{')).sum();
            usize::from(count)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::within;

    #[test]
    fn openings_are_counted_across_blocks() {
        let text = format!("{}{}", "[{x".repeat(300), "]".repeat(7));
        assert_eq!(super::openings(text.as_bytes()), 600);
        assert_eq!(super::openings(b""), 0);
    }

    #[test]
    fn depth_counts_brackets_outside_strings_only() {
        assert!(within(br#"{"a":[1,{"b":[]}]}"#, 4));
        assert!(!within(br#"{"a":[1,{"b":[]}]}"#, 3));
        assert!(within(br#"{"a":"[[[[{{{{","b":"\"[[[["}"#, 1), "brackets in strings");
        assert!(!within(br#"{"a":"\\",[[[]]]}"#, 3), "an escaped backslash ends no string");
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert!(!within(deep.as_bytes(), 128));
        assert!(within(deep.as_bytes(), 129));
        let wide = format!("[{}[]]", "[],".repeat(1000));
        assert!(within(wide.as_bytes(), 2), "many brackets, little depth");
    }
}
