//! The methods this revision defines for a server, as one typed table: the
//! name on the wire, what the server must advertise for each, which params
//! member names its target, whether it streams.

use crate::protocol::ServerCapabilities;
use crate::tasks::TASKS_EXTENSION;

/// Declares [`Method`] and the list of all its variants from one list, so
/// that [`Method::parse`] knows every method.
macro_rules! methods {
    ($($variant:ident),* $(,)?) => {
        /// A method this revision defines for a server.
        ///
        /// Anything else, `initialize` and `ping` of earlier revisions
        /// included, is not a `Method`: it is answered `-32601`, as is a
        /// method whose capability the server does not advertise.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Method {
            $($variant),*
        }

        impl Method {
            /// Every method, in the order [`Method::parse`] tries them.
            const ALL: &[Method] = &[$(Method::$variant),*];
        }
    };
}

// The most frequent first: parsing tries them in this order.
methods! {
    ToolsCall,
    Discover,
    ToolsList,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourcesRead,
    ResourceTemplatesList,
    CompletionComplete,
    SubscriptionsListen,
    TasksGet,
    TasksUpdate,
    TasksCancel,
}

/// The params member naming a request's target, which the `Mcp-Name`
/// header repeats and `requestState` is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// `params.name`: a tool or a prompt.
    Name,
    /// `params.uri`: a resource.
    Uri,
    /// `params.taskId`: a task.
    TaskId,
}

impl Target {
    /// The member's name in `params`.
    pub(crate) const fn member(self) -> &'static str {
        match self {
            Target::Name => "name",
            Target::Uri => "uri",
            Target::TaskId => "taskId",
        }
    }
}

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
        }
    }
}

impl Method {
    /// The method named `name` on the wire, if this revision defines it.
    pub(crate) fn parse(name: &str) -> Option<Method> {
        Method::ALL.iter().copied().find(|method| method.name() == name)
    }

    /// The method's name on the wire.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Method::ToolsCall => "tools/call",
            Method::Discover => "server/discover",
            Method::ToolsList => "tools/list",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::ResourcesList => "resources/list",
            Method::ResourcesRead => "resources/read",
            Method::ResourceTemplatesList => "resources/templates/list",
            Method::CompletionComplete => "completion/complete",
            Method::SubscriptionsListen => "subscriptions/listen",
            Method::TasksGet => "tasks/get",
            Method::TasksUpdate => "tasks/update",
            Method::TasksCancel => "tasks/cancel",
        }
    }

    /// What the server must advertise for the method to exist.
    const fn capability(self) -> Capability {
        match self {
            Method::Discover => Capability::Always,
            Method::ToolsList | Method::ToolsCall => Capability::Tools,
            Method::PromptsList | Method::PromptsGet => Capability::Prompts,
            Method::ResourcesList | Method::ResourcesRead | Method::ResourceTemplatesList => Capability::Resources,
            Method::CompletionComplete => Capability::Completions,
            Method::SubscriptionsListen => Capability::Subscriptions,
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Capability::Tasks,
        }
    }

    /// Whether this server answers the method: a method it does not
    /// advertise is answered as one that does not exist.
    pub(crate) fn is_offered(self, caps: &ServerCapabilities) -> bool {
        self.capability().is_advertised(caps)
    }

    /// The params member naming the request's target, for the methods
    /// that have one: `Mcp-Name` must repeat it.
    pub(crate) const fn target(self) -> Option<Target> {
        match self {
            Method::ToolsCall | Method::PromptsGet => Some(Target::Name),
            Method::ResourcesRead => Some(Target::Uri),
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Some(Target::TaskId),
            Method::Discover
            | Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::SubscriptionsListen => None,
        }
    }

    /// Whether the answer is a stream of notifications that lasts until
    /// the client gives it up, rather than one result.
    pub(crate) const fn streams(self) -> bool {
        match self {
            Method::SubscriptionsListen => true,
            Method::ToolsCall
            | Method::Discover
            | Method::ToolsList
            | Method::PromptsList
            | Method::PromptsGet
            | Method::ResourcesList
            | Method::ResourcesRead
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::TasksGet
            | Method::TasksUpdate
            | Method::TasksCancel => false,
        }
    }
}

/// Whether any notification kind can be subscribed to (tasks' included).
pub(super) fn subscriptions_offered(caps: &ServerCapabilities) -> bool {
    tasks_offered(caps)
        || caps.tools.as_ref().is_some_and(|c| c.list_changed == Some(true))
        || caps.prompts.as_ref().is_some_and(|c| c.list_changed == Some(true))
        || caps.resources.as_ref().is_some_and(|c| c.list_changed == Some(true) || c.subscribe == Some(true))
}

/// Whether the server advertises the tasks extension.
pub(super) fn tasks_offered(caps: &ServerCapabilities) -> bool {
    caps.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_read_back_from_its_name_and_nothing_else_is_a_method() {
        for &method in Method::ALL {
            assert_eq!(Method::parse(method.name()), Some(method));
        }
        for other in ["initialize", "ping", "tools/call ", "Tools/call", "notifications/cancelled", ""] {
            assert_eq!(Method::parse(other), None, "{other}");
        }
    }
}
