//! Pieces of definitions shared by tools, prompts and resources: icons,
//! `_meta`, tool hints and content annotations.

use serde_json::{Map, Value};

use crate::protocol::{Annotations, Icon, Role, ToolAnnotations};

/// What an entry of `icons = [...]` may be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an icon",
    label = "expected an icon URI or an `Icon`",
    note = "write `icons = [\"https://example.com/icon.png\"]`, or build an `mcp_runtime::protocol::Icon`"
)]
pub trait IntoIcon {
    /// The icon.
    fn into_icon(self) -> Icon;
}

impl IntoIcon for &'static str {
    fn into_icon(self) -> Icon {
        Icon::new(self)
    }
}

impl IntoIcon for String {
    fn into_icon(self) -> Icon {
        Icon::new(self)
    }
}

impl IntoIcon for Icon {
    fn into_icon(self) -> Icon {
        self
    }
}

/// One entry of `icons = [...]`.
pub fn icon(icon: impl IntoIcon) -> Icon {
    icon.into_icon()
}

/// The `_meta` object of a definition, built by `serde_json::json!` from
/// `meta("key" = value, ...)`.
pub struct MetaObject;

impl MetaObject {
    /// The object's entries (the macro only ever builds an object).
    pub fn from_value(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }
}

/// `annotations(...)` of a tool.
#[derive(Debug, Default)]
pub struct ToolHints(ToolAnnotations);

impl ToolHints {
    /// No hints.
    pub fn new() -> Self {
        ToolHints(ToolAnnotations::default())
    }

    /// `title = "..."`.
    pub fn title(mut self, title: &'static str) -> Self {
        self.0.title = Some(title.into());
        self
    }

    /// `read_only`.
    pub fn read_only(mut self, value: bool) -> Self {
        self.0.read_only_hint = Some(value);
        self
    }

    /// `destructive`.
    pub fn destructive(mut self, value: bool) -> Self {
        self.0.destructive_hint = Some(value);
        self
    }

    /// `idempotent`.
    pub fn idempotent(mut self, value: bool) -> Self {
        self.0.idempotent_hint = Some(value);
        self
    }

    /// `open_world`.
    pub fn open_world(mut self, value: bool) -> Self {
        self.0.open_world_hint = Some(value);
        self
    }

    /// The annotations.
    pub fn build(self) -> ToolAnnotations {
        self.0
    }
}

/// `annotations(...)` of a resource.
#[derive(Debug, Default)]
pub struct ContentAnnotations(Annotations);

impl ContentAnnotations {
    /// No annotations.
    pub fn new() -> Self {
        ContentAnnotations(Annotations::default())
    }

    /// `audience = ["user", "assistant"]` (checked by the macro).
    pub fn audience(mut self, audience: &[&str]) -> Self {
        let roles = audience.iter().filter_map(|r| match *r {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            _ => None,
        });
        self.0.audience = Some(roles.collect());
        self
    }

    /// `priority = 0.5` (checked to lie in 0..=1 by the macro).
    pub fn priority(mut self, priority: f64) -> Self {
        self.0.priority = Some(priority);
        self
    }

    /// `last_modified = "2025-01-12T15:00:58Z"`.
    pub fn last_modified(mut self, last_modified: &'static str) -> Self {
        self.0.last_modified = Some(last_modified.into());
        self
    }

    /// The annotations.
    pub fn build(self) -> Annotations {
        self.0
    }
}

/// A type whose argument default may be written as a string literal
/// (`#[arg(default = "en")]`).
#[diagnostic::on_unimplemented(
    message = "a string cannot be the default of an argument of type `{Self}`",
    label = "not a `{Self}`",
    note = "write the default as a value of the argument's type, e.g. `default = 10` for a number"
)]
pub trait StringDefault: From<&'static str> {}

#[diagnostic::do_not_recommend]
impl<T: From<&'static str>> StringDefault for T {}

/// The default of an argument written as a string literal.
pub fn string_default<T: StringDefault>(text: &'static str) -> T {
    T::from(text)
}
