//! A remote server's catalog served as this server's own
//! ([`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)):
//! its tools, prompts, resources and resource templates under the
//! namespace, by the rule of [`mount`](super), each call, prompt,
//! read and completion forwarded through its client. The remote's JSON-RPC errors are passed on as it gave them;
//! its failures (gone, a bad answer, no answer in time) are `-32603` naming
//! the mount, and this server goes on.
//!
//! A remote's progress is passed on to this server's client when it asked
//! for progress, and a forwarded request this server gives up (its client
//! cancelled, or it ran out of time) is cancelled at the remote.
//!
//! A remote that answers a call or a prompt with `input_required` has its
//! questions asked of this server's client, under the remote's keys (as
//! this server's own, so in either era), and the request sent to it again
//! with the answers. A 2025-era remote asks on its session instead: its
//! questions are asked of this server's client all the same
//! ([`questions`](super::questions)). A call the remote makes a
//! task of is a task here too ([`task`](super::task)).

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::delegated::{self, Delegated};
use super::forwarded::{ServedRequest, relay, relayed, unreadable};
use super::{mounted_name, mounted_uri, unmounted_uri};
use crate::client::Client;
use crate::client::exchange::Forwarded;
use crate::client::forwarding::{OnMessage, OnProgress, ResultText};
use crate::client::remote::RemoteScopes;
use crate::handler::call::Call as _;
use crate::handler::call::{CompleteCall, PromptCall, ResourceCall, ToolCall};
use crate::handler::functions::{BoxFuture, RelayFn};
use crate::handler::notify::Logger;
use crate::handler::outcome::{Outcome, RpcError};
use crate::handler::passed::{Kind, PassedResult, Peeked};
use crate::protocol::{
    Completion, CompletionReference, ErrorObject, LoggingLevel, ProgressParams, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use crate::registry::entry::{Owner, PromptEntry, ResourceEntry, ResourceKind, ToolEntry};
use crate::registry::location::SourceLocation;

/// A remote mounted here, as its entries are made: under its namespace,
/// owned by it (no other mount, nor the server's own code through it,
/// replaces them), needing the scopes it was given.
#[derive(Clone)]
pub(crate) struct Mounted {
    pub(crate) namespace: Arc<str>,
    pub(crate) client: Client,
    pub(crate) owner: Owner,
    pub(crate) scopes: Arc<RemoteScopes>,
    /// Whether its requests go as each caller.
    pub(crate) delegated: Delegated,
    /// What errors about its entries name as their definition.
    location: SourceLocation,
}

impl Mounted {
    pub(crate) fn new(namespace: Arc<str>, remote: &crate::client::Remote) -> Self {
        static MOUNTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = MOUNTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let owner = format!("{namespace}#{n}").into();
        // Made once per mount, when a server is built: a few bytes kept for
        // the process's life, so that errors can name the remote.
        let described: &'static str = match namespace.is_empty() {
            true => "the server proxied here",
            false => Box::leak(format!("the server mounted at `{namespace}`").into_boxed_str()),
        };
        let location = SourceLocation::remote(described);
        #[cfg(feature = "auth")]
        let delegated = remote.delegation.clone();
        #[cfg(not(feature = "auth"))]
        let delegated = ();
        let scopes = Arc::new(remote.scopes.clone());
        Mounted { namespace, client: remote.client.clone(), owner, scopes, delegated, location }
    }

    /// How the mount is named in logs and errors.
    pub(crate) fn name(&self) -> &str {
        if self.namespace.is_empty() { "(proxied)" } else { &self.namespace }
    }
}

/// A remote tool served under its mount's namespace, each call forwarded.
/// When the remote `runs_tasks` (it declares the tasks extension), a call
/// it makes a task of is a task here too ([`task`](super::task)).
/// When the remote serves views, the tool's view is named as it is served
/// here, and its views reach it by its own name.
pub(crate) fn tool(mount: &Mounted, remote: Tool, runs_tasks: bool, views: bool) -> ToolEntry {
    let namespace = &*mount.namespace;
    let relay = relaying(mount, &remote.name, runs_tasks);
    // Built with a placeholder, then given its handlers.
    let mut entry = ToolEntry::new(mounted_name(namespace, &remote.name), || async { "" });
    entry.handler = reading(Arc::clone(&relay), namespace);
    entry.relay = Some(relay);
    entry.location = mount.location;
    entry.owner = Some(Arc::clone(&mount.owner));
    entry.scopes = mount.scopes.of(&remote.name);
    if runs_tasks {
        // The remote alone decides, call by call: the call stays within the
        // request until it has (`input_first`, held by `forward`).
        entry = entry.task(crate::tasks::TaskSupport::optional().input_first());
    }
    let own_name = remote.name.clone();
    let mut definition = remote;
    definition.name = std::mem::take(&mut entry.definition.name);
    entry.definition = definition;
    if views && !namespace.is_empty() {
        entry.mounted_view(&own_name, |uri| mounted_uri(namespace, uri));
    }
    entry
}

