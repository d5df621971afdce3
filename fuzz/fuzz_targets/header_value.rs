//! Header value decoding: the Base64 sentinel `=?base64?…?=` or the literal
//! text. Never a panic, a decoded value is what was encoded, and the
//! `Mcp-Name` check agrees with the decoding.
#![no_main]

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use libfuzzer_sys::fuzz_target;
use mcp_runtime::fuzzing;
use serde_json::{Map, json};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(text) = std::str::from_utf8(bytes) {
        match fuzzing::decode_header_value(text) {
            Ok(decoded) => {
                if !text.starts_with("=?base64?") || !text.ends_with("?=") {
                    assert_eq!(decoded, text, "a literal value changed");
                }
            }
            Err(_) => assert!(text.starts_with("=?base64?"), "a literal value was refused"),
        }
        // Any text, encoded by a client, decodes back to itself.
        let sent = format!("=?base64?{}?=", STANDARD.encode(text));
        assert_eq!(fuzzing::decode_header_value(&sent).as_deref(), Ok(text));
    }
    // The raw bytes as an `Mcp-Name` header, for a `tools/call` of the tool `été`.
    let Ok(value) = http::HeaderValue::from_bytes(bytes) else { return };
    let mut headers = http::HeaderMap::new();
    headers.insert("mcp-protocol-version", http::HeaderValue::from_static("2026-07-28"));
    headers.insert("mcp-method", http::HeaderValue::from_static("tools/call"));
    headers.insert("mcp-name", value.clone());
    let schema = Map::from_iter([("type".to_owned(), json!("object"))]);
    let verdict = fuzzing::check_headers(&headers, "tools/call", "2026-07-28", Some("été"), &schema, None)
        .expect("no annotations");
    let expected =
        value.to_str().ok().map(|v| v.trim_matches([' ', '\t'])).and_then(|v| fuzzing::decode_header_value(v).ok());
    assert_eq!(verdict.is_ok(), expected.as_deref() == Some("été"));
});
