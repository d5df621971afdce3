//! Steps 5 and 6: bytes that are not one JSON-RPC request or notification,
//! and request ids echoed exactly.

use mcp_runtime::dispatch::Stage;
use mcp_tests::exchange::{request, send, send_bytes};
use serde_json::{Value, json};

use crate::fixture;

#[tokio::test]
async fn bytes_that_are_not_json_get_parse_error_without_id() {
    let server = fixture::full();
    for bytes in [&b"{"[..], b"not json", b"{\"jsonrpc\":\"2.0\",\"id\":1,", b"\xff\xfe", b"[1,", b"{\"a\":1}}"] {
        let reply = send_bytes(&server, bytes).await;
        assert_eq!(reply.code(), -32700, "for {:?}", String::from_utf8_lossy(bytes));
        assert!(reply.response().get("id").is_none(), "a parse error has no id: {}", reply.response());
        assert_eq!(reply.stage, Some(Stage::Envelope));
        assert_eq!(reply.http_status, Some(400));
    }
}

#[tokio::test]
async fn batches_are_invalid_requests() {
    let server = fixture::full();
    let one = request(1, "tools/list", Value::Null);
    for batch in [json!([one.clone()]), json!([one.clone(), one]), json!([])] {
        let reply = send(&server, &batch).await;
        assert_eq!(reply.code(), -32600, "for {batch}");
        assert!(reply.response().get("id").is_none());
        assert_eq!(reply.http_status, Some(400));
    }
    // Leading whitespace does not hide a batch.
    let reply = send_bytes(&server, b"  \n [{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]").await;
    assert_eq!(reply.code(), -32600);
}

#[tokio::test]
async fn json_that_is_not_an_object_is_an_invalid_request() {
    let server = fixture::full();
    for text in ["1", "\"tools/list\"", "null", "true"] {
        let reply = send_bytes(&server, text.as_bytes()).await;
        assert_eq!(reply.code(), -32600, "for {text}");
    }
}

#[tokio::test]
async fn a_null_or_non_scalar_id_is_an_invalid_request_without_id() {
    let server = fixture::full();
    for id in [json!(null), json!(1.5), json!(1e3), json!({"n": 1}), json!([1]), json!(true)] {
        let mut message = request(0, "tools/list", Value::Null);
        message["id"] = id.clone();
        let reply = send(&server, &message).await;
        assert_eq!(reply.code(), -32600, "for id {id}");
        assert!(reply.response().get("id").is_none(), "for id {id}: {}", reply.response());
    }
}

