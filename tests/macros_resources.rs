//! `#[resource]` through the dispatcher: fixed resources, templates with
//! typed variables, every return kind, "not found", and completion.

#[path = "macros/common.rs"]
mod common;

use common::{assert_snapshot, error, exchange, result};
use mcp_runtime::client::Client;
use mcp_runtime::{Server, resources};
use mcp_tests::validated_client::checked;
use serde_json::{Value, json};

mod fixtures {
    use mcp_runtime::protocol::{ReadResourceResult, ResourceContents};
    use mcp_runtime::{RequestContext, outcome::NotFound, resource};

    /// A static text.
    #[resource(
        "test://static-text",
        name = "static-text",
        title = "Static text",
        mime_type = "text/plain",
        size = 12,
        annotations(audience = ["user", "assistant"], priority = 0.5, last_modified = "2026-01-01T00:00:00Z"),
        icons = ["https://example.com/text.png"],
        meta("com.example/origin" = "tests")
    )]
    pub(crate) fn static_text() -> &'static str {
        "Hello, world"
    }

    /// Some bytes.
    #[resource("test://static-binary", mime_type = "image/png")]
    pub(crate) async fn static_binary() -> Vec<u8> {
        vec![0x89, b'P', b'N', b'G']
    }

    /// A template with a typed variable.
    #[resource("test://template/{id}/data", mime_type = "application/json")]
    pub(crate) fn template_data(id: u64) -> String {
        format!("{{\"id\":{id}}}")
    }

    fn owners(typed: &str) -> Vec<String> {
        ["alice", "bob"].iter().filter(|o| o.starts_with(typed)).map(|o| (*o).to_owned()).collect()
    }

    /// A file in a repository.
    #[resource("repo://{owner}/{+path}")]
    pub(crate) fn repo_file(
        #[arg(complete = owners)] owner: String,
        path: String,
        cx: &RequestContext,
    ) -> Option<String> {
        let _ = cx.request_id();
        (owner == "alice").then(|| format!("{owner}:{path}"))
    }

    /// A user, when it exists.
    #[resource("users://{user_id}")]
    pub(crate) fn user(#[arg(rename = "user_id")] id: u32) -> Result<ResourceContents, NotFound> {
        if id == 1 {
            Ok(ResourceContents::text(format!("users://{id}"), "Ada").with_mime_type("text/plain"))
        } else {
            Err(NotFound)
        }
    }

    /// Notes with all of the tags, a list variable.
    #[resource("tagged://{tags}")]
    pub(crate) fn tagged(tags: Vec<String>) -> String {
        tags.join(" and ")
    }

    /// A directory of two files.
    #[resource("dir://listing")]
    pub(crate) fn listing() -> ReadResourceResult {
        ReadResourceResult::new(vec![
            ResourceContents::text("dir://listing/a", "a"),
            ResourceContents::text("dir://listing/b", "b"),
        ])
    }

    /// Fails inside.
    #[resource("broken://always")]
    pub(crate) fn broken() -> Result<String, std::io::Error> {
        Err(std::io::Error::other("disk on fire"))
    }
}

use fixtures::*;

