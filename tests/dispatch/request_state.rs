//! The sealed `requestState` of a multi round-trip request, end to end
//! through the dispatcher: an edited state is refused even with its tag
//! kept, a state expires after the key's lifetime, and servers that share a
//! key accept each other's state while others refuse it.

use std::time::Duration;

use mcp_runtime::input::Elicitation;
use mcp_runtime::{Input, Server, entry::ToolEntry, server::RequestStateKey};
use mcp_tests::exchange::{Reply, request, send};
use mcp_tests::wire_schema::request_meta;
use serde_json::{Value, json};

const SECRET: &[u8] = b"a secret shared by the replicas of this test, 32+ bytes";

fn server(key: Option<RequestStateKey>) -> Server {
    let builder = Server::builder("sealed", "1.0.0").tool(ToolEntry::new("greet", |input: Input| async move {
        let answer = input.elicit("user_name", Elicitation::form("Your name?").text("name", true)).await;
        format!("Hello, {}!", answer.field("name").unwrap_or_default())
    }));
    match key {
        Some(key) => builder.request_state_key(key),
        None => builder,
    }
    .build()
    .expect("a valid server")
}

/// `_meta` of a client that can answer a form elicitation.
fn eliciting_meta() -> Value {
    let mut meta = request_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"form": {}}});
    meta
}

/// The first round: the server asks for the name and seals its state.
async fn first_round(server: &Server) -> String {
    let reply = send(server, &request(1, "tools/call", json!({"_meta": eliciting_meta(), "name": "greet"}))).await;
    let result = reply.result();
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"].as_str().expect("a sealed state").to_owned()
}

/// The second round, answering with `state`.
async fn second_round(server: &Server, state: &str) -> Reply {
    let answers = json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}});
    let params = json!({"_meta": eliciting_meta(), "name": "greet", "inputResponses": answers, "requestState": state});
    send(server, &request(2, "tools/call", params)).await
}

#[track_caller]
fn assert_completed(reply: &Reply) {
    let result = reply.result();
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["content"][0]["text"], "Hello, Ada!");
}

#[track_caller]
fn assert_refused(reply: &Reply, why: &str) {
    assert_eq!(reply.code(), -32602, "{:?}", reply.response);
    assert_eq!(reply.error()["message"], format!("Invalid requestState: {why}"));
}

/// `v1.<body>.<tag>` split into its parts.
fn parts(state: &str) -> (&str, &str, &str) {
    let mut parts = state.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(version), Some(body), Some(tag), None) => (version, body, tag),
        _ => panic!("not a sealed state: {state}"),
    }
}

#[tokio::test]
async fn a_state_whose_body_is_edited_is_refused_though_its_tag_is_kept() {
    let server = server(Some(RequestStateKey::from_secret(SECRET)));
    let state = first_round(&server).await;
    assert_completed(&second_round(&server, &state).await);
    let (version, body, tag) = parts(&state);

    // One character of the body changed for another base64url character.
    let middle = body.len() / 2;
    let original = body.as_bytes()[middle];
    let replacement = if original == b'A' { 'B' } else { 'A' };
    let edited = format!("{version}.{}{replacement}{}.{tag}", &body[..middle], &body[middle + 1..]);
    assert_refused(&second_round(&server, &edited).await, "integrity check failed");

    // The whole body of another state sealed with the same key (well-formed,
    // and valid with its own tag), under the first state's tag. Its sealer
    // has another lifetime, so its body differs even when both are sealed
    // within the same millisecond.
    let sealer = self::server(Some(RequestStateKey::from_secret(SECRET).with_lifetime(Duration::from_secs(7200))));
    let other = first_round(&sealer).await;
    let (_, other_body, other_tag) = parts(&other);
    assert_ne!(other_body, body, "the two states differ in their expiry");
    assert_refused(&second_round(&server, &format!("{version}.{other_body}.{tag}")).await, "integrity check failed");
    assert_completed(&second_round(&server, &format!("{version}.{other_body}.{other_tag}")).await);
}

/// The key's lifetime is configurable, but its clock is the system's wall
/// clock, which no test can pause: the state is sealed with a lifetime of
/// zero and used a few milliseconds later, against a control sealed with
/// the default lifetime.
#[tokio::test]
async fn a_state_past_its_lifetime_is_refused() {
    let lasting = server(Some(RequestStateKey::from_secret(SECRET)));
    let state = first_round(&lasting).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_completed(&second_round(&lasting, &state).await);

    let fleeting = server(Some(RequestStateKey::from_secret(SECRET).with_lifetime(Duration::ZERO)));
    let state = first_round(&fleeting).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_refused(&second_round(&fleeting, &state).await, "expired; start the request again");
}

#[tokio::test]
async fn servers_sharing_a_key_accept_each_others_state_and_no_other_does() {
    let issuer = server(Some(RequestStateKey::from_secret(SECRET)));
    let replica = server(Some(RequestStateKey::from_secret(SECRET)));
    let state = first_round(&issuer).await;
    assert_completed(&second_round(&replica, &state).await);

    let stranger = server(Some(RequestStateKey::from_secret(b"another secret, as long as the shared one")));
    assert_refused(&second_round(&stranger, &state).await, "integrity check failed");
    let unconfigured = server(None);
    assert_refused(&second_round(&unconfigured, &state).await, "integrity check failed");
}
