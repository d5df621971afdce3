//! The client the official MCP conformance suite drives through its client
//! scenarios, built on `mcp_runtime::client` alone: what a user's program
//! would write to reach the suite's test servers.
//!
//! ```text
//! conformance-client [ARGS...] URL
//! ```
//!
//! The suite runs it with the scenario's server URL as the last argument and
//! says what to do in the environment: `MCP_CONFORMANCE_SCENARIO` (the
//! scenario's name), `MCP_CONFORMANCE_PROTOCOL_VERSION` (the revision its
//! server speaks: 2026-07-28 stateless, an older one with `initialize`) and,
//! for some, `MCP_CONFORMANCE_CONTEXT` (JSON). It exits 0 when the scenario's
//! steps went through, 1 with the reason on stderr otherwise.
//! `.ci/conformance-client.sh` runs every scenario this client takes on.

use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use anyhow::{Context as _, bail};
use mcp_runtime::client::oauth::{ClientCredentials, EnterpriseLogin, OAuth, RegisteredClient};
use mcp_runtime::client::{Client, Revision};
use mcp_runtime::protocol::{CallToolResult, ElicitRequest, ElicitResult, PROTOCOL_VERSION, Tool};
use serde_json::{Map, Value, json};

/// The scenarios this client takes on: every client scenario of the suite
/// except the authorization (`auth/*`) ones.
const SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
];

/// The skill the skills scenarios load, and the file its `SKILL.md` links to.
const SKILL: &str = "pdf-processing";
const SKILL_FORMS: &str = "references/FORMS.md";

/// The authorization scenarios this client takes on.
const AUTHORIZATION: &[&str] = &[
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/wif-jwt-bearer",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
];

/// The Client ID Metadata Document URL the suite's authorization server
/// knows this client by.
const METADATA_DOCUMENT: &str = "https://conformance-test.local/client-metadata.json";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let url = std::env::args().skip(1).last().context("usage: conformance-client [ARGS...] URL")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").context("MCP_CONFORMANCE_SCENARIO is not set")?;
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| PROTOCOL_VERSION.to_owned());
    let context: Value = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text).context("MCP_CONFORMANCE_CONTEXT is not JSON")?,
        Err(_) => Value::Null,
    };
    if !SCENARIOS.contains(&scenario.as_str()) && !AUTHORIZATION.contains(&scenario.as_str()) {
        bail!("this client does not take on the scenario {scenario:?} (it takes on {})", SCENARIOS.join(", "));
    }
    // The suite's server speaks one revision: the client speaks it too.
    let revision = if version == PROTOCOL_VERSION { Revision::Stateless } else { Revision::Session };
    let client =
        Client::http(url).client_info("mcp-runtime-conformance-client", env!("CARGO_PKG_VERSION")).revision(revision);
    eprintln!("scenario {scenario} at {version}");
    if scenario.starts_with("auth/") {
        return authorized(client, &scenario, &context).await;
    }
    match scenario.as_str() {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => {
            client.list_tools().await?;
        }
        "tools_call" => {
            let tools = client.list_tools().await?;
            named(&tools, "add_numbers")?;
            succeeded(client.call_tool("add_numbers", json!({"a": 2, "b": 3})).await?)?;
        }
        "sse-retry" => {
            client.list_tools().await?;
            succeeded(client.call_tool("test_reconnection", json!({})).await?)?;
        }
        "elicitation-sep1034-client-defaults" => elicitation_defaults(client.clone()).await?,
        "sep-2322-client-request-state" => request_state(client.clone()).await?,
        "http-standard-headers" => every_kind_of_request(&client).await?,
        "http-custom-headers" => custom_headers(&client, &context).await?,
        "http-invalid-tool-headers" => valid_tools_only(&client).await?,
        "json-schema-2020-12-preservation" => schema_echo(&client).await?,
        // Listed, and nothing read: a skill's files are read when it is loaded.
        "sep-2640-client-no-prefetch" => {
            client.skills().await?;
        }
        "sep-2640-client-verify-digest" | "sep-2640-client-verify-size" | "sep-2640-client-verify-frontmatter" => {
            load_skill(&client).await?;
        }
        _ => unreachable!("checked against SCENARIOS"),
    }
    client.close().await?;
    Ok(())
}

