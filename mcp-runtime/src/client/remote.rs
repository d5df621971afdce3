//! [`Remote`]: a server reached through a [`Client`], whose tools another
//! server serves as its own
//! ([`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::Client;
use super::error::Error;
use crate::protocol::{Prompt, Resource, ResourceTemplate, Tool};

/// A server in another process or behind a URL, with the tools, prompts
/// and resources it listed when it was connected: what
/// [`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)
/// serves, each call, prompt and read forwarded through the client.
/// A remote's questions (`input_required`) are relayed to the serving
/// server's client, its list changes and resource updates followed and
/// its completions forwarded; a 2025-era remote's questions on its session
/// are relayed too, and its tasks followed.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::Server;
/// use mcp_runtime::client::{Client, Remote};
///
/// let mut legacy = tokio::process::Command::new("legacy-mcp-server");
/// legacy.arg("--stdio");
/// let remote = Remote::connect(Client::spawn(legacy)?).await?;
/// let gateway = Server::builder("gateway", "1.0.0").mount_remote("legacy", remote).build()?;
/// gateway.serve_http("127.0.0.1:3000").await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Remote {
    pub(crate) client: Client,
    pub(crate) listed: Listed,
}

impl Remote {
    /// Lists, through `client`, what the server offers (every page): its
    /// tools, and its prompts and resources when it declares them.
    ///
    /// The client declares elicitation (form and URL), sampling and roots
    /// besides what it declared already: a 2025-era server asks only what
    /// its session's client declared when it began, and the serving
    /// server relays every question to its own client (which is asked
    /// only what it declared itself). A session begun before `connect`
    /// keeps what it declared.
    pub async fn connect(client: Client) -> Result<Remote, Error> {
        let client = relaying(client);
        let listed = listed(&client).await?;
        Ok(Remote { client, listed })
    }

    /// The client the server is reached through.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The tools the server listed.
    pub fn tools(&self) -> &[Tool] {
        &self.listed.tools
    }

    /// The prompts the server listed.
    pub fn prompts(&self) -> &[Prompt] {
        &self.listed.prompts
    }

    /// The resources the server listed.
    pub fn resources(&self) -> &[Resource] {
        &self.listed.resources
    }

    /// The resource templates the server listed.
    pub fn resource_templates(&self) -> &[ResourceTemplate] {
        &self.listed.templates
    }
}

/// `client`, declaring the questions a serving server relays.
fn relaying(client: Client) -> Client {
    let mut declared =
        serde_json::to_value(client.declared_capabilities()).unwrap_or_else(|_| Value::Object(Map::new()));
    if let Some(declared) = declared.as_object_mut() {
        let asked = [("elicitation", json!({"form": {}, "url": {}})), ("sampling", json!({})), ("roots", json!({}))];
        for (capability, settings) in asked {
            declared.entry(capability).or_insert(settings);
        }
    }
    match serde_json::from_value(declared) {
        Ok(capabilities) => client.capabilities(capabilities),
        Err(_) => client,
    }
}

/// What the server behind `client` offers now: its tools, and its prompts
/// and resources when it declares them. A list the server no longer offers
/// is empty (a 2025-era session's capabilities are those of its start: a
/// server whose last tool went may answer `tools/list` with -32601).
pub(crate) async fn listed(client: &Client) -> Result<Listed, Error> {
    let offered = client.discover().await?.capabilities;
    let subscribes = offered.resources.as_ref().and_then(|r| r.subscribe) == Some(true);
    let tools = match offered.tools {
        Some(_) => or_none(client.list_tools().await)?,
        None => Vec::new(),
    };
    let prompts = match offered.prompts {
        Some(_) => typed(or_none(client.list_prompts().await)?, "prompts")?,
        None => Vec::new(),
    };
    let (resources, templates) = match offered.resources {
        Some(_) => (
            typed(or_none(client.list_resources().await)?, "resources")?,
            typed(or_none(client.list_resource_templates().await)?, "resource templates")?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    let tasks = offered.extensions.as_ref().is_some_and(|e| e.contains_key(crate::tasks::TASKS_EXTENSION));
    Ok(Listed { tools, prompts, resources, templates, completes: offered.completions.is_some(), subscribes, tasks })
}

/// What a server listed, and what it declared of it.
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    pub(crate) tools: Vec<Tool>,
    pub(crate) prompts: Vec<Prompt>,
    pub(crate) resources: Vec<Resource>,
    pub(crate) templates: Vec<ResourceTemplate>,
    /// Whether it completes arguments (`completions`).
    pub(crate) completes: bool,
    /// Whether it announces updates of resources (`resources.subscribe`).
    pub(crate) subscribes: bool,
    /// Whether it may answer a `tools/call` with a task (it declares the
    /// tasks extension).
    pub(crate) tasks: bool,
}

/// A list, or none for a method the server does not know (any more).
fn or_none<T>(listed: Result<Vec<T>, Error>) -> Result<Vec<T>, Error> {
    match listed {
        Err(Error::Rpc(error)) if error.code == -32601 => Ok(Vec::new()),
        listed => listed,
    }
}

fn typed<T: DeserializeOwned>(listed: Vec<Value>, what: &str) -> Result<Vec<T>, Error> {
    listed
        .into_iter()
        .map(|item| serde_json::from_value(item).map_err(|e| Error::Invalid(format!("in the remote's {what}: {e}"))))
        .collect()
}
