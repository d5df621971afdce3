//! `visible_to = path` on `#[tool]`, `#[prompt]` and `#[resource]`, end to
//! end: what the rule hides is left out of the lists, and asking for it is
//! answered exactly as asking for a name (or a URI) that nothing has.
//!
//! In process no token was verified, so a rule sees no principal.

use mcp_runtime::entry::Viewer;
use mcp_runtime::{Server, prompt, prompts, resource, resources, tool, tools};
use mcp_tests::exchange::{request, send};
use serde_json::{Value, json};

/// Admits no one.
fn never(_: &Viewer<'_>) -> bool {
    false
}

/// Admits everyone, principal or not.
fn always(_: &Viewer<'_>) -> bool {
    true
}

/// Reads the payroll.
#[tool(visible_to = never)]
fn payroll() -> String {
    "the payroll".to_owned()
}

/// Says hello to everyone.
#[tool(visible_to = always)]
fn hello() -> String {
    "hello".to_owned()
}

/// Answers.
#[tool]
fn ping() -> String {
    "pong".to_owned()
}

/// Asks for a review of the payroll.
#[prompt(visible_to = never)]
fn review_payroll() -> String {
    "Review the payroll.".to_owned()
}

/// Asks for a greeting.
#[prompt]
fn greeting() -> String {
    "Say hello.".to_owned()
}

/// The salaries.
#[resource("hr://salaries", visible_to = never)]
fn salaries() -> &'static str {
    "…"
}

/// One employee's file.
#[resource("hr://employees/{id}", visible_to = self::never)]
fn employee(id: u32) -> String {
    format!("employee {id}")
}

/// The read-me.
#[resource("docs://readme")]
fn readme() -> &'static str {
    "# Hello"
}

fn server() -> Server {
    Server::builder("hr", "1.0.0")
        .tools(tools![payroll, hello, ping])
        .prompts(prompts![review_payroll, greeting])
        .resources(resources![salaries, employee, readme])
        .build()
        .expect("a valid server")
}

/// The names of a list's items, under `key`, by `field`.
fn names<'a>(result: &'a Value, key: &str, field: &str) -> Vec<&'a str> {
    let items = result[key].as_array().unwrap_or_else(|| panic!("no `{key}` in {result}"));
    items.iter().map(|item| item[field].as_str().expect("a string")).collect()
}

/// The response to `method` with `params`, as text, `hidden` written where
/// `unknown` was: comparable with the response about the hidden entry.
async fn answered_as(server: &Server, method: &str, params: Value, unknown: &str, hidden: &str) -> String {
    let reply = send(server, &request(7, method, params)).await;
    reply.error();
    reply.text.expect("a response").replace(unknown, hidden)
}

#[tokio::test]
async fn a_hidden_tool_is_not_listed_and_is_called_as_an_unknown_one() {
    let server = server();
    let listed = send(&server, &request(1, "tools/list", Value::Null)).await;
    let mut listed = names(listed.result(), "tools", "name");
    listed.sort_unstable();
    assert_eq!(listed, ["hello", "ping"]);

    let called = send(&server, &request(7, "tools/call", json!({"name": "payroll", "arguments": {}}))).await;
    let unknown =
        answered_as(&server, "tools/call", json!({"name": "no_such", "arguments": {}}), "no_such", "payroll").await;
    assert_eq!(called.text.as_deref(), Some(unknown.as_str()), "{}", called.response());

    // The tool a rule admits is called as any other.
    let hello = send(&server, &request(8, "tools/call", json!({"name": "hello", "arguments": {}}))).await;
    assert_eq!(hello.result()["content"][0]["text"], "hello");
}

#[tokio::test]
async fn a_hidden_prompt_is_not_listed_and_is_got_as_an_unknown_one() {
    let server = server();
    let listed = send(&server, &request(1, "prompts/list", Value::Null)).await;
    assert_eq!(names(listed.result(), "prompts", "name"), ["greeting"]);

    let got = send(&server, &request(7, "prompts/get", json!({"name": "review_payroll"}))).await;
    let unknown = answered_as(&server, "prompts/get", json!({"name": "no_such"}), "no_such", "review_payroll").await;
    assert_eq!(got.text.as_deref(), Some(unknown.as_str()), "{}", got.response());
}

#[tokio::test]
async fn a_hidden_resource_is_not_listed_and_is_read_as_one_that_does_not_exist() {
    let server = server();
    let listed = send(&server, &request(1, "resources/list", Value::Null)).await;
    assert_eq!(names(listed.result(), "resources", "uri"), ["docs://readme"]);
    let templates = send(&server, &request(2, "resources/templates/list", Value::Null)).await;
    assert_eq!(names(templates.result(), "resourceTemplates", "uriTemplate"), Vec::<&str>::new());

    for uri in ["hr://salaries", "hr://employees/1"] {
        let read = send(&server, &request(7, "resources/read", json!({"uri": uri}))).await;
        let unknown = answered_as(&server, "resources/read", json!({"uri": "nothing://x"}), "nothing://x", uri).await;
        assert_eq!(read.text.as_deref(), Some(unknown.as_str()), "{}", read.response());
    }
}
