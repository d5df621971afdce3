//! The requests every server receives: 2026-07-28 `tools/call` of `echo`
//! and `tools/list`, with the full `_meta` and every HTTP header the
//! revision asks for; and the 2025-era session's `initialize`,
//! `notifications/initialized` and `tools/call`, as a 2025-11-25 client
//! sends them.

use bytes::Bytes;

/// The protocol revision the requests speak.
pub(crate) const VERSION: &str = "2026-07-28";

/// The revision the 2025-era session's requests speak.
pub(crate) const LEGACY_VERSION: &str = "2025-11-25";

/// The name `echo` is called by: `echo`, or what `ECHO_TOOL` says (a
/// gateway serves a remote's `echo` under a prefix).
pub(crate) fn echo_name() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| std::env::var("ECHO_TOOL").unwrap_or_else(|_| "echo".to_owned()))
}

/// The text `echo` is called with, and so must come back.
pub(crate) const TEXT: &str = "hello";

fn meta() -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{VERSION}","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"bench-driver","version":"0.1.0"}}}}"#
    )
}

/// One kind of request, ready to send over HTTP or stdio.
#[derive(Clone)]
pub(crate) struct Call {
    /// The JSON-RPC method, also sent as `Mcp-Method`.
    pub(crate) method: &'static str,
    /// `Mcp-Name`, for `tools/call`.
    pub(crate) name: Option<&'static str>,
    /// A request of a 2025-era session: sent with `Mcp-Session-Id` and
    /// [`LEGACY_VERSION`], without `Mcp-Method` and `Mcp-Name`, which that
    /// era does not know.
    pub(crate) legacy: bool,
    /// A 2025-era request sent without any session (the stateless modes of
    /// the official SDKs): no `initialize`, no `Mcp-Session-Id`.
    pub(crate) sessionless: bool,
    /// The HTTP body, with id 1: every HTTP request is the same bytes.
    pub(crate) body: Bytes,
    /// What every successful answer contains.
    pub(crate) expect: &'static [u8],
}

impl Call {
    /// `tools/call` of `echo` with `{"text": "hello"}`.
    pub(crate) fn echo() -> Call {
        Call {
            method: "tools/call",
            name: Some(echo_name()),
            legacy: false,
            sessionless: false,
            body: Bytes::from(Call::echo_line(1)),
            // By the `text` member alone: peers order a block's members differently.
            expect: br#""text":"hello""#,
        }
    }

    /// `tools/list` without a cursor.
    pub(crate) fn list() -> Call {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{}}}}}"#, meta());
        Call {
            method: "tools/list",
            name: None,
            legacy: false,
            sessionless: false,
            body: Bytes::from(body),
            expect: br#""tools":["#,
        }
    }

    /// `tools/call` of `echo` in a 2025-era session: no `_meta`. The
    /// answer's text block is checked by its `text` member alone, as
    /// servers order its members differently.
    pub(crate) fn legacy_echo() -> Call {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{}","arguments":{{"text":"{TEXT}"}}}}}}"#,
            echo_name()
        );
        Call { legacy: true, body: Bytes::from(body), expect: br#""text":"hello""#, ..Call::echo() }
    }

    /// The same 2025-era call, sent with no session at all.
    pub(crate) fn sessionless_echo() -> Call {
        Call { sessionless: true, ..Call::legacy_echo() }
    }

    /// `tools/call` of `lookup` (the I/O-bound workload) for the key the
    /// backends hold: its answer is Redis's value and the endpoint's body.
    pub(crate) fn lookup() -> Call {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"lookup","arguments":{{"key":"{}"}},{}}}}}"#,
            crate::backends::KEY,
            meta()
        );
        Call {
            name: Some("lookup"),
            body: Bytes::from(body),
            expect: br#""text":"from-redis from-http""#,
            ..Call::echo()
        }
    }

    /// The same call in a 2025-era session: no `_meta`.
    pub(crate) fn legacy_lookup() -> Call {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"lookup","arguments":{{"key":"{}"}}}}}}"#,
            crate::backends::KEY
        );
        Call { legacy: true, body: Bytes::from(body), ..Call::lookup() }
    }

    /// The 2025-era `initialize` that opens a session.
    pub(crate) fn initialize() -> Bytes {
        Bytes::from(format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY_VERSION}","capabilities":{{}},"clientInfo":{{"name":"bench-driver","version":"0.1.0"}}}}}}"#
        ))
    }

    /// The notification that ends a session's handshake.
    pub(crate) fn initialized() -> Bytes {
        Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    }

    /// The `tools/call` request with another id, for stdio where requests
    /// in flight need distinct ids.
    pub(crate) fn echo_line(id: u64) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{}","arguments":{{"text":"{TEXT}"}},{}}}}}"#,
            echo_name(),
            meta()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::{BODY, KEY, VALUE};

    #[test]
    fn a_lookup_expects_what_the_backends_hold() {
        let expect = format!(r#""text":"{VALUE} {BODY}""#);
        assert_eq!(Call::lookup().expect, expect.as_bytes());
        assert_eq!(Call::legacy_lookup().expect, expect.as_bytes());
        let body = String::from_utf8(Call::legacy_lookup().body.to_vec()).expect("UTF-8");
        assert!(body.contains(&format!(r#""arguments":{{"key":"{KEY}"}}"#)) && !body.contains("_meta"), "{body}");
    }
}
