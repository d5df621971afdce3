//! `tools/call` requests are read in one pass when `method` comes before
//! `params`, and the general way otherwise. Both readings must answer every
//! message, valid or not, byte for byte alike; these cases send each body
//! in both member orders and compare.

use mcp_tests::exchange::{Reply, send_bytes, send_bytes_with_headers};

use crate::fixture::{self, FakeHeaders};

const META: &str =
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The message with `method` first (the one-pass reading) and with
/// `params` first (the general reading).
fn both_orders(id: &str, method: &str, params: &str) -> [String; 2] {
    [
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method},"params":{params}}}"#),
        format!(r#"{{"params":{params},"jsonrpc":"2.0","method":{method},"id":{id}}}"#),
    ]
}

/// The reply, without the positions serde_json puts in its messages (the
/// two orders put the same member at different columns).
fn summary(reply: &Reply) -> (Option<String>, Option<u16>, String) {
    (reply.text.as_deref().map(without_positions), reply.http_status, format!("{:?}", reply.stage))
}

fn without_positions(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(" at line ") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + " at line ".len()..];
        let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let after_line = &tail[digits(tail)..];
        rest = match after_line.strip_prefix(" column ") {
            Some(column) => &column[digits(column)..],
            None => after_line,
        };
    }
    out.push_str(rest);
    out
}

async fn assert_alike(id: &str, method: &str, params: &str) -> Reply {
    let server = fixture::full();
    let [fast, general] = both_orders(id, method, params);
    let one = send_bytes(&server, fast.as_bytes()).await;
    let other = send_bytes(&server, general.as_bytes()).await;
    assert_eq!(summary(&one), summary(&other), "the two readings differ for params {params}");
    one
}

