//! The methods a client sends a server, in both eras, as one typed table:
//! the name on the wire, which revisions define it, which params member
//! names its target, whether its answer is a stream.

/// Declares [`Method`] from one table of variants and their names on the
/// wire, with the list of all of them, so that [`Method::parse`] knows every
/// method.
macro_rules! methods {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// A request a client sends a server, in the 2026-07-28 revision
        /// (its tasks and skills extensions included) or in the 2025-era
        /// revisions.
        ///
        /// Exhaustive on purpose: a server decides what to do with every
        /// method, and a revision that adds one is a new major version of
        /// this crate.
        ///
        /// ```
        /// use mcp_runtime_protocol::Method;
        ///
        /// let call = Method::parse("tools/call").unwrap();
        /// assert_eq!(call, Method::ToolsCall);
        /// assert!(call.in_stateless_revision() && call.in_session_revisions());
        /// assert!(!Method::Initialize.in_stateless_revision());
        /// assert_eq!(Method::parse("tools/call2"), None);
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Method {
            $(
                #[doc = concat!("`", $name, "`.")]
                $variant
            ),*
        }

        impl Method {
            /// Every method, the most frequent first: the order
            /// [`Method::parse`] tries them in.
            pub const ALL: &[Method] = &[$(Method::$variant),*];

            /// The method's name on the wire.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Method::$variant => $name),*
                }
            }
        }
    };
}

methods! {
    ToolsCall => "tools/call",
    Discover => "server/discover",
    ToolsList => "tools/list",
    PromptsList => "prompts/list",
    PromptsGet => "prompts/get",
    ResourcesList => "resources/list",
    ResourcesRead => "resources/read",
    ResourceTemplatesList => "resources/templates/list",
    CompletionComplete => "completion/complete",
    SubscriptionsListen => "subscriptions/listen",
    TasksGet => "tasks/get",
    TasksUpdate => "tasks/update",
    TasksCancel => "tasks/cancel",
    Initialize => "initialize",
    Ping => "ping",
    LoggingSetLevel => "logging/setLevel",
    ResourcesSubscribe => "resources/subscribe",
    ResourcesUnsubscribe => "resources/unsubscribe",
    TasksResult => "tasks/result",
    TasksList => "tasks/list",
    SkillsList => "skills/list",
    SkillsGet => "skills/get",
    ResourcesDirectoryRead => "resources/directory/read",
}

/// The params member naming a request's target: what the `Mcp-Name` header
/// repeats, a `requestState` is bound to, and telemetry names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// `params.name`: a tool or a prompt.
    Name,
    /// `params.uri`: a resource.
    Uri,
    /// `params.taskId`: a task.
    TaskId,
}

impl Target {
    /// The member's name in `params`.
    pub const fn member(self) -> &'static str {
        match self {
            Target::Name => "name",
            Target::Uri => "uri",
            Target::TaskId => "taskId",
        }
    }
}

impl Method {
    /// The method named `name` on the wire, in either era.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.iter().copied().find(|method| method.name() == name)
    }

    /// Whether the 2026-07-28 revision (with its tasks extension) defines
    /// the method.
    pub const fn in_stateless_revision(self) -> bool {
        match self {
            Method::ToolsCall
            | Method::Discover
            | Method::ToolsList
            | Method::PromptsList
            | Method::PromptsGet
            | Method::ResourcesList
            | Method::ResourcesRead
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::SubscriptionsListen
            | Method::TasksGet
            | Method::TasksUpdate
            | Method::TasksCancel
            | Method::SkillsList
            | Method::SkillsGet
            | Method::ResourcesDirectoryRead => true,
            Method::Initialize
            | Method::Ping
            | Method::LoggingSetLevel
            | Method::ResourcesSubscribe
            | Method::ResourcesUnsubscribe
            | Method::TasksResult
            | Method::TasksList => false,
        }
    }

    /// Whether the 2025-era revisions (2025-11-25, whose tasks are
    /// experimental, and the older ones) define the method.
    pub const fn in_session_revisions(self) -> bool {
        match self {
            Method::Discover | Method::SubscriptionsListen | Method::TasksUpdate => false,
            Method::ToolsCall
            | Method::ToolsList
            | Method::PromptsList
            | Method::PromptsGet
            | Method::ResourcesList
            | Method::ResourcesRead
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::TasksGet
            | Method::TasksCancel
            | Method::Initialize
            | Method::Ping
            | Method::LoggingSetLevel
            | Method::ResourcesSubscribe
            | Method::ResourcesUnsubscribe
            | Method::TasksResult
            | Method::TasksList
            | Method::SkillsList
            | Method::SkillsGet
            | Method::ResourcesDirectoryRead => true,
        }
    }

    /// The former name of [`in_stateless_revision`](Self::in_stateless_revision).
    #[deprecated(note = "renamed `in_stateless_revision`")]
    pub const fn is_modern(self) -> bool {
        self.in_stateless_revision()
    }

    /// The former name of [`in_session_revisions`](Self::in_session_revisions).
    #[deprecated(note = "renamed `in_session_revisions`")]
    pub const fn is_legacy(self) -> bool {
        self.in_session_revisions()
    }

    /// The params member naming the request's target, for the methods
    /// that have one.
    pub const fn target(self) -> Option<Target> {
        match self {
            Method::ToolsCall | Method::PromptsGet => Some(Target::Name),
            Method::ResourcesRead | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => Some(Target::Uri),
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel | Method::TasksResult => Some(Target::TaskId),
            Method::Discover
            | Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::ResourceTemplatesList
            | Method::CompletionComplete
            | Method::SubscriptionsListen
            | Method::Initialize
            | Method::Ping
            | Method::LoggingSetLevel
            | Method::TasksList
            // The extension's methods name a URI, but the revision's
            // `Mcp-Name` rule covers its own methods only: a client of the
            // extension does not send the header for them.
            | Method::SkillsList
            | Method::SkillsGet
            | Method::ResourcesDirectoryRead => None,
        }
    }

    /// Whether the answer is a stream of notifications that lasts until
    /// the client gives it up, rather than one result.
    pub const fn streams(self) -> bool {
        matches!(self, Method::SubscriptionsListen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_read_back_from_its_name_and_nothing_else_is_a_method() {
        for &method in Method::ALL {
            assert_eq!(Method::parse(method.name()), Some(method));
            assert!(method.in_stateless_revision() || method.in_session_revisions(), "{method:?} is in no era");
        }
        for other in ["tools/call ", "Tools/call", "notifications/cancelled", "elicitation/create", ""] {
            assert_eq!(Method::parse(other), None, "{other}");
        }
    }
}
