//! Errors found when a server is built: the mistakes that must stop a server
//! from starting rather than fail on the first request.

use crate::registry::location::SourceLocation;
use crate::uri_template::TemplateError;

/// Why a [`Server`](crate::Server) could not be built.
///
/// Its `Debug` form is its `Display` sentence, the same for every variant:
/// `main` returning `Result<(), Box<dyn Error>>` reports an error with
/// `Debug`, and a build error is read by the person who has to fix it.
/// Match on the variants for their fields.
///
/// ```
/// use mcp_runtime::{Server, State, entry::ToolEntry};
///
/// let error = Server::builder("demo", "1.0.0")
///     .tool(ToolEntry::new("count", |State(n): State<u32>| async move { n }))
///     .build()
///     .unwrap_err();
/// assert_eq!(format!("{error:?}"), error.to_string());
/// assert!(error.to_string().starts_with("tool `count`"));
/// ```
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools, prompts, resources or templates share a name (or URI).
    #[error("{}", duplicate(kind, name, first, second))]
    Duplicate {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The shared name or URI.
        name: String,
        /// The first definition.
        first: SourceLocation,
        /// The second definition.
        second: SourceLocation,
    },
    /// A handler takes `State<T>` but no state of type `T` was provided.
    #[error(
        "{kind} `{name}` (at {location}) needs state of type `{type_name}`, but the server has none: add `.state(...)` with a `{type_name}` to the builder"
    )]
    MissingState {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The handler's name.
        name: String,
        /// The missing type.
        type_name: &'static str,
        /// Where the handler is.
        location: SourceLocation,
    },
    /// A resource template is not a supported RFC 6570 template.
    #[error("{error} (at {location})")]
    Template {
        /// What is wrong.
        error: TemplateError,
        /// Where the resource is.
        location: SourceLocation,
    },
    /// A resource's URI is not an absolute URI (RFC 3986): no client could
    /// read it, and `resources/list` would break the schema's `format: uri`.
    #[error("resource {uri:?} (at {location}) is not an absolute URI (RFC 3986): {reason}")]
    ResourceUri {
        /// The URI as registered.
        uri: String,
        /// What is wrong, and where in the URI.
        reason: String,
        /// Where the resource is.
        location: SourceLocation,
    },
    /// A tool's `x-mcp-header` annotations break the protocol's rules
    /// (clients would silently drop the tool).
    #[error("tool `{tool}` (at {location}) has an invalid `x-mcp-header`: {reason}")]
    HeaderParam {
        /// The tool's name.
        tool: String,
        /// What is wrong.
        reason: String,
        /// Where the tool is.
        location: SourceLocation,
    },
    /// A tool's name breaks the protocol's rule (1 to 128 characters from
    /// `A-Z a-z 0-9 _ - .`), the rule `#[tool]` checks at compile time.
    #[error("tool {name:?} (at {location}) has an invalid name: {reason}")]
    ToolName {
        /// The tool's name.
        name: String,
        /// What is wrong.
        reason: mcp_runtime_rules::tool_name::ToolNameError,
        /// Where the tool is.
        location: SourceLocation,
    },
    /// A tool, prompt, resource or template declares scopes that break
    /// RFC 6749's rule (visible ASCII but `"` and `\`), one twice, or an
    /// empty list: the rule `scopes = [...]` is checked against at compile
    /// time.
    #[error("{kind} `{name}` (at {location}) declares invalid scopes: {reason}")]
    Scope {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The entry's name, or its URI.
        name: String,
        /// What is wrong.
        reason: mcp_runtime_rules::scope::ScopeError,
        /// Where the entry is.
        location: SourceLocation,
    },
    /// A handler takes [`Principal`](crate::handler::principal::Principal), the
    /// authenticated caller, but the server is built without
    /// authentication: no request could ever carry one.
    #[error(
        "{kind} `{name}` (at {location}) takes the authenticated caller (`Principal`), but the server has no authentication: configure it on the builder (`.authenticated_by_layer()` when a layer in front verifies tokens), or take `Option<Principal>`"
    )]
    Unauthenticated {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The handler's name, or its URI.
        name: String,
        /// Where the handler is.
        location: SourceLocation,
    },
    /// An interactive view (MCP Apps) or a tool bound to one is declared
    /// wrongly: a view whose URI is not `ui://…` or that is a template, a
    /// view's domain that is not an origin, or a tool bound to a URI that no
    /// view has.
    #[error("{kind} `{name}` (at {location}): {reason}")]
    View {
        /// `tool` or `resource`.
        kind: &'static str,
        /// The tool's name, or the resource's URI.
        name: String,
        /// What is wrong, and what to do.
        reason: String,
        /// Where the entry is.
        location: SourceLocation,
    },
    /// A result cache that could never serve, or an invalidation of a tool
    /// the server does not have: a
    /// `ResultCache` (feature `cache`) put on a tool not
    /// annotated read-only and idempotent, or `invalidates = [...]` naming
    /// no tool.
    #[error("tool `{tool}` (at {location}): {reason}")]
    Cache {
        /// The tool's name.
        tool: String,
        /// What is wrong, and what to do.
        reason: String,
        /// Where the tool is.
        location: SourceLocation,
    },
    /// A server mounted under a namespace that cannot prefix names
    /// ([`ServerBuilder::mount`](crate::ServerBuilder::mount)).
    #[error("the server mounted at `{namespace}`: {reason}")]
    Mount {
        /// The namespace given.
        namespace: String,
        /// What is wrong, and what to do.
        reason: String,
    },
    /// The `MCP_ERAS` environment variable names no era choice.
    #[error("the MCP_ERAS environment variable is invalid: {reason}")]
    Eras {
        /// What is wrong.
        reason: String,
    },
    /// An environment variable the build reads (`MCP_REQUEST_STATE_KEY`,
    /// say) holds a value it cannot use.
    #[error("invalid environment: {reason}")]
    Environment {
        /// The variable.
        variable: &'static str,
        /// What is wrong, naming the variable.
        reason: String,
    },
    /// What the server was asked to serve needs a Cargo feature of
    /// `mcp-runtime` that this build leaves out: the 2025 era (`session`),
    /// say, which [`Eras::Dual`](crate::server::Eras::Dual) asks for.
    #[error(
        "{what} needs the `{feature}` feature of mcp-runtime, which this build leaves out: \
         add it to the dependency's `features`, or {instead}"
    )]
    MissingFeature {
        /// The Cargo feature.
        feature: &'static str,
        /// What asked for it.
        what: String,
        /// What serves without it.
        instead: &'static str,
    },
    /// Tools whose input schemas cannot fit the profile chosen with
    /// [`ServerBuilder::schema_profile`](crate::ServerBuilder::schema_profile).
    #[error("{} tool(s) cannot fit the {profile} schema profile: {}", refused.len(), refused.iter().map(ToString::to_string).collect::<Vec<_>>().join(" | "))]
    SchemaProfile {
        /// The profile's id (`openai`, `gemini` or `anthropic`).
        profile: &'static str,
        /// Every tool refused, in name order, with the reasons.
        refused: Vec<RefusedTool>,
    },
    /// A setting of the builder that cannot be served as given: the
    /// reason names what to change.
    #[error("{setting}: {reason}")]
    Setting {
        /// The setting, as it is called (`ServerBuilder::tool_search`, say).
        setting: &'static str,
        /// What is wrong, and what to do.
        reason: String,
    },
    /// A definition could not be serialized.
    #[error("the definition of `{name}` could not be serialized: {reason}")]
    Definition {
        /// The entry's name.
        name: String,
        /// The serializer's message.
        reason: String,
    },
    /// More than one problem: every one found, in the order the build
    /// checks them, so that one build shows all there is to fix. Each is
    /// one of the other variants (never `Several` itself);
    /// [`problems`](Self::problems) goes through them whatever the count.
    #[error("{} problems stop this server from being built:{}", problems.len(), numbered(problems))]
    Several {
        /// Each problem, two or more.
        problems: Vec<BuildError>,
    },
}

