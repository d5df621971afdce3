//! What a server must advertise for each method of the 2026-07-28 revision
//! to be routed. The methods themselves, of both eras, are the protocol's
//! [`Method`] table.

use crate::protocol::ServerCapabilities;
pub(crate) use crate::protocol::{Method, Target};
use crate::tasks::TASKS_EXTENSION;

/// What a server must advertise for a method to be routed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Capability {
    /// Nothing: every server answers the method.
    Always,
    Tools,
    Prompts,
    Resources,
    Completions,
    /// Some notification kind that can be subscribed to.
    Subscriptions,
    /// The tasks extension.
    Tasks,
    /// The skills extension.
    Skills,
    /// The skills extension with `directoryRead: true`.
    DirectoryRead,
}

impl Capability {
    fn is_advertised(self, caps: &ServerCapabilities) -> bool {
        match self {
            Capability::Always => true,
            Capability::Tools => caps.tools.is_some(),
            Capability::Prompts => caps.prompts.is_some(),
            Capability::Resources => caps.resources.is_some(),
            Capability::Completions => caps.completions.is_some(),
            Capability::Subscriptions => subscriptions_offered(caps),
            Capability::Tasks => tasks_offered(caps),
            Capability::Skills => skills_settings(caps).is_some(),
            Capability::DirectoryRead => {
                skills_settings(caps).and_then(|s| s.get("directoryRead")) == Some(&serde_json::Value::Bool(true))
            }
        }
    }
}

/// The method of the 2026-07-28 revision named `name`: one of the 2025 era
/// alone is no method there, and has no target for `Mcp-Name` to repeat.
pub(crate) fn stateless(name: &str) -> Option<Method> {
    Method::parse(name).filter(|method| method.in_stateless_revision())
}

/// What the server must advertise for `method` to exist in the 2026-07-28
/// revision; `None` for a method that revision does not define.
const fn capability(method: Method) -> Option<Capability> {
    Some(match method {
        Method::Discover => Capability::Always,
        Method::ToolsList | Method::ToolsCall => Capability::Tools,
        Method::PromptsList | Method::PromptsGet => Capability::Prompts,
        Method::ResourcesList | Method::ResourcesRead | Method::ResourceTemplatesList => Capability::Resources,
        Method::CompletionComplete => Capability::Completions,
        Method::SubscriptionsListen => Capability::Subscriptions,
        Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Capability::Tasks,
        Method::SkillsList | Method::SkillsGet => Capability::Skills,
        Method::ResourcesDirectoryRead => Capability::DirectoryRead,
        Method::Initialize
        | Method::Ping
        | Method::LoggingSetLevel
        | Method::ResourcesSubscribe
        | Method::ResourcesUnsubscribe
        | Method::TasksResult
        | Method::TasksList => return None,
    })
}

/// Whether this server answers `method` statelessly: one it does not
/// advertise, or one of the 2025 era alone, is answered as one that does not
/// exist.
pub(crate) fn is_offered(method: Method, caps: &ServerCapabilities) -> bool {
    capability(method).is_some_and(|c| c.is_advertised(caps))
}

/// Whether any notification kind can be subscribed to (tasks' included).
pub(super) fn subscriptions_offered(caps: &ServerCapabilities) -> bool {
    tasks_offered(caps)
        || caps.tools.as_ref().is_some_and(|c| c.list_changed == Some(true))
        || caps.prompts.as_ref().is_some_and(|c| c.list_changed == Some(true))
        || caps.resources.as_ref().is_some_and(|c| c.list_changed == Some(true) || c.subscribe == Some(true))
}

/// The settings of the skills extension, when the server declares it.
fn skills_settings(caps: &ServerCapabilities) -> Option<&serde_json::Value> {
    caps.extensions.as_ref().and_then(|e| e.get(crate::protocol::SKILLS_EXTENSION))
}

/// Whether the server advertises the tasks extension.
pub(super) fn tasks_offered(caps: &ServerCapabilities) -> bool {
    caps.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stateless_method_has_a_capability_and_no_session_one_does() {
        for &method in Method::ALL {
            assert_eq!(capability(method).is_some(), method.in_stateless_revision(), "{method:?}");
        }
        let everything = ServerCapabilities::default();
        assert!(is_offered(Method::Discover, &everything));
        assert!(!is_offered(Method::Initialize, &everything));
        assert!(!is_offered(Method::ToolsCall, &everything));
    }
}