/// A remote prompt served under its mount's namespace, each `prompts/get`
/// forwarded, and each completion of its arguments when the remote
/// `completes`.
pub(crate) fn prompt(mount: &Mounted, remote: Prompt, completes: bool) -> PromptEntry {
    let (namespace, client) = (&*mount.namespace, mount.client.clone());
    let reference = CompletionReference::Prompt { name: remote.name.clone(), title: None };
    let completer = completes.then(|| completing(mount, reference));
    // Built with a placeholder, then given its handler.
    let mut entry = PromptEntry::new(mounted_name(namespace, &remote.name), || async { "" });
    entry.handler = prompting(client, mount.delegated.clone(), &remote.name, namespace);
    entry.location = mount.location;
    entry.owner = Some(Arc::clone(&mount.owner));
    entry.scopes = mount.scopes.of(&remote.name);
    if let Some(completer) = completer {
        entry = entry.completer(completer);
    }
    let mut definition = remote;
    definition.name = std::mem::take(&mut entry.definition.name);
    entry.definition = definition;
    entry
}

/// The relay of the remote tool `name`: each call's arguments sent as its
/// caller wrote them, and its result passed on as the remote wrote it
/// (read only as far as [`Peeked`] does). When the remote `runs_tasks`, a
/// call is held within the request until the remote has said whether it
/// made a task of it.
fn relaying(mount: &Mounted, name: &str, runs_tasks: bool) -> RelayFn {
    // Shared, not cloned per call: a client's clone copies its transport.
    let client = Arc::new(mount.client.clone());
    let delegated = mount.delegated.clone();
    let (name, served): (Arc<str>, Arc<str>) = (name.into(), (*mount.namespace).into());
    Arc::new(move |call: ToolCall| {
        let (client, name, served) = (Arc::clone(&client), Arc::clone(&name), Arc::clone(&served));
        let delegated = delegated.clone();
        Box::pin(async move {
            let acting = delegated::client_for(&client, &delegated, call.context(), &served).await.map_err(|e| e.0)?;
            let client = acting.as_ref().unwrap_or(&client);
            let here = ServedRequest::of(&call, &served);
            if runs_tasks {
                // Until the remote says whether it makes a task of the
                // request, this server does not either (the tool is
                // `input_first`: its waits would otherwise make it one).
                here.input().map_err(|e| e.0)?.hold_inline(true);
            }
            let (text, peeked) =
                forward(client, "tools/call", &name, call.raw_arguments(), &here).await.map_err(|e| e.0)?;
            if !peeked.has_content {
                let why = &"a tool result without `content`";
                return Err(unreadable(&served, "gave a result that does not read", why).0);
            }
            Ok(Outcome::Complete(PassedResult { text, peeked }))
        })
    })
}

/// The handler of a relayed tool where its result must be read (a 2025-era
/// session's call, a task): `relay`'s result read as a `CallToolResult`.
fn reading(relay: RelayFn, served: &str) -> crate::handler::functions::ToolFn {
    let served: Arc<str> = served.into();
    Arc::new(move |call| {
        let (relayed, served) = (relay(call), Arc::clone(&served));
        Box::pin(async move {
            match relayed.await? {
                Outcome::Complete(passed) => serde_json::from_str(&passed.text)
                    .map(Outcome::Complete)
                    .map_err(|e| unreadable(&served, "gave a result that does not read", &e).0),
                Outcome::InputRequired(asked) => Ok(Outcome::InputRequired(asked)),
            }
        })
    })
}

/// The handler of the remote prompt `name`: its arguments sent as
/// `prompts/get`, the result read as a `GetPromptResult`.
fn prompting(client: Client, delegated: Delegated, name: &str, served: &str) -> crate::handler::functions::PromptFn {
    let (name, served): (Arc<str>, Arc<str>) = (name.into(), served.into());
    Arc::new(move |call: PromptCall| {
        let (client, name, served) = (client.clone(), Arc::clone(&name), Arc::clone(&served));
        let delegated = delegated.clone();
        Box::pin(async move {
            let acting = delegated::client_for(&client, &delegated, call.context(), &served).await.map_err(|e| e.0)?;
            let client = acting.unwrap_or(client);
            let arguments = serde_json::value::to_raw_value(call.arguments())
                .map_err(|e| ErrorObject::invalid_params(format!("Arguments that cannot be sent: {e}")))?;
            let here = ServedRequest::of(&call, &served);
            let (text, _) = forward(&client, "prompts/get", &name, Some(&arguments), &here).await.map_err(|e| e.0)?;
            serde_json::from_str(&text)
                .map(Outcome::Complete)
                .map_err(|e| unreadable(&served, "gave a result that does not read", &e).0)
        })
    })
}

