//! Asking the transport for JSON only, for responses Lambda buffers.
//!
//! The HTTP transport answers `text/event-stream` when a request may send
//! notifications before its result (it carries a progress token, say) and
//! the client takes a stream, and plain JSON to a client that takes only
//! JSON. A buffered response delivers a stream's events all at once after
//! the result anyway, so a client that takes JSON is told to take only
//! JSON, and gets its result as one JSON document.

use http::header::ACCEPT;
use http::{HeaderMap, HeaderValue};

/// Narrows `Accept` to `application/json` when it allows JSON; leaves it
/// alone otherwise, for the transport to answer as it does (an event
/// stream to a client that takes nothing else, 406 to one that takes
/// neither).
pub(crate) fn json_only(headers: &mut HeaderMap) {
    if takes_json(headers) {
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    }
}

/// Whether `Accept` allows JSON, read as leniently as the transport reads
/// it: absent or empty allows everything, wildcards count, `q=0` refuses.
fn takes_json(headers: &HeaderMap) -> bool {
    let mut seen_any = false;
    for value in headers.get_all(ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for range in value.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or_default().trim();
            if media.is_empty() {
                continue;
            }
            seen_any = true;
            let refused = parts.any(|p| {
                p.split_once('=').is_some_and(|(name, q)| {
                    name.trim().eq_ignore_ascii_case("q") && q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
                })
            });
            if !refused && ["application/json", "application/*", "*/*"].iter().any(|m| media.eq_ignore_ascii_case(m)) {
                return true;
            }
        }
    }
    !seen_any
}

#[cfg(test)]
mod tests {
    use super::*;

    fn narrowed(accept: Option<&str>) -> Option<String> {
        let mut headers = HeaderMap::new();
        if let Some(accept) = accept {
            headers.insert(ACCEPT, HeaderValue::from_str(accept).expect("a valid header"));
        }
        json_only(&mut headers);
        headers.get(ACCEPT).map(|v| v.to_str().expect("text").to_owned())
    }

    #[test]
    fn clients_that_take_json_are_asked_for_json_only() {
        let json = Some("application/json".to_owned());
        assert_eq!(narrowed(Some("application/json, text/event-stream")), json);
        assert_eq!(narrowed(Some("text/event-stream, Application/*;q=0.5")), json);
        assert_eq!(narrowed(Some("*/*")), json);
        assert_eq!(narrowed(None), json, "no Accept allows everything");
        assert_eq!(narrowed(Some("text/event-stream")).as_deref(), Some("text/event-stream"));
        assert_eq!(
            narrowed(Some("application/json;q=0, text/html")).as_deref(),
            Some("application/json;q=0, text/html")
        );
    }
}
