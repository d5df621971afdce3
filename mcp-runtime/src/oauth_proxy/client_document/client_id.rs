//! Which client ids name a document: the URL checks made before any
//! request.

use url::Url;

use super::error::DocumentError;

/// The longest client id, and the longest redirect URI, in bytes.
pub(super) const MAX_URL_BYTES: usize = 2048;

/// `client_id` parsed, if it is a URL a document may have: `https` (or
/// `http` if `plain_http`), a host, a path, and nothing else (no user
/// info, query or fragment, no dot segments).
pub(super) fn check_url(client_id: &str, plain_http: bool) -> Result<Url, DocumentError> {
    let rest = match client_id.strip_prefix("https://") {
        Some(rest) => rest,
        None if plain_http => client_id.strip_prefix("http://").ok_or(DocumentError::NotHttps)?,
        None => return Err(DocumentError::NotHttps),
    };
    if client_id.len() > MAX_URL_BYTES {
        return Err(DocumentError::InvalidUrl("it is longer than 2048 bytes"));
    }
    // The URL parser drops spaces and controls, takes `\` for `/`, and
    // resolves dot segments: the client id is compared with the document's
    // byte for byte, so what was asked for must be what is fetched.
    if !client_id.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(DocumentError::InvalidUrl("it has spaces, control or non-ASCII characters"));
    }
    if client_id.contains('\\') {
        return Err(DocumentError::InvalidUrl("it has a backslash"));
    }
    if client_id.contains('#') {
        return Err(DocumentError::InvalidUrl("it has a fragment"));
    }
    if client_id.contains('?') {
        return Err(DocumentError::InvalidUrl("it has a query"));
    }
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    // `https:///x` is `https://x/` to the parser.
    if authority.is_empty() {
        return Err(DocumentError::InvalidUrl("it has no host"));
    }
    if authority.contains('@') {
        return Err(DocumentError::InvalidUrl("it has user info"));
    }
    if path.split('/').any(is_dot_segment) {
        return Err(DocumentError::InvalidUrl("its path has . or .. segments"));
    }
    let url = Url::parse(client_id).map_err(|_| DocumentError::InvalidUrl("it is not a URL"))?;
    if url.host().is_none() {
        return Err(DocumentError::InvalidUrl("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(DocumentError::InvalidUrl("it has user info"));
    }
    if url.query().is_some() {
        return Err(DocumentError::InvalidUrl("it has a query"));
    }
    if url.fragment().is_some() {
        return Err(DocumentError::InvalidUrl("it has a fragment"));
    }
    if url.path() == "/" || url.path().is_empty() {
        return Err(DocumentError::InvalidUrl("it has no path (a document cannot be at /)"));
    }
    Ok(url)
}

/// Whether a path segment is `.` or `..`, spelled out or percent-encoded,
/// as the URL parser takes them.
fn is_dot_segment(segment: &str) -> bool {
    let segment = segment.to_ascii_lowercase();
    matches!(segment.as_str(), "." | ".." | "%2e" | "%2e%2e" | ".%2e" | "%2e.")
}