#[tokio::test]
async fn valid_calls_are_answered_alike_in_either_member_order() {
    let params = format!(r#"{{"name":"add","arguments":{{"a":2,"b":3}},"_meta":{META}}}"#);
    let reply = assert_alike("7", r#""tools/call""#, &params).await;
    assert_eq!(reply.result()["content"][0]["text"], "5");

    // `_meta` first, unknown members, escaped member names, string ids.
    let params =
        format!(r#"{{"_meta":{META},"x-extra":[1,{{"a":null}}],"n\u0061me":"add","arguments":{{"a":1,"b":1}}}}"#);
    let reply = assert_alike(r#""req-1""#, r#""tools/call""#, &params).await;
    assert_eq!(reply.result()["content"][0]["text"], "2");
    assert_eq!(reply.response()["id"], "req-1");
}

#[tokio::test]
async fn invalid_calls_get_the_same_error_from_either_reading() {
    let cases = [
        // `_meta`.
        r#"{"name":"add","arguments":{"a":1,"b":2}}"#.to_owned(),
        r#"{"name":"add","_meta":5}"#.to_owned(),
        r#"{"name":"add","_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#.to_owned(),
        r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}}"#.to_owned(),
        format!(r#"{{"name":"add","_meta":{META},"_meta":{META}}}"#),
        // `_meta` errors come before params errors.
        r#"{"name":5,"_meta":{}}"#.to_owned(),
        // The version.
        r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2024-01-01","io.modelcontextprotocol/clientCapabilities":{}}}"#.to_owned(),
        // The params.
        format!(r#"{{"_meta":{META}}}"#),
        format!(r#"{{"name":5,"_meta":{META}}}"#),
        format!(r#"{{"name":"add","name":"add","_meta":{META}}}"#),
        format!(r#"{{"name":"nope","_meta":{META}}}"#),
        format!(r#"{{"name":"add","arguments":[1],"_meta":{META}}}"#),
        format!(r#"{{"name":"add","arguments":"a","_meta":{META}}}"#),
        format!(r#"{{"name":"add","requestState":5,"_meta":{META}}}"#),
        format!(r#"{{"name":"add","inputResponses":[],"_meta":{META}}}"#),
        format!(r#"{{"name":"add","requestState":"forged","_meta":{META}}}"#),
        // The handler: arguments of the wrong type.
        format!(r#"{{"name":"add","arguments":{{"a":"one"}},"_meta":{META}}}"#),
        // Not even an object.
        "null".to_owned(),
        "[1]".to_owned(),
        r#""params""#.to_owned(),
    ];
    for params in &cases {
        let reply = assert_alike("3", r#""tools/call""#, params).await;
        assert!(reply.response.is_some(), "no answer for {params}");
    }
}

#[tokio::test]
async fn repeated_params_members_get_the_same_answer_from_either_reading() {
    let args = r#""arguments":{"a":2,"b":3}"#;
    // Members `tools/call` does not read may repeat.
    for members in [
        format!(r#""name":"add",{args},"uri":1,"uri":2,"_meta":{META}"#),
        format!(r#""x":[1],"name":"add","x":null,{args},"_meta":{META},"x":{{}}"#),
    ] {
        let reply = assert_alike("5", r#""tools/call""#, &format!("{{{members}}}")).await;
        assert_eq!(reply.result()["content"][0]["text"], "5", "for {members}");
    }
    // Those it reads may not: `_meta` and `name` before routing, the rest
    // with the call's own params.
    for (members, message, status) in [
        (format!(r#""name":"add","name":"add",{args},"_meta":{META}"#), "`params.name` appears more than once", 400),
        (format!(r#""name":"add",{args},"_meta":{META},"name":"nope""#), "`params.name` appears more than once", 400),
        (format!(r#""_meta":{META},"name":"add",{args},"_meta":{META}"#), "`params._meta` appears more than once", 400),
        (
            format!(r#""name":"add",{args},"_meta":{META},{args}"#),
            "Invalid params for `tools/call`: duplicate field `arguments`",
            200,
        ),
        (
            format!(r#""name":"add","requestState":"a","requestState":"a","_meta":{META}"#),
            "Invalid params for `tools/call`: duplicate field `requestState`",
            200,
        ),
    ] {
        let reply = assert_alike("5", r#""tools/call""#, &format!("{{{members}}}")).await;
        assert_eq!(reply.code(), -32602, "for {members}");
        let text = reply.error()["message"].as_str().map(without_positions);
        assert_eq!(text.as_deref(), Some(message), "for {members}");
        assert_eq!(reply.http_status, Some(status), "for {members}");
    }
}

#[tokio::test]
async fn params_that_are_not_an_object_get_the_same_error_from_either_reading() {
    for params in [
        format!("[{META}]"),
        format!(r#"[{META},"add"]"#),
        format!(r#"[{{"name":"add","arguments":{{"a":2,"b":3}},"_meta":{META}}}]"#),
        "[]".to_owned(),
        "7".to_owned(),
    ] {
        let reply = assert_alike("2", r#""tools/call""#, &params).await;
        assert_eq!(reply.error()["message"], "`params` must be an object", "for {params}");
        assert_eq!((reply.code(), reply.http_status), (-32602, Some(400)), "for {params}");
    }
}

#[tokio::test]
async fn odd_envelopes_get_the_same_answer_from_either_reading() {
    let params = format!(r#"{{"name":"add","arguments":{{"a":2,"b":3}},"_meta":{META}}}"#);
    for (id, method) in [
        ("null", r#""tools/call""#),
        ("1.5", r#""tools/call""#),
        ("{}", r#""tools/call""#),
        ("4", r#""tools\/call""#),
        ("4", r#""tools/list""#),
        ("4", "7"),
    ] {
        assert_alike(id, method, &params).await;
    }
    // Other members around `params`: before it (as the one-pass reading
    // sees them) and after it (as only the general reading can).
    let server = fixture::full();
    for members in [
        r#""jsonrpc":"1.0","id":1,"method":"tools/call""#,
        r#""jsonrpc":"2.0","method":"tools/call""#,
        r#""jsonrpc":"2.0","id":1,"method":"tools/call","result":{}"#,
        r#""jsonrpc":"2.0","id":1,"id":2,"method":"tools/call""#,
        r#""jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call""#,
        r#""jsonrpc":"2.0","method":"tools/call","method":"tools/call","id":1"#,
        r#""jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/call""#,
        r#""jsonrpc":"2.0","method":"tools/call","jsonrpc":"2.0","id":1"#,
        r#""id":1,"method":"tools/call""#,
        r#""jsonrpc":"2.0","id":1,"method":"tools/call","x":[{"y":null}]"#,
    ] {
        let fast = send_bytes(&server, format!(r#"{{{members},"params":{params}}}"#).as_bytes()).await;
        let general = send_bytes(&server, format!(r#"{{"params":{params},{members}}}"#).as_bytes()).await;
        assert_eq!(summary(&fast), summary(&general), "the two readings differ for {members}");
    }
    // `params` twice, with the id before and after the pair.
    for (before, after) in [(r#""id":1,"#, ""), ("", r#","id":1"#)] {
        let fast =
            format!(r#"{{"jsonrpc":"2.0",{before}"method":"tools/call","params":{params},"params":{params}{after}}}"#);
        let general =
            format!(r#"{{{before}"params":{params},"params":{params},"jsonrpc":"2.0","method":"tools/call"{after}}}"#);
        let (fast, general) =
            (send_bytes(&server, fast.as_bytes()).await, send_bytes(&server, general.as_bytes()).await);
        assert_eq!(summary(&fast), summary(&general), "the two readings differ for `params` twice");
    }
}

#[tokio::test]
async fn header_checks_see_the_same_name_from_either_reading() {
    let server = fixture::full();
    let params = format!(r#"{{"name":"add","arguments":{{"a":2,"b":3}},"_meta":{META}}}"#);
    for name in [Some("add"), Some("other"), None] {
        let mut answers = Vec::new();
        for text in both_orders("9", r#""tools/call""#, &params) {
            let headers = FakeHeaders::matching("tools/call", name);
            // The bytes as written: a serializer would put both orders back into one.
            let reply = send_bytes_with_headers(&server, text.as_bytes(), &headers).await;
            answers.push((summary(&reply), headers.calls()));
        }
        assert_eq!(answers[0], answers[1], "header checks differ with Mcp-Name {name:?}");
    }
}