fn server() -> Server {
    Server::builder("resources", "1.0.0")
        .resources(resources![static_text, static_binary, template_data, repo_file, user, tagged, listing, broken])
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

async fn read(client: &Client, uri: &str) -> Value {
    exchange(client, "resources/read", json!({"uri": uri})).await.0
}

#[tokio::test]
async fn lists_match_the_snapshots() {
    let client = checked(server());
    let (response, _) = exchange(&client, "resources/list", json!({})).await;
    assert_snapshot("macros_resources_list", result(&response));
    let (response, _) = exchange(&client, "resources/templates/list", json!({})).await;
    assert_snapshot("macros_resource_templates_list", result(&response));
}

#[tokio::test]
async fn definition_keys_reach_the_client() {
    let client = checked(server());
    let (response, _) = exchange(&client, "resources/list", json!({})).await;
    let list = result(&response)["resources"].as_array().cloned().unwrap_or_default();
    let text = list.iter().find(|r| r["uri"] == "test://static-text").cloned().unwrap_or_default();
    assert_eq!(
        text,
        json!({
            "uri": "test://static-text",
            "name": "static-text",
            "title": "Static text",
            "description": "A static text.",
            "mimeType": "text/plain",
            "size": 12,
            "annotations": {"audience": ["user", "assistant"], "priority": 0.5, "lastModified": "2026-01-01T00:00:00Z"},
            "icons": [{"src": "https://example.com/text.png"}],
            "_meta": {"com.example/origin": "tests"},
        })
    );
    let (response, _) = exchange(&client, "resources/templates/list", json!({})).await;
    let templates: Vec<&str> = result(&response)["resourceTemplates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["uriTemplate"].as_str())
        .collect();
    assert_eq!(
        templates,
        ["repo://{owner}/{+path}", "tagged://{tags}", "test://template/{id}/data", "users://{user_id}"]
    );
}

#[tokio::test]
async fn fixed_resources_use_the_declared_mime_type() {
    let client = checked(server());
    let response = read(&client, "test://static-text").await;
    assert_eq!(
        result(&response)["contents"],
        json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "Hello, world"}])
    );
    let response = read(&client, "test://static-binary").await;
    assert_eq!(
        result(&response)["contents"],
        json!([{"uri": "test://static-binary", "mimeType": "image/png", "blob": "iVBORw=="}])
    );
    let response = read(&client, "dir://listing").await;
    assert_eq!(result(&response)["contents"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn template_variables_bind_to_parameters_by_name_and_type() {
    let client = checked(server());
    let response = read(&client, "test://template/123/data").await;
    assert_eq!(result(&response)["contents"][0]["text"], "{\"id\":123}");
    assert_eq!(result(&response)["contents"][0]["mimeType"], "application/json");
    let response = read(&client, "repo://alice/src/main.rs").await;
    assert_eq!(result(&response)["contents"][0]["text"], "alice:src/main.rs");
    let response = read(&client, "users://1").await;
    assert_eq!(result(&response)["contents"][0]["text"], "Ada");
}

#[tokio::test]
async fn not_found_is_invalid_params_with_the_uri() {
    let client = checked(server());
    for uri in ["users://2", "repo://bob/x", "test://template/abc/data", "nothing://here"] {
        let response = read(&client, uri).await;
        let e = error(&response);
        assert_eq!(e["code"], -32602, "{uri}: {e}");
        assert_eq!(e["data"]["uri"], uri);
    }
    let response = read(&client, "test://template/abc/data").await;
    assert!(error(&response)["message"].as_str().is_some_and(|m| m.contains("`id`")), "{response}");
    let response = read(&client, "broken://always").await;
    assert_eq!(error(&response)["code"], -32603);
}

#[tokio::test]
async fn a_list_variable_reads_comma_separated_values() {
    let client = checked(server());
    let response = read(&client, "tagged://rust,mcp").await;
    assert_eq!(result(&response)["contents"][0]["text"], "rust and mcp", "{response}");
}

#[tokio::test]
async fn template_variables_complete() {
    let client = checked(server());
    let discover = client.request("server/discover", json!({})).await.unwrap_or_default();
    assert!(discover["capabilities"].get("completions").is_some(), "{discover}");
    let (response, _) = exchange(
        &client,
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "repo://{owner}/{+path}"}, "argument": {"name": "owner", "value": "a"}}),
    )
    .await;
    assert_eq!(result(&response)["completion"]["values"], json!(["alice"]));
}

#[tokio::test]
async fn the_function_stays_callable_as_written() {
    assert_eq!(static_text(), "Hello, world");
    assert_eq!(static_binary().await.len(), 4);
    assert_eq!(template_data(7), "{\"id\":7}");
}
