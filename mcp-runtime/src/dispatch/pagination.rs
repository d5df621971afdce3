//! Opaque list cursors.
//!
//! A cursor is the position of the next item, encoded so clients cannot
//! mistake it for anything meaningful. Lists are sorted, so positions are
//! stable while the set of items is unchanged.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::protocol::ErrorObject;

const PREFIX: &str = "mcp1:";

pub(crate) fn encode(position: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{PREFIX}{position}"))
}

/// The position a cursor points at, checked against the list's length.
pub(crate) fn decode(cursor: Option<&str>, len: usize) -> Result<usize, ErrorObject> {
    let Some(cursor) = cursor else { return Ok(0) };
    let invalid = || ErrorObject::invalid_params(format!("Invalid cursor: `{cursor}`"));
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let text = std::str::from_utf8(&bytes).map_err(|_| invalid())?;
    let position: usize = text.strip_prefix(PREFIX).and_then(|n| n.parse().ok()).ok_or_else(invalid)?;
    if position > len {
        return Err(invalid());
    }
    Ok(position)
}

/// The range of one page and the cursor of the next, if any.
pub(crate) fn page(start: usize, len: usize, page_size: usize) -> (std::ops::Range<usize>, Option<String>) {
    let end = start.saturating_add(page_size).min(len);
    let next = (end < len).then(|| encode(end));
    (start..end, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(decode(None, 3).unwrap(), 0);
        assert_eq!(decode(Some(&encode(2)), 3).unwrap(), 2);
        assert!(decode(Some(&encode(4)), 3).is_err());
        assert!(decode(Some("not a cursor"), 3).is_err());
        assert!(decode(Some(""), 3).is_err());
        assert_eq!(page(0, 5, 2), (0..2, Some(encode(2))));
        assert_eq!(page(4, 5, 2), (4..5, None));
    }
}