/// A remote resource served under its mount's namespace (its URI
/// rewritten), each read forwarded and its contents given the URI served
/// here.
pub(crate) fn resource(mount: &Mounted, remote: Resource) -> ResourceEntry {
    let (namespace, client) = (&*mount.namespace, mount.client.clone());
    let original: Arc<str> = remote.uri.as_str().into();
    let here: Arc<str> = mounted_uri(namespace, &remote.uri).into();
    let served = Arc::<str>::from(namespace);
    let delegated = mount.delegated.clone();
    // Built with a placeholder, then given the handler that reads it as
    // its caller (a fixed resource's handlers see no request otherwise).
    let mut entry = ResourceEntry::fixed(here.to_string(), remote.name.clone(), || async { "" });
    {
        let (original, here) = (Arc::clone(&original), Arc::clone(&here));
        entry.handler = Arc::new(move |call: ResourceCall, _mime| {
            let (client, original, here, served) =
                (client.clone(), Arc::clone(&original), Arc::clone(&here), Arc::clone(&served));
            let delegated = delegated.clone();
            Box::pin(async move {
                let acting =
                    delegated::client_for(&client, &delegated, call.context(), &served).await.map_err(|e| e.0)?;
                let client = acting.as_ref().unwrap_or(&client);
                let mut result: ReadResourceResult =
                    client.read_resource(&original).await.map_err(|e| relayed(&served, e).0)?;
                for contents in &mut result.contents {
                    if contents.uri == *original {
                        contents.uri = here.to_string();
                    }
                }
                Ok(Outcome::Complete(result))
            })
        });
    }
    entry.location = mount.location;
    entry.owner = Some(Arc::clone(&mount.owner));
    entry.scopes = mount.scopes.of(&remote.uri);
    // A view of the remote's is one here too: the tools bound to it find it.
    entry.view = crate::apps::View::of_listed(&remote);
    let mut definition = remote;
    definition.uri = here.to_string();
    entry.kind = ResourceKind::Fixed(definition);
    entry
}

/// A remote resource template served under its mount's namespace (its
/// template rewritten as a URI is), each read of a URI it matches forwarded
/// as the URI at the remote, and the contents given the URI read here; and
/// each completion of its variables when the remote `completes`.
pub(crate) fn template(mount: &Mounted, remote: ResourceTemplate, completes: bool) -> ResourceEntry {
    let (namespace, client) = (&*mount.namespace, mount.client.clone());
    let here = mounted_uri(namespace, &remote.uri_template);
    let served: Arc<str> = namespace.into();
    // Built with a placeholder, then given the handler that reads the URI
    // requested (a template's handlers see only its variables).
    let mut entry = ResourceEntry::template(here.clone(), remote.name.clone(), || async { "" });
    entry.location = mount.location;
    entry.owner = Some(Arc::clone(&mount.owner));
    entry.scopes = mount.scopes.of(&remote.uri_template);
    if completes {
        let reference = CompletionReference::Resource { uri: remote.uri_template.clone() };
        entry = entry.completer(completing(mount, reference));
    }
    let delegated = mount.delegated.clone();
    entry.handler = Arc::new(move |call: ResourceCall, _mime| {
        let (client, served) = (client.clone(), Arc::clone(&served));
        let delegated = delegated.clone();
        Box::pin(async move {
            let acting = delegated::client_for(&client, &delegated, call.context(), &served).await.map_err(|e| e.0)?;
            let client = acting.unwrap_or(client);
            let requested = call.uri().to_owned();
            let original = unmounted_uri(&served, &requested).ok_or_else(|| {
                ErrorObject::invalid_params(format!("`{requested}` is not under the mount `{served}`"))
            })?;
            let mut result = client.read_resource(&original).await.map_err(|e| relayed(&served, e).0)?;
            for contents in &mut result.contents {
                if contents.uri == original {
                    contents.uri.clone_from(&requested);
                }
            }
            Ok(Outcome::Complete(result))
        })
    });
    if let crate::registry::entry::ResourceKind::Template(definition, _) = &mut entry.kind {
        let mut remote = remote;
        remote.uri_template = here;
        *definition = remote;
    }
    entry
}

/// The completer of a mounted prompt or template: `completion/complete`
/// forwarded with the remote's own `reference`.
fn completing(
    mount: &Mounted,
    reference: CompletionReference,
) -> impl Fn(CompleteCall) -> BoxFuture<'static, Result<Completion, ErrorObject>> + Send + Sync + 'static {
    let (client, delegated) = (mount.client.clone(), mount.delegated.clone());
    let served: Arc<str> = (*mount.namespace).into();
    move |call| {
        let (client, reference, served) = (client.clone(), reference.clone(), Arc::clone(&served));
        let delegated = delegated.clone();
        Box::pin(async move {
            let acting = delegated::client_for(&client, &delegated, call.context(), &served).await.map_err(|e| e.0)?;
            acting
                .as_ref()
                .unwrap_or(&client)
                .complete(reference, call.argument(), call.value(), call.other_arguments())
                .await
                .map_err(|e| relayed(&served, e).0)
        })
    }
}

