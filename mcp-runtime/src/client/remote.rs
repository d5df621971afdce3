//! [`Remote`]: a server reached through a [`Client`], whose tools another
//! server serves as its own
//! ([`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)).

use std::collections::BTreeMap;
use std::time::Duration;

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
/// let mut session = tokio::process::Command::new("legacy-mcp-server");
/// session.arg("--stdio");
/// let remote = Remote::connect(Client::spawn(session)?).await?;
/// let gateway = Server::builder("gateway", "1.0.0").mount_remote("session", remote).build()?;
/// gateway.serve_http("127.0.0.1:3000").await?;
/// # Ok(()) }
/// ```
///
/// A remote is a peer this server may trust less than itself. What it
/// serves here is its own: it never replaces nor removes an entry of this
/// server or of another mount, however its lists change. Its entries need
/// the scopes given with [`scopes`](Self::scopes) and
/// [`entry_scopes`](Self::entry_scopes) on an authenticated server, like
/// the server's own; without them every caller the server lets in reaches
/// every entry of the remote, with the one credential of its client.
#[derive(Debug, Clone)]
pub struct Remote {
    pub(crate) client: Client,
    pub(crate) listed: Listed,
    pub(crate) scopes: RemoteScopes,
    pub(crate) relist: (Duration, Duration),
    /// How a caller's requests reach it as that caller, if they do.
    #[cfg(feature = "auth")]
    pub(crate) delegation: Option<std::sync::Arc<super::delegation::Delegation>>,
}

/// How long the first wait between two relistings of a remote whose lists
/// keep changing lasts, and the longest.
pub(crate) const RELIST_PACE: (Duration, Duration) = (Duration::from_millis(250), Duration::from_secs(30));

/// The scopes a remote's entries need here.
#[derive(Debug, Clone, Default)]
pub(crate) struct RemoteScopes {
    every: Vec<String>,
    /// By the remote's own tool or prompt name, or resource URI (template).
    by_entry: BTreeMap<String, Vec<String>>,
}

impl RemoteScopes {
    /// What the remote's entry `key` needs: the scopes of every entry and
    /// its own; `None` for none.
    pub(crate) fn of(&self, key: &str) -> Option<Vec<String>> {
        let mut scopes = self.every.clone();
        for scope in self.by_entry.get(key).into_iter().flatten() {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        (!scopes.is_empty()).then_some(scopes)
    }
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
        Ok(Remote {
            client,
            listed,
            scopes: RemoteScopes::default(),
            relist: RELIST_PACE,
            #[cfg(feature = "auth")]
            delegation: None,
        })
    }

    /// The scopes a caller must be granted, every one, to see and use each
    /// of the remote's entries here, on an authenticated server (see
    /// [`ToolEntry::scopes`](crate::entry::ToolEntry::scopes), whose rules
    /// apply). Entries the remote adds later need them too.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::client::{Client, Remote};
    ///
    /// let weather = Remote::connect(Client::http("http://127.0.0.1:4000/mcp")).await?
    ///     .scopes(["weather:read"])
    ///     .entry_scopes("set_alert", ["weather:write"]);
    /// # let _ = weather; Ok(()) }
    /// ```
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.every = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Reaches the remote as each caller: its calls, prompts, reads and
    /// completions carry a token the authorization server issues for the
    /// caller (RFC 8693 token exchange, see [`TokenExchange`](super::TokenExchange)),
    /// not the client's own credential, which still lists the remote's
    /// entries and follows their changes. Needs a server with
    /// [authorization](crate::auth::Authorization): a request without a
    /// verified caller is refused. Meant for a 2026-07-28 remote, whose
    /// requests each carry their own credential; a 2025-era remote's
    /// session would see its one session's requests come with many.
    #[cfg(feature = "auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    pub fn token_exchange(mut self, exchange: super::TokenExchange) -> Self {
        self.delegation = Some(std::sync::Arc::new(super::delegation::Delegation::new(exchange)));
        self
    }

    /// More scopes the remote's entry `key` needs here, besides those of
    /// [`scopes`](Self::scopes): `key` is the remote's own name of a tool
    /// or prompt, or the URI (or URI template) of a resource, as the
    /// remote lists it.
    pub fn entry_scopes<S: Into<String>>(
        mut self,
        key: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes.by_entry.insert(key.into(), scopes.into_iter().map(Into::into).collect());
        self
    }

    /// How often, at most, the remote's lists are read again when it keeps
    /// announcing changes: at once the first time, then waiting `first`
    /// between two readings, twice as long each time the changes keep
    /// coming, up to `last` (defaults 250 ms and 30 s); a quiet spell twice
    /// as long as the wait brings it back to `first`. Announcements that
    /// come meanwhile are read as one.
    pub fn relist_pace(mut self, first: Duration, last: Duration) -> Self {
        self.relist = (first, last.max(first));
        self
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
    #[cfg(feature = "skills")]
    let skills = match offered.extensions.as_ref().is_some_and(|e| e.contains_key(crate::protocol::SKILLS_EXTENSION)) {
        true => remote_skills(client).await?,
        false => Vec::new(),
    };
    Ok(Listed {
        tools,
        prompts,
        resources,
        templates,
        completes: offered.completions.is_some(),
        subscribes,
        tasks,
        #[cfg(feature = "skills")]
        skills,
    })
}

/// The skills a remote lists (every page, within the client's bounds),
/// those whose entries break the extension's rules left out with a
/// warning, and those past the client's item limit in files: each file is
/// served here, read from the remote, and a host checks it against the
/// entry.
#[cfg(feature = "skills")]
async fn remote_skills(client: &Client) -> Result<Vec<crate::protocol::Skill>, Error> {
    use crate::protocol::SkillFiles;
    let most_files = client.limits.list_items();
    let (mut kept, mut files) = (Vec::new(), 0usize);
    for skill in client.skills().await? {
        let count = match &skill.resources {
            SkillFiles::Listed(listed) => listed.len(),
            SkillFiles::Dynamic(_) => 1,
        };
        if super::skills::checked_entry(&skill).is_err() || files.saturating_add(count) > most_files {
            tracing::warn!(uri = %skill.uri, "a remote's skill is not served: its entry breaks the extension's rules, or its files are past the limit of {most_files}");
            continue;
        }
        files += count;
        kept.push(skill);
    }
    Ok(kept)
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
    /// Its skills, when it declares the extension.
    #[cfg(feature = "skills")]
    pub(crate) skills: Vec<crate::protocol::Skill>,
}

impl Listed {
    /// Whether the server serves interactive views (MCP Apps): its tools
    /// are then called by its views under their own names.
    pub(crate) fn has_views(&self) -> bool {
        self.resources.iter().any(|resource| crate::apps::View::of_listed(resource).is_some())
    }
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