/// A string id with a lone surrogate escape is grammatical JSON but no
/// Unicode text: most readers refuse it, so echoing it would make the whole
/// response unreadable. It is no id; a surrogate pair is one character.
#[tokio::test]
async fn a_string_id_with_a_lone_surrogate_is_an_invalid_request_without_id() {
    let server = fixture::full();
    for (id, readable) in [
        (r#""\ud83d\ude00""#, true),
        (r#""\u00e9\n""#, true),
        (r#""\ud800""#, false),
        (r#""+\ud800x""#, false),
        (r#""\udc00\ud800""#, false),
    ] {
        for version in ["2.0", "3.0"] {
            echoed_if_readable(&server, version, id, readable).await;
        }
    }
}

/// Sends `tools/list` with `id` (JSON text) and checks the response can be
/// read back: with the id echoed byte for byte when it is `readable`, else
/// as an invalid request without an id.
async fn echoed_if_readable(server: &mcp_runtime::Server, version: &str, id: &str, readable: bool) {
    let meta = mcp_tests::wire_schema::request_meta();
    let text = format!(r#"{{"jsonrpc":"{version}","id":{id},"method":"tools/list","params":{{"_meta":{meta}}}}}"#);
    let reply = send_bytes(server, text.as_bytes()).await;
    let wire = reply.text.as_deref().expect("a response");
    assert!(serde_json::from_str::<Value>(wire).is_ok(), "unreadable: {wire}");
    if readable {
        assert!(wire.contains(&format!(r#""id":{id},"#)), "id not echoed: {wire}");
    } else {
        assert_eq!(reply.code(), -32600, "for a {}-character id", id.len());
        assert!(reply.response().get("id").is_none(), "{wire}");
    }
}

/// An integer id past the range of a JSON number (about 1.8e308) would make
/// the response unreadable to most clients (serde_json refuses the whole
/// message), so it is no id; the largest that still fits is echoed.
#[tokio::test]
async fn an_integer_id_past_the_range_of_a_json_number_is_an_invalid_request_without_id() {
    let server = fixture::full();
    for (id, readable) in [
        ("9".repeat(308), true),
        (format!("-{}", "9".repeat(308)), true),
        // f64::MAX is 1.7976931348623157e308: 309 digits, and still finite.
        (format!("17976931348623157{}", "0".repeat(292)), true),
        ("9".repeat(309), false),
        (format!("-{}", "9".repeat(309)), false),
        ("9".repeat(4000), false),
    ] {
        echoed_if_readable(&server, "2.0", &id, readable).await;
    }
}

#[tokio::test]
async fn a_wrong_jsonrpc_version_or_method_is_an_invalid_request_echoing_the_id() {
    let server = fixture::full();
    let mut cases = Vec::new();
    let mut v1 = request(7, "tools/list", Value::Null);
    v1["jsonrpc"] = json!("1.0");
    cases.push(v1);
    let mut no_version = request(7, "tools/list", Value::Null);
    no_version.as_object_mut().map(|m| m.remove("jsonrpc"));
    cases.push(no_version);
    let mut numeric_version = request(7, "tools/list", Value::Null);
    numeric_version["jsonrpc"] = json!(2.0);
    cases.push(numeric_version);
    let mut method_number = request(7, "tools/list", Value::Null);
    method_number["method"] = json!(42);
    cases.push(method_number);
    let mut no_method = request(7, "tools/list", Value::Null);
    no_method.as_object_mut().map(|m| m.remove("method"));
    cases.push(no_method);
    for message in cases {
        let reply = send(&server, &message).await;
        assert_eq!(reply.code(), -32600, "for {message}");
        assert_eq!(reply.response()["id"], json!(7), "for {message}");
        assert_eq!(reply.http_status, Some(400));
    }
}

/// A member written twice makes the request ambiguous, so it is invalid;
/// the id was still read, before or after the repetition, and comes back.
#[tokio::test]
async fn a_repeated_member_is_an_invalid_request_echoing_the_id() {
    let server = fixture::full();
    let meta = mcp_tests::wire_schema::request_meta();
    for method in ["server/discover", "tools/call"] {
        let version = r#""jsonrpc":"2.0""#.to_owned();
        let method_member = format!(r#""method":"{method}""#);
        let params = format!(r#""params":{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{meta}}}"#);
        // `method` before `params` (as the one-pass reading takes it) and after.
        for order in [[&version, &method_member, &params], [&params, &version, &method_member]] {
            for (repeated, member) in [("jsonrpc", &version), ("method", &method_member), ("params", &params)] {
                let mut members: Vec<&str> = order.iter().map(|m| m.as_str()).collect();
                let at = members.iter().position(|m| m == member).expect("the member is in the list");
                members.insert(at + 1, member);
                for id_first in [true, false] {
                    let mut members = members.clone();
                    if id_first {
                        members.insert(0, r#""id":7"#)
                    } else {
                        members.push(r#""id":7"#)
                    }
                    let text = format!("{{{}}}", members.join(","));
                    let reply = send_bytes(&server, text.as_bytes()).await;
                    assert_eq!(reply.code(), -32600, "for {text}");
                    assert_eq!(reply.error()["message"], json!(format!("`{repeated}` appears more than once")));
                    assert_eq!(reply.response()["id"], json!(7), "the id was read: {text}");
                    assert_eq!((reply.stage, reply.http_status), (Some(Stage::Envelope), Some(400)), "for {text}");
                }
            }
        }
    }
    // A repeated id is one that could not be read.
    let text = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"server/discover","id":7,"params":{{"_meta":{meta}}}}}"#);
    let reply = send_bytes(&server, text.as_bytes()).await;
    assert_eq!(reply.code(), -32600);
    assert_eq!(reply.error()["message"], json!("`id` appears more than once"));
    assert!(reply.response().get("id").is_none(), "{}", reply.response());
}

#[tokio::test]
async fn responses_sent_to_the_server_are_invalid_requests() {
    let server = fixture::full();
    let result = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete"}});
    let error = json!({"jsonrpc": "2.0", "id": "x", "error": {"code": -32601, "message": "nope"}});
    let reply = send(&server, &result).await;
    assert_eq!(reply.code(), -32600);
    assert_eq!(reply.response()["id"], json!(3));
    let reply = send(&server, &error).await;
    assert_eq!(reply.code(), -32600);
    assert_eq!(reply.response()["id"], json!("x"));
}

#[tokio::test]
async fn notifications_are_never_answered() {
    let server = fixture::full();
    let notifications = [
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "tools/list", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "no/such/thing", "params": [1, 2]}),
    ];
    for n in notifications {
        let reply = send(&server, &n).await;
        assert!(reply.response.is_none(), "{n} was answered with {:?}", reply.response);
        assert!(reply.notifications.is_empty());
    }
}

/// The exact JSON text of every id comes back byte for byte.
#[tokio::test]
async fn ids_are_echoed_exactly() {
    let server = fixture::full();
    let ids = [
        "0",
        "-5",
        "7",
        "9007199254740993",
        "18446744073709551616",
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        r#""abc""#,
        r#""""#,
        r#""0x01""#,
        r#""caf\u00e9 \"quoted\"""#,
        r#""😀""#,
    ];
    for id in ids {
        // Success, an error of the envelope, early and late errors all echo the id.
        for (version, method, params) in [
            ("2.0", "tools/list", "{\"_meta\":META}"),
            ("1.0", "tools/list", "{\"_meta\":META}"),
            ("2.0", "ping", "{\"_meta\":META}"),
            ("2.0", "tools/call", "{\"_meta\":META,\"name\":\"missing\"}"),
            ("2.0", "tools/list", "{}"),
        ] {
            let meta = mcp_tests::wire_schema::request_meta().to_string();
            let text = format!(
                r#"{{"jsonrpc":"{version}","id":{id},"method":"{method}","params":{}}}"#,
                params.replace("META", &meta)
            );
            let reply = send_bytes(&server, text.as_bytes()).await;
            let wire = reply.text.as_deref().expect("a response");
            assert!(wire.contains(&format!(r#""id":{id},"#)), "id {id} not echoed exactly for {method}: {wire}");
        }
    }
}

/// The same id in different spellings is not the same id.
#[tokio::test]
async fn ids_are_kept_as_written_not_normalised() {
    let server = fixture::full();
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":"\u0061","method":"tools/list","params":{{"_meta":{}}}}}"#,
        mcp_tests::wire_schema::request_meta()
    );
    let reply = send_bytes(&server, text.as_bytes()).await;
    assert!(reply.text.as_deref().is_some_and(|t| t.contains(r#""id":"\u0061""#)), "{:?}", reply.text);
}
