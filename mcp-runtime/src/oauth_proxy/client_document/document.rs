//! A fetched document read and checked: what the front keeps of it.

use serde_json::{Map, Value};
use url::Url;

use super::client_id::MAX_URL_BYTES;
use super::error::DocumentError;

/// The most redirect URIs a document may name.
const MAX_REDIRECT_URIS: usize = 20;

/// The longest `client_name`, in characters: it is shown on the consent page.
const MAX_NAME_CHARS: usize = 200;

/// The most of a value a client developer is shown in an error.
const SHOWN_CHARS: usize = 100;

/// A Client ID Metadata Document, checked: what the front keeps of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ClientDocument {
    /// The document's URL, which is its `client_id`.
    pub(crate) client_id: String,
    /// What the consent page calls the client: at most 200 characters,
    /// none a control or bidirectional formatting character.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_name: Option<String>,
    /// Where the client may be sent back: 1 to 20 absolute URIs without a
    /// fragment, each at most 2048 bytes.
    pub(crate) redirect_uris: Vec<String>,
    /// The client's home page: an `http` or `https` URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_uri: Option<String>,
}

/// The document in `body`, fetched from `client_id`, checked.
pub(super) fn read_document(client_id: &str, body: &[u8]) -> Result<ClientDocument, DocumentError> {
    let document = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(document)) => document,
        Ok(_) => return Err(DocumentError::NotJson("it is JSON of another kind".into())),
        Err(e) => return Err(DocumentError::NotJson(e.to_string())),
    };
    for secret in ["client_secret", "client_secret_expires_at"] {
        if document.contains_key(secret) {
            return Err(DocumentError::Secret(secret));
        }
    }
    match document.get("client_id") {
        Some(Value::String(id)) if id == client_id => {}
        Some(Value::String(id)) => return Err(DocumentError::ClientIdMismatch(format!("it is {:?}", shorten(id)))),
        Some(_) => return Err(DocumentError::ClientIdMismatch("it is not a string".into())),
        None => return Err(DocumentError::ClientIdMismatch("it has none".into())),
    }
    let redirect_uris = strings(&document, "redirect_uris")?.ok_or(DocumentError::NoRedirectUris)?;
    if redirect_uris.is_empty() {
        return Err(DocumentError::NoRedirectUris);
    }
    if redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(invalid("redirect_uris", format!("has more than {MAX_REDIRECT_URIS} entries")));
    }
    for uri in &redirect_uris {
        check_redirect_uri(uri)?;
    }
    if let Some(method) = string(&document, "token_endpoint_auth_method")?
        && method != "none"
    {
        return Err(DocumentError::AuthMethod(format!("{:?}", shorten(method))));
    }
    if let Some(grant_types) = strings(&document, "grant_types")?
        && !grant_types.contains(&"authorization_code")
    {
        return Err(invalid("grant_types", "does not include \"authorization_code\"".into()));
    }
    if let Some(response_types) = strings(&document, "response_types")?
        && !response_types.contains(&"code")
    {
        return Err(invalid("response_types", "does not include \"code\"".into()));
    }
    let client_name = string(&document, "client_name")?;
    if let Some(name) = client_name {
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(invalid("client_name", format!("is longer than {MAX_NAME_CHARS} characters")));
        }
        // Bidirectional overrides would let a name read, on the consent
        // page, as another one.
        if name.chars().any(|c| c.is_control() || is_bidi_control(c)) {
            return Err(invalid("client_name", "has control or bidirectional formatting characters".into()));
        }
    }
    let client_uri = string(&document, "client_uri")?;
    // The consent page links it: a `javascript:` URL there would run.
    if let Some(uri) = client_uri
        && (uri.len() > MAX_URL_BYTES || !Url::parse(uri).is_ok_and(|url| matches!(url.scheme(), "https" | "http")))
    {
        return Err(invalid("client_uri", format!("is not an http or https URL of at most {MAX_URL_BYTES} bytes")));
    }
    Ok(ClientDocument {
        client_id: client_id.to_owned(),
        client_name: client_name.map(str::to_owned),
        redirect_uris: redirect_uris.into_iter().map(str::to_owned).collect(),
        client_uri: client_uri.map(str::to_owned),
    })
}

/// Whether `c` is one of the invisible characters that change the
/// direction of the text around them (Unicode Bidi_Control).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Checks one of a document's redirect URIs: an absolute URI, without a
/// fragment (RFC 6749 §3.1.2), short enough; kept as written, since
/// requests must name it exactly.
fn check_redirect_uri(uri: &str) -> Result<(), DocumentError> {
    let shown = shorten(uri);
    if uri.len() > MAX_URL_BYTES {
        return Err(invalid("redirect_uris", format!("has an entry longer than {MAX_URL_BYTES} bytes ({shown:?})")));
    }
    // The parser would drop these, and the URI compared would not be the
    // one used.
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid("redirect_uris", format!("has an entry with spaces or control characters ({shown:?})")));
    }
    if uri.contains('#') {
        return Err(invalid("redirect_uris", format!("has an entry with a fragment ({shown:?})")));
    }
    if Url::parse(uri).is_err() {
        return Err(invalid("redirect_uris", format!("has an entry that is not an absolute URI ({shown:?})")));
    }
    Ok(())
}

/// The string `field` of `document`, if present (`null` is absent).
fn string<'a>(document: &'a Map<String, Value>, field: &'static str) -> Result<Option<&'a str>, DocumentError> {
    match document.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(value)) => Ok(Some(value)),
        Some(_) => Err(invalid(field, "is not a string".into())),
    }
}