/// Sends `method` for `name` with `arguments` to the remote, relaying its
/// questions to this server's client until it answers with a complete
/// result, its progress when this server's client asked for progress, and
/// its log messages at the level this server's client asked for (a
/// 2026-07-28 remote is asked for that level; a 2025-era one logs at its
/// session's). A task the remote makes of the request is followed to its
/// end. The result comes back as the remote wrote it, with what its
/// envelope says.
async fn forward(
    client: &Client,
    method: &str,
    name: &str,
    arguments: Option<&RawValue>,
    here: &ServedRequest<'_>,
) -> Result<(String, Peeked), RpcError> {
    let (progress, logger, served) = (&here.progress, &here.logger, here.served);
    let level = logger.level();
    let on_progress = progress.is_requested().then(|| {
        let progress = progress.clone();
        Box::new(move |p: ProgressParams| {
            match p.message {
                Some(message) => progress.report_with_message(p.progress, p.total, message),
                None => progress.report(p.progress, p.total),
            };
        }) as OnProgress
    });
    let on_message = level.is_some().then(|| {
        let logger = logger.clone();
        Box::new(move |message: &Value| relay_log(&logger, message)) as OnMessage
    });
    // Only a 2025-era session asks questions with requests of its own.
    let (asks, mut questions) = match client.in_session() {
        true => {
            let (asks, questions) = tokio::sync::mpsc::unbounded_channel();
            (Some(asks), Some(questions))
        }
        false => (None, None),
    };
    let mut heard = (on_progress.is_some() || on_message.is_some() || asks.is_some())
        .then(|| client.request_listener(on_progress, on_message, asks));
    // A 2025-era remote may end its stream for its client to resume later:
    // this server's client is told to resume too, rather than wait on an
    // open connection that sends nothing.
    if let Some((_, notices)) = heard.as_mut().filter(|_| client.in_session()) {
        notices.on_resume = Some(here.stream_closer());
    }
    let mut params = Forwarded { name, arguments, input_responses: Map::new(), request_state: None };
    let rounds = client.limits().rounds();
    for _ in 0..=rounds {
        let request = client.forward_round(method, &params, (here.capabilities(), level), heard.as_ref());
        // The rarer paths boxed: every forwarded call's future would
        // otherwise take their room, and be moved whole.
        let answered = match &mut questions {
            Some(questions) => Box::pin(super::questions::answering(request, questions, here.input()?)).await,
            None => request.await,
        };
        let ResultText(text) = answered.map_err(|e| relayed(served, e))?;
        let peeked = peek(&text, served)?;
        match peeked.kind {
            Some(Kind::InputRequired) => {
                let result = read_value(&text, served)?;
                let answers = Box::pin(relay(here.input()?, &result, served, client)).await?;
                params
                    .next_round(&result, answers)
                    .map_err(|why| unreadable(served, "gave an input request that does not read", &why))?;
            }
            Some(Kind::Task) => {
                here.input()?.hold_inline(false);
                let result = Box::pin(super::task::follow(client, read_value(&text, served)?, here)).await?;
                let text = result.to_string();
                let peeked = peek(&text, served)?;
                return Ok((text, peeked));
            }
            Some(Kind::Complete) | None => return Ok((text, peeked)),
        }
    }
    Err(ErrorObject::internal(format!("The server mounted at `{served}` still asked for input after {rounds} rounds"))
        .into())
}

/// What a remote's result says of itself ([`Peeked::read`]).
fn peek(text: &str, served: &str) -> Result<Peeked, RpcError> {
    Peeked::read(text).map_err(|e| unreadable(served, "gave a result that does not read", &e))
}

/// A remote's result read into a value, to act on.
fn read_value(text: &str, served: &str) -> Result<Value, RpcError> {
    serde_json::from_str(text).map_err(|e| unreadable(served, "gave a result that does not read", &e))
}

/// Passes a remote's `notifications/message` on to this server's client,
/// through `logger` (which drops what is below the level asked for).
fn relay_log(logger: &Logger, message: &Value) {
    let Some(params) = message.get("params") else { return };
    let Some(Ok(level)) = params.get("level").map(|l| serde_json::from_value::<LoggingLevel>(l.clone())) else {
        return;
    };
    let data = params.get("data").cloned().unwrap_or(Value::Null);
    match params.get("logger").and_then(Value::as_str) {
        Some(name) => logger.clone().named(name).log(level, data),
        None => logger.log(level, data),
    };
}