impl BuildError {
    /// Every problem this error reports: the one, or each of
    /// [`Several`](Self::Several).
    ///
    /// ```
    /// use mcp_runtime::{BuildError, Server, State, entry::ToolEntry};
    ///
    /// let error = Server::builder("demo", "1.0.0")
    ///     .tool(ToolEntry::new("count", |State(n): State<u32>| async move { n }))
    ///     .tool(ToolEntry::new("a b", || async { 1 }))
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(error.problems().len(), 2);
    /// assert!(matches!(error.problems()[0], BuildError::MissingState { .. }));
    /// ```
    pub fn problems(&self) -> &[BuildError] {
        match self {
            BuildError::Several { problems } => problems,
            one => std::slice::from_ref(one),
        }
    }
}

/// The problems of [`BuildError::Several`], one numbered line each.
fn numbered(problems: &[BuildError]) -> String {
    problems.iter().enumerate().map(|(i, problem)| format!("\n  {}. {problem}", i + 1)).collect()
}

/// The problems a build has found so far: each check reports to it and
/// goes on, and the build fails once, with all of them.
#[derive(Default)]
pub(crate) struct Problems(Vec<BuildError>);

impl Problems {
    /// Adds a problem (each of several).
    pub(crate) fn push(&mut self, error: BuildError) {
        match error {
            BuildError::Several { problems } => self.0.extend(problems),
            one => self.0.push(one),
        }
    }