/// The array of strings `field` of `document`, if present (`null` is
/// absent).
fn strings<'a>(document: &'a Map<String, Value>, field: &'static str) -> Result<Option<Vec<&'a str>>, DocumentError> {
    match document.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(values)) => values
            .iter()
            .map(|value| value.as_str().ok_or_else(|| invalid(field, "is not an array of strings".into())))
            .collect::<Result<_, _>>()
            .map(Some),
        Some(_) => Err(invalid(field, "is not an array of strings".into())),
    }
}

/// A [`DocumentError::InvalidField`].
fn invalid(field: &'static str, reason: String) -> DocumentError {
    DocumentError::InvalidField { field, reason }
}

/// `value`, cut to what an error message may show of it.
pub(super) fn shorten(value: &str) -> String {
    match value.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The client id of the documents checked without a fetch.
    const ID: &str = "https://app.example.com/client.json";

    /// [`read_document`] of `document` as fetched from [`ID`].
    fn read(document: Value) -> Result<ClientDocument, DocumentError> {
        read_document(ID, document.to_string().as_bytes())
    }

    #[test]
    fn documents_are_checked() {
        let good = json!({
            "client_id": ID,
            "client_name": "Example App",
            "client_uri": "https://app.example.com",
            "redirect_uris": ["http://127.0.0.1/callback", "com.example.app:/callback"],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "logo_uri": "https://app.example.com/logo.png",
        });
        let document = read(good.clone()).expect("a good document");
        assert_eq!(
            document,
            ClientDocument {
                client_id: ID.into(),
                client_name: Some("Example App".into()),
                redirect_uris: vec!["http://127.0.0.1/callback".into(), "com.example.app:/callback".into()],
                client_uri: Some("https://app.example.com".into()),
            }
        );
        let minimal = read(json!({"client_id": ID, "redirect_uris": ["https://app.example.com/cb"]})).expect("minimal");
        assert_eq!(minimal.client_name, None);
        assert_eq!(minimal.client_uri, None);

        let with = |field: &str, value: Value| {
            let mut document = good.clone();
            document[field] = value;
            read(document).expect_err(field).to_string()
        };
        let without = |field: &str| {
            let mut document = good.clone();
            document.as_object_mut().expect("an object").remove(field);
            read(document).expect_err(field).to_string()
        };
        assert_eq!(
            with("client_id", json!("https://app.example.com/other.json")),
            "the document's client_id is not its URL: it is \"https://app.example.com/other.json\""
        );
        assert!(with("client_id", json!("https://app.example.com/client.json/")).contains("not its URL"));
        assert!(with("client_id", json!("https://APP.example.com/client.json")).contains("not its URL"));
        assert!(with("client_id", json!(7)).contains("not its URL"));
        assert!(without("client_id").contains("not its URL"));
        assert_eq!(without("redirect_uris"), "the document names no redirect_uris");
        assert_eq!(with("redirect_uris", json!([])), "the document names no redirect_uris");
        assert!(with("redirect_uris", json!(null)).contains("no redirect_uris"));
        assert!(with("redirect_uris", json!("https://a.example/cb")).contains("not an array of strings"));
        assert!(with("redirect_uris", json!([1])).contains("not an array of strings"));
        let many: Vec<String> = (0..21).map(|i| format!("https://app.example.com/cb{i}")).collect();
        assert!(with("redirect_uris", json!(many)).contains("more than 20"));
        let long = format!("https://app.example.com/{}", "a".repeat(2048));
        assert!(with("redirect_uris", json!([long])).contains("longer than 2048 bytes"));
        assert!(with("redirect_uris", json!(["https://app.example.com/cb#top"])).contains("fragment"));
        assert!(with("redirect_uris", json!(["/callback"])).contains("not an absolute URI"));
        assert!(with("redirect_uris", json!([" https://app.example.com/cb"])).contains("spaces"));
        assert!(with("token_endpoint_auth_method", json!("private_key_jwt")).contains("cannot verify private_key_jwt"));
        assert!(with("token_endpoint_auth_method", json!("client_secret_basic")).contains("only \"none\""));
        assert!(with("grant_types", json!(["client_credentials"])).contains("authorization_code"));
        assert!(with("response_types", json!(["token"])).contains("\"code\""));
        assert!(with("client_name", json!("x".repeat(201))).contains("longer than 200 characters"));
        assert!(with("client_name", json!("Evil\u{202e}ppA")).contains("bidirectional formatting"));
        assert!(with("client_name", json!("Line\nbreak")).contains("control"));
        assert!(with("client_name", json!(["a"])).contains("is not a string"));
        assert!(with("client_uri", json!("javascript:alert(1)")).contains("not an http or https URL"));
        assert_eq!(
            with("client_secret", json!("s3cret")),
            "the document holds a client_secret: a client metadata document is public and cannot hold a secret"
        );
        assert!(with("client_secret_expires_at", json!(0)).contains("cannot hold a secret"));
        read(json!({"client_id": ID, "redirect_uris": ["https://a.example/cb"], "client_name": "é".repeat(200)}))
            .expect("200 characters, not bytes");
        assert!(read_document(ID, b"[1]").expect_err("an array").to_string().contains("not a JSON object"));
        assert!(read_document(ID, b"{").expect_err("no JSON").to_string().contains("not a JSON object"));
    }
}
