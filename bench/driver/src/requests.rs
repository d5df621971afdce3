//! The requests every server receives: 2026-07-28 `tools/call` of `echo`
//! and `tools/list`, with the full `_meta` and every HTTP header the
//! revision asks for.

use bytes::Bytes;

/// The protocol revision the requests speak.
pub(crate) const VERSION: &str = "2026-07-28";

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
            name: Some("echo"),
            body: Bytes::from(Call::echo_line(1)),
            expect: br#"{"type":"text","text":"hello"}"#,
        }
    }

    /// `tools/list` without a cursor.
    pub(crate) fn list() -> Call {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{}}}}}"#, meta());
        Call { method: "tools/list", name: None, body: Bytes::from(body), expect: br#""tools":["# }
    }

    /// The `tools/call` request with another id, for stdio where requests
    /// in flight need distinct ids.
    pub(crate) fn echo_line(id: u64) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{TEXT}"}},{}}}}}"#,
            meta()
        )
    }
}