/// Accepts the form as it is: the client fills in each field the schema
/// gives a default for.
async fn elicitation_defaults(client: Client) -> anyhow::Result<()> {
    let client = client.on_elicitation(|_| async { ElicitResult::accept(json!({})) });
    client.list_tools().await?;
    succeeded(client.call_tool("test_client_elicitation_defaults", json!({})).await?)
}

/// Each tool that asks for input in rounds, answered; while one waits for
/// its answer, another tool is called, which must carry nothing of the
/// first's rounds.
async fn request_state(client: Client) -> anyhow::Result<()> {
    let same: Arc<OnceLock<Client>> = Arc::default();
    let asks = Arc::clone(&same);
    let client = client.on_elicitation(move |request| {
        let client = asks.get().cloned();
        async move {
            if let (Some(client), ElicitRequest::Form { .. }) = (client, &request)
                && let Err(error) = client.call_tool("test_mrtr_unrelated", json!({})).await
            {
                eprintln!("test_mrtr_unrelated, called between rounds: {error}");
            }
            ElicitResult::accept(json!({"confirmed": true}))
        }
    });
    let _ = same.set(client.clone());
    let tools = client.list_tools().await?;
    for name in ["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"] {
        named(&tools, name)?;
        succeeded(client.call_tool(name, json!({})).await?).with_context(|| format!("calling {name}"))?;
    }
    Ok(())
}

/// One request of each method that has its own headers: every tool
/// called, every resource read, every prompt got.
async fn every_kind_of_request(client: &Client) -> anyhow::Result<()> {
    for tool in client.list_tools().await? {
        succeeded(client.call_tool(&tool.name, json!({})).await?)?;
    }
    for resource in client.list_resources().await? {
        let uri = resource.get("uri").and_then(Value::as_str).context("a resource without a uri")?;
        client.read_resource(uri).await?;
    }
    for prompt in client.list_prompts().await? {
        let name = prompt.get("name").and_then(Value::as_str).context("a prompt without a name")?;
        client.get_prompt(name, json!({})).await?;
    }
    Ok(())
}

/// The calls the context names, with exactly its arguments.
async fn custom_headers(client: &Client, context: &Value) -> anyhow::Result<()> {
    client.list_tools().await?;
    let calls = context.get("toolCalls").and_then(Value::as_array).context("no toolCalls in the context")?;
    for call in calls {
        let name = call.get("name").and_then(Value::as_str).context("a tool call without a name")?;
        let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
        succeeded(client.call_tool(name, arguments).await?).with_context(|| format!("calling {name}"))?;
    }
    Ok(())
}

/// Every tool the client keeps (it drops those whose header declarations
/// break the rules), called with a value of its type for each required
/// parameter.
async fn valid_tools_only(client: &Client) -> anyhow::Result<()> {
    for tool in client.list_tools().await? {
        let mut arguments = Map::new();
        let properties = tool.input_schema.get("properties").and_then(Value::as_object);
        let required = tool.input_schema.get("required").and_then(Value::as_array).into_iter().flatten();
        for name in required.filter_map(Value::as_str) {
            let kind = properties.and_then(|p| p.get(name)).and_then(|p| p.get("type")).and_then(Value::as_str);
            let value = match kind {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                _ => json!("value"),
            };
            arguments.insert(name.to_owned(), value);
        }
        succeeded(client.call_tool(&tool.name, Value::Object(arguments)).await?)?;
    }
    Ok(())
}

/// The one tool's input schema, sent back as it was listed to the echo tool.
async fn schema_echo(client: &Client) -> anyhow::Result<()> {
    const ECHO: &str = "json_schema_echo";
    let tools = client.list_tools().await?;
    named(&tools, ECHO)?;
    let focal = tools.iter().find(|tool| tool.name != ECHO).context("no tool besides the echo")?;
    succeeded(client.call_tool(ECHO, json!({"schema": focal.input_schema})).await?)
}

/// What a host does when the model asks for the skill: list the skills,
/// load it (its `SKILL.md` read and checked for size, digest and front
/// matter against its entry), and only then read the file it links to,
/// checked the same way. A check that fails ends the run with the refusal
/// (exit 1, which the suite allows here), before anything else is read.
async fn load_skill(client: &Client) -> anyhow::Result<()> {
    let skills = client.skills().await?;
    let skill = skills.iter().find(|skill| skill.name() == Some(SKILL)).with_context(|| format!("no skill {SKILL}"))?;
    let loaded = client.load_skill(skill).await.with_context(|| format!("loading the skill {SKILL}"))?;
    let forms = loaded.read(client, SKILL_FORMS).await.with_context(|| format!("reading {SKILL_FORMS}"))?;
    eprintln!(
        "loaded {}: {} bytes of instructions; {SKILL_FORMS}: {} bytes",
        loaded.uri(),
        loaded.body().len(),
        forms.len()
    );
    Ok(())
}

