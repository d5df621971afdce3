//! A remote server's catalog served as this server's own
//! ([`ServerBuilder::mount_remote`](crate::ServerBuilder::mount_remote)):
//! its tools, prompts and fixed resources under the namespace, by the rule
//! of [`mount`](super::mount), each call, prompt and read forwarded through
//! its client. The remote's JSON-RPC errors are passed on as it gave them;
//! its failures (gone, a bad answer, no answer in time) are `-32603` naming
//! the mount, and this server goes on.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::mount::{mounted_name, mounted_uri};
use crate::client::{Client, Error};
use crate::handler::extract::Args;
use crate::handler::outcome::RpcError;
use crate::protocol::{ErrorObject, Prompt, ReadResourceResult, Resource, Tool};
use crate::registry::entry::{PromptEntry, ResourceEntry, ResourceKind, ToolEntry};

/// A remote tool served under `namespace`, each call forwarded.
pub(crate) fn tool(namespace: &str, remote: Tool, client: Client) -> ToolEntry {
    let name: Arc<str> = remote.name.as_str().into();
    let served = Arc::<str>::from(namespace);
    let mut entry = ToolEntry::new(mounted_name(namespace, &remote.name), move |Args(arguments): Args<Value>| {
        let (client, name, served) = (client.clone(), Arc::clone(&name), Arc::clone(&served));
        async move { client.call_tool(&name, object(arguments)).await.map_err(|e| relayed(&served, e)) }
    });
    let mut definition = remote;
    definition.name = std::mem::take(&mut entry.definition.name);
    entry.definition = definition;
    entry
}

/// A remote prompt served under `namespace`, each `prompts/get` forwarded.
pub(crate) fn prompt(namespace: &str, remote: Prompt, client: Client) -> PromptEntry {
    let name: Arc<str> = remote.name.as_str().into();
    let served = Arc::<str>::from(namespace);
    let mut entry = PromptEntry::new(mounted_name(namespace, &remote.name), move |Args(arguments): Args<Value>| {
        let (client, name, served) = (client.clone(), Arc::clone(&name), Arc::clone(&served));
        async move { client.get_prompt(&name, object(arguments)).await.map_err(|e| relayed(&served, e)) }
    });
    let mut definition = remote;
    definition.name = std::mem::take(&mut entry.definition.name);
    entry.definition = definition;
    entry
}

/// A remote resource served under `namespace` (its URI rewritten), each
/// read forwarded and its contents given the URI served here.
pub(crate) fn resource(namespace: &str, remote: Resource, client: Client) -> ResourceEntry {
    let original: Arc<str> = remote.uri.as_str().into();
    let here: Arc<str> = mounted_uri(namespace, &remote.uri).into();
    let served = Arc::<str>::from(namespace);
    let read = {
        let (original, here) = (Arc::clone(&original), Arc::clone(&here));
        move || {
            let (client, original, here, served) =
                (client.clone(), Arc::clone(&original), Arc::clone(&here), Arc::clone(&served));
            async move {
                let mut result: ReadResourceResult =
                    client.read_resource(&original).await.map_err(|e| relayed(&served, e))?;
                for contents in &mut result.contents {
                    if contents.uri == *original {
                        contents.uri = here.to_string();
                    }
                }
                Ok::<_, RpcError>(result)
            }
        }
    };
    let mut entry = ResourceEntry::fixed(here.to_string(), remote.name.clone(), read);
    let mut definition = remote;
    definition.uri = here.to_string();
    entry.kind = ResourceKind::Fixed(definition);
    entry
}

/// Arguments as an object: none is `{}`.
fn object(arguments: Value) -> Value {
    match arguments {
        Value::Null => Value::Object(Map::new()),
        other => other,
    }
}

/// What a forwarded request's failure is answered with.
fn relayed(served: &str, error: Error) -> RpcError {
    match error {
        Error::Rpc(error) => error.into(),
        Error::InputRequired(_) => {
            ErrorObject::internal(format!("The server mounted at `{served}` asks for input, which is not relayed yet"))
                .into()
        }
        other => ErrorObject::internal(format!("The server mounted at `{served}`: {other}")).into(),
    }
}
