//! `Content-Type` and `Accept`, checked before the body is parsed: what the
//! client sent and which response formats it takes.

use http::{HeaderMap, header};

/// The response formats a request's `Accept` allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Acceptable {
    pub(crate) json: bool,
    pub(crate) event_stream: bool,
}

/// Whether the body is declared as JSON: `application/json`, any case, with
/// or without parameters such as `charset=utf-8`.
pub(crate) fn is_json_content(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE) else { return false };
    let essence = value.as_bytes().split(|&b| b == b';').next().unwrap_or_default().trim_ascii();
    essence.eq_ignore_ascii_case(b"application/json")
}

/// Reads `Accept` leniently: absent or empty allows everything, and wildcards
/// (`*/*`, `application/*`, `text/*`) count; a range with `q=0` excludes.
pub(crate) fn acceptable(headers: &HeaderMap) -> Acceptable {
    let mut seen_any = false;
    let mut result = Acceptable { json: false, event_stream: false };
    let values = headers.get_all(header::ACCEPT);
    let mut iter = values.iter();
    // What every conforming client sends, settled without parsing.
    if let (Some(only), None) = (iter.next(), iter.next())
        && only.as_bytes().eq_ignore_ascii_case(b"application/json, text/event-stream")
    {
        return Acceptable { json: true, event_stream: true };
    }
    for value in values {
        // Header values are bytes; the media ranges we look for are ASCII.
        for range in value.as_bytes().split(|&b| b == b',') {
            let mut parts = range.split(|&b| b == b';');
            let media = parts.next().unwrap_or_default().trim_ascii();
            if media.is_empty() {
                continue;
            }
            seen_any = true;
            let refused = parts.any(|p| {
                let Some(at) = p.iter().position(|&b| b == b'=') else { return false };
                let (name, value) = (p[..at].trim_ascii(), p[at + 1..].trim_ascii());
                name.eq_ignore_ascii_case(b"q")
                    && std::str::from_utf8(value).ok().and_then(|v| v.parse::<f32>().ok()).is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            let is = |name: &str| media.eq_ignore_ascii_case(name.as_bytes());
            if is("*/*") {
                result.json = true;
                result.event_stream = true;
            } else if is("application/json") || is("application/*") {
                result.json = true;
            } else if is("text/event-stream") || is("text/*") {
                result.event_stream = true;
            }
        }
    }
    if seen_any { result } else { Acceptable { json: true, event_stream: true } }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn with(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(name, HeaderValue::from_str(value).expect("valid header"));
        map
    }

    #[test]
    fn content_type_must_be_json() {
        assert!(is_json_content(&with(header::CONTENT_TYPE, "application/json")));
        assert!(is_json_content(&with(header::CONTENT_TYPE, "Application/JSON; charset=utf-8")));
        assert!(!is_json_content(&with(header::CONTENT_TYPE, "text/plain")));
        assert!(!is_json_content(&with(header::CONTENT_TYPE, "application/jsonl")));
        assert!(!is_json_content(&HeaderMap::new()));
    }

    #[test]
    fn accept_is_read_leniently() {
        let both = Acceptable { json: true, event_stream: true };
        assert_eq!(acceptable(&HeaderMap::new()), both);
        assert_eq!(acceptable(&with(header::ACCEPT, "application/json, text/event-stream")), both);
        assert_eq!(acceptable(&with(header::ACCEPT, "*/*")), both);
        assert_eq!(
            acceptable(&with(header::ACCEPT, "application/*;q=0.5")),
            Acceptable { json: true, event_stream: false }
        );
        assert_eq!(
            acceptable(&with(header::ACCEPT, "text/event-stream")),
            Acceptable { json: false, event_stream: true }
        );
        assert_eq!(
            acceptable(&with(header::ACCEPT, "application/json;q=0, text/html")),
            Acceptable { json: false, event_stream: false }
        );
    }
}