/// `name` among the listed `tools`, or why not.
fn named<'a>(tools: &'a [Tool], name: &str) -> anyhow::Result<&'a Tool> {
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    tools.iter().find(|tool| tool.name == name).with_context(|| format!("no tool {name} among {names:?}"))
}

/// A call's result, unless it says the call failed.
fn succeeded(result: CallToolResult) -> anyhow::Result<()> {
    if result.is_error == Some(true) {
        bail!("the tool failed: {}", serde_json::to_string(&result.content)?);
    }
    Ok(())
}

/// A protected server: the client authorizes as the scenario's
/// authorization server allows (the person's step taken headless: the
/// authorization URL is fetched and its redirect read), then lists the
/// tools and calls `test-tool` when there is one.
async fn authorized(client: Client, scenario: &str, context: &Value) -> anyhow::Result<()> {
    if let Some(oauth) = for_itself(scenario, context)? {
        let client = client.oauth(oauth);
        client.list_tools().await?;
        return Ok(client.close().await?);
    }
    let mut oauth = OAuth::new("http://localhost:3000/callback")
        .client_name("mcp-runtime-conformance-client")
        .on_authorize(|url| async move { redirect_of(&url).await.map_err(|e| format!("{e:#}")) });
    if scenario == "auth/basic-cimd" {
        oauth = oauth.client_metadata_document(METADATA_DOCUMENT);
    }
    if scenario.starts_with("auth/dpop") {
        oauth = oauth.dpop();
    }
    if let Some(id) = context.get("client_id").and_then(Value::as_str) {
        let mut registered = RegisteredClient::new(id);
        if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
            registered = registered.secret(secret);
        }
        if let Some(issuer) = context.get("issuer").and_then(Value::as_str) {
            registered = registered.issuer(issuer);
        }
        oauth = oauth.registered(registered);
    }
    let client = client.oauth(oauth);
    let tools = client.list_tools().await?;
    if tools.iter().any(|tool| tool.name == "test-tool") {
        succeeded(client.call_tool("test-tool", json!({})).await?)?;
    }
    client.close().await?;
    Ok(())
}

/// How a program acting for itself authorizes, in the scenarios that give
/// it what it needs.
fn for_itself(scenario: &str, context: &Value) -> anyhow::Result<Option<OAuth>> {
    let given =
        |key: &str| context.get(key).and_then(Value::as_str).with_context(|| format!("no {key} in the context"));
    Ok(Some(match scenario {
        "auth/client-credentials-basic" => {
            OAuth::client_credentials(ClientCredentials::secret(given("client_id")?, given("client_secret")?))
        }
        "auth/client-credentials-jwt" => {
            OAuth::client_credentials(ClientCredentials::private_key(given("client_id")?, given("private_key_pem")?)?)
        }
        "auth/wif-jwt-bearer" => {
            let token = given("valid_jwt")?.to_owned();
            OAuth::workload_identity(move || std::future::ready(Ok(token.clone())))
        }
        "auth/enterprise-managed-authorization" => {
            let id_token = given("idp_id_token")?.to_owned();
            let client = ClientCredentials::secret(given("client_id")?, given("client_secret")?);
            let login = EnterpriseLogin::new(given("idp_token_endpoint")?, client, move || {
                std::future::ready(Ok(id_token.clone()))
            });
            OAuth::enterprise(login.idp_client_id(given("idp_client_id")?))
        }
        _ => return Ok(None),
    }))
}

/// Where the authorization server sends the person back to: the
/// `Location` of its answer to `url`, fetched without following it.
async fn redirect_of(url: &str) -> anyhow::Result<String> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let rest = url.strip_prefix("http://").context("the suite's authorization server speaks http")?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = tokio::net::TcpStream::connect(authority).await?;
    let path = if path.is_empty() { "/" } else { path };
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    stream.take(1 << 20).read_to_end(&mut answer).await?;
    let answer = String::from_utf8_lossy(&answer);
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("location").then(|| value.trim().to_owned())
        })
        .with_context(|| format!("no redirect from {url}: {}", head.lines().next().unwrap_or_default()))
}