    /// The value of a check that succeeded; the problem of one that did not.
    pub(crate) fn take<T>(&mut self, result: Result<T, BuildError>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// `Ok` with no problem, the problem alone, or [`BuildError::Several`].
    pub(crate) fn into_result(mut self) -> Result<(), BuildError> {
        match self.0.len() {
            0 => Ok(()),
            1 => Err(self.0.remove(0)),
            _ => Err(BuildError::Several { problems: self.0 }),
        }
    }
}

impl std::fmt::Debug for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// A tool whose input schema cannot fit a schema profile, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedTool {
    /// The tool's name.
    pub tool: String,
    /// Where the tool is.
    pub location: SourceLocation,
    /// Each problem, with its place in the schema, rule and citation.
    pub reasons: Vec<String>,
}

impl std::fmt::Display for RefusedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tool `{}` (at {}): {}", self.tool, self.location, self.reasons.join("; "))
    }
}

/// The message of [`BuildError::Duplicate`], which says how such a
/// duplicate comes about where it can tell.
fn duplicate(kind: &str, name: &str, first: &SourceLocation, second: &SourceLocation) -> String {
    let mut message = format!("duplicate {kind} `{name}`: defined at {first} and again at {second}");
    if first == second && !first.is_remote() {
        message.push_str(&format!(
            " (one definition registered twice: `server!()` holds every `#[{kind}]` linked into the binary \
             already, so do not list it again with `tools![...]`, `.tool(...)` and the like)"
        ));
    } else if first.is_remote() || second.is_remote() {
        message.push_str(
            " (a mounted server's names must be its own: serve it under a namespace of its own, with \
             `mount_remote(\"name\", remote)`, or `NAME=…` in the gateway)",
        );
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location() -> SourceLocation {
        SourceLocation { module_path: "demo::tools", file: "src/tools.rs", line: 12 }
    }

    #[test]
    fn a_duplicate_says_how_it_came_about_where_it_can() {
        let twice = BuildError::Duplicate { kind: "tool", name: "add".into(), first: location(), second: location() };
        assert!(twice.to_string().contains("`server!()` holds every `#[tool]`"), "{twice}");
        let elsewhere = SourceLocation { line: 40, ..location() };
        let two = BuildError::Duplicate { kind: "tool", name: "add".into(), first: location(), second: elsewhere };
        assert!(!two.to_string().contains("server!()"), "two definitions: {two}");
        let remote = SourceLocation::remote("the server mounted at `notes`");
        let clash = BuildError::Duplicate { kind: "tool", name: "add".into(), first: location(), second: remote };
        let message = clash.to_string();
        assert!(message.contains("again at the server mounted at `notes`"), "{message}");
        assert!(message.contains("serve it under a namespace"), "{message}");
    }

    /// One of each variant (they all go through the one `Debug`).
    fn every_variant() -> Vec<BuildError> {
        use mcp_runtime_rules::{scope::ScopeError, tool_name::ToolNameError};
        vec![
            BuildError::Duplicate { kind: "tool", name: "add".into(), first: location(), second: location() },
            BuildError::MissingState { kind: "tool", name: "add".into(), type_name: "demo::Db", location: location() },
            BuildError::Template {
                error: TemplateError { template: "x://{a".into(), reason: "an expression has no closing `}`".into() },
                location: location(),
            },
            BuildError::ResourceUri { uri: "read me".into(), reason: "no scheme".into(), location: location() },
            BuildError::HeaderParam { tool: "add".into(), reason: "bad".into(), location: location() },
            BuildError::ToolName { name: "a b".into(), reason: ToolNameError::Char(' '), location: location() },
            BuildError::Scope { kind: "tool", name: "add".into(), reason: ScopeError::EmptyList, location: location() },
            BuildError::Unauthenticated { kind: "tool", name: "whoami".into(), location: location() },
            BuildError::Cache { tool: "add".into(), reason: "no cache".into(), location: location() },
            BuildError::Eras { reason: "`both` is none of stateless, session, dual".into() },
            BuildError::Environment { variable: "MCP_REQUEST_STATE_KEY", reason: "too short".into() },
            BuildError::MissingFeature {
                feature: "session",
                what: "serving 2025-era clients (eras `dual`)".into(),
                instead: "serve `Eras::Stateless` only",
            },
            BuildError::SchemaProfile {
                profile: "openai",
                refused: vec![RefusedTool { tool: "add".into(), location: location(), reasons: vec!["a map".into()] }],
            },
            BuildError::Definition { name: "add".into(), reason: "not JSON".into() },
            BuildError::Several {
                problems: vec![
                    BuildError::Definition { name: "add".into(), reason: "not JSON".into() },
                    BuildError::Unauthenticated { kind: "tool", name: "whoami".into(), location: location() },
                ],
            },
        ]
    }

    #[test]
    fn several_problems_are_each_told_on_a_line_of_their_own() {
        let mut problems = Problems::default();
        problems.push(BuildError::Eras { reason: "none".into() });
        let one = Problems(vec![BuildError::Eras { reason: "none".into() }]).into_result().unwrap_err();
        assert!(matches!(one, BuildError::Eras { .. }), "one problem is itself: {one}");
        problems.push(every_variant().pop().expect("Several"));
        let error = problems.into_result().unwrap_err();
        assert_eq!(error.problems().len(), 3, "nested problems are flattened: {error}");
        assert_eq!(
            error.to_string(),
            "3 problems stop this server from being built:\n  \
             1. the MCP_ERAS environment variable is invalid: none\n  \
             2. the definition of `add` could not be serialized: not JSON\n  \
             3. tool `whoami` (at src/tools.rs:12 (in `demo::tools`)) takes the authenticated caller (`Principal`), \
             but the server has no authentication: configure it on the builder (`.authenticated_by_layer()` when a \
             layer in front verifies tokens), or take `Option<Principal>`"
        );
    }

    #[test]
    fn debug_is_the_display_sentence() {
        for error in every_variant() {
            let sentence = error.to_string();
            assert_eq!(format!("{error:?}"), sentence);
            assert_eq!(format!("{error:#?}"), sentence);
        }
        let missing = &every_variant()[1];
        assert_eq!(
            format!("{missing:?}"),
            "tool `add` (at src/tools.rs:12 (in `demo::tools`)) needs state of type `demo::Db`, but the server has none: \
             add `.state(...)` with a `demo::Db` to the builder"
        );
    }
}
