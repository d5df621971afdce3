//! Opaque list cursors.
//!
//! A cursor names the last item of the page it follows, by that item's sort
//! key, and the next page starts with the first item sorting after it. Lists
//! are sorted, so a cursor stays right when tools, prompts or resources are
//! added or removed between pages: nothing is skipped or repeated.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::protocol::ErrorObject;

/// The format's tag; a cursor of another format is refused.
const VERSION: &str = "mcp2";

/// The longest cursor read: one naming an item by a name and a URI of the
/// longest a template matches (8 KiB) is about 11 KiB of Base64. A longer
/// one is refused before it is decoded.
pub(crate) const MAX_CURSOR_LEN: usize = 16 * 1024;

/// How much of a refused cursor its error repeats.
const SHOWN_LEN: usize = 64;

/// Where a list's items sort: by name, then (for resources and templates,
/// whose names may repeat) by URI.
pub(crate) type SortKey<'a> = (&'a str, &'a str);

/// The cursor of the page that follows the item `last` of the list `list`.
pub(crate) fn encode(list: &str, last: SortKey<'_>) -> String {
    URL_SAFE_NO_PAD.encode(format!("{VERSION}\0{list}\0{}\0{}", last.0, last.1))
}

/// The sort key a cursor of `list` follows; `None` without a cursor.
pub(crate) fn decode(cursor: Option<&str>, list: &str) -> Result<Option<(String, String)>, ErrorObject> {
    let Some(cursor) = cursor else { return Ok(None) };
    if cursor.len() > MAX_CURSOR_LEN {
        let why = format!("Invalid cursor: longer than {MAX_CURSOR_LEN} bytes, so not one this server sent");
        return Err(ErrorObject::invalid_params(why));
    }
    let invalid = || {
        let shown = match cursor.char_indices().nth(SHOWN_LEN) {
            Some((cut, _)) => format!("{}…", &cursor[..cut]),
            None => cursor.to_owned(),
        };
        ErrorObject::invalid_params(format!("Invalid cursor: `{shown}`"))
    };
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    let mut parts = text.split('\0');
    match (parts.next(), parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(VERSION), Some(kind), Some(name), Some(key), None) if kind == list => {
            Ok(Some((name.to_owned(), key.to_owned())))
        }
        _ => Err(invalid()),
    }
}

/// The position of the first of `len` sorted items (`key_of(i)` the sort
/// key of item `i`) that sorts after `after`; 0 without a cursor.
pub(crate) fn start<'a>(after: Option<&(String, String)>, len: usize, key_of: impl Fn(usize) -> SortKey<'a>) -> usize {
    let Some((name, key)) = after else { return 0 };
    let after = (name.as_str(), key.as_str());
    // A binary search over positions: the items are sorted by `key_of`.
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if key_of(middle) <= after {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// The range of one page from `start` and the cursor of the next, if any.
pub(crate) fn page<'a>(
    list: &str,
    start: usize,
    len: usize,
    page_size: usize,
    key_of: impl Fn(usize) -> SortKey<'a>,
) -> (std::ops::Range<usize>, Option<String>) {
    let start = start.min(len);
    let end = start.saturating_add(page_size.max(1)).min(len);
    let next = (end < len).then(|| encode(list, key_of(end - 1)));
    (start..end, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];

    fn key(i: usize) -> SortKey<'static> {
        (NAMES[i], "")
    }

    #[test]
    fn cursors_follow_the_last_item_and_reject_garbage() {
        assert_eq!(decode(None, "tools").unwrap(), None);
        let (range, next) = page("tools", 0, 5, 2, key);
        assert_eq!(range, 0..2);
        let after = decode(next.as_deref(), "tools").unwrap();
        assert_eq!(after, Some(("b".to_owned(), String::new())));
        assert_eq!(start(after.as_ref(), 5, key), 2);
        assert_eq!(page("tools", 4, 5, 2, key), (4..5, None));
        assert!(decode(next.as_deref(), "prompts").is_err(), "a cursor belongs to its list");
        assert!(decode(Some("not a cursor"), "tools").is_err());
        assert!(decode(Some(""), "tools").is_err());
        assert!(decode(Some(&URL_SAFE_NO_PAD.encode("mcp1:2")), "tools").is_err(), "an old position cursor");
    }

    #[test]
    fn a_cursor_is_bounded_before_it_is_decoded_and_its_error_is_short() {
        let long_uri = format!("files://{}", "a".repeat(8 * 1024 - 8));
        let longest = encode("templates", ("a template name of some length", &long_uri));
        assert!(longest.len() <= MAX_CURSOR_LEN, "a cursor this server sends is read");
        assert!(decode(Some(&longest), "templates").is_ok());
        let huge = "A".repeat(MAX_CURSOR_LEN + 1);
        let error = decode(Some(&huge), "tools").expect_err("too long");
        assert_eq!(error.code, -32602);
        assert!(error.message.len() < 100, "{}", error.message);
        let error = decode(Some(&"é".repeat(1000)), "tools").expect_err("not Base64");
        assert!(error.message.chars().count() < 100, "{}", error.message);
    }

    #[test]
    fn a_cursor_survives_items_added_or_removed_before_it() {
        let after = decode(Some(&encode("tools", ("b", ""))), "tools").unwrap();
        // "b" removed: the next page still starts with "c".
        let without_b = ["a", "c", "d"];
        assert_eq!(start(after.as_ref(), 3, |i| (without_b[i], "")), 1);
        // "aa" added before it: "c" still comes next, nothing repeats.
        let with_aa = ["a", "aa", "b", "c"];
        assert_eq!(start(after.as_ref(), 4, |i| (with_aa[i], "")), 3);
        // Everything after it gone: an empty last page.
        assert_eq!(page("tools", start(after.as_ref(), 2, key), 2, 2, key), (2..2, None));
    }
}
