//! Prompt arguments (strings parsed into the parameters' types) and prompt
//! definitions.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::text::TextArg;
use crate::handler::call::PromptCall;
use crate::protocol::{ErrorObject, Icon, Prompt, PromptArgument};

/// What an argument of a prompt must implement; the macro checks each one
/// against this trait, spanned on its type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument",
    label = "must implement `Deserialize`",
    note = "prompt arguments arrive as strings and are parsed into the parameter's type: use `String`, a number, `bool`, an enum deriving `serde::Deserialize`, or `Option` of these; lists are read from JSON or comma-separated text, structs from JSON text",
    note = "a context parameter (`RequestContext`, `State<T>`, ...) is never an argument; mark other extractors with `#[ctx]`"
)]
pub trait PromptArgumentValue: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> PromptArgumentValue for T {}

/// The slot of a prompt argument of type `T`.
pub fn prompt_arg<T: PromptArgumentValue>() -> TextArg<T> {
    TextArg::new()
}

/// The arguments of one `prompts/get`, taken parameter by parameter.
#[derive(Debug)]
pub struct PromptArgs {
    prompt: String,
    map: Map<String, Value>,
    errors: Vec<String>,
}

impl PromptArgs {
    /// The call's arguments.
    pub fn new(call: &PromptCall) -> Self {
        PromptArgs { prompt: call.name().to_owned(), map: call.arguments().clone(), errors: Vec::new() }
    }

    /// Takes the argument `name`; on failure the problem is recorded and
    /// `None` returned.
    pub fn take<T>(&mut self, name: &str, slot: TextArg<T>, default: Option<fn() -> T>) -> Option<T> {
        match (self.map.remove(name), default) {
            (Some(Value::String(text)), _) => match slot.parse(&text) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.errors.push(format!("`{name}`: {e}"));
                    None
                }
            },
            (None | Some(Value::Null), Some(default)) => Some(default()),
            (None | Some(Value::Null), None) => {
                let value = slot.absent();
                if value.is_none() {
                    self.errors.push(format!("missing required argument `{name}`"));
                }
                value
            }
            (Some(_), _) => {
                self.errors.push(format!("`{name}` must be a string"));
                None
            }
        }
    }

    /// `-32602` naming every recorded problem.
    pub fn into_error(self) -> ErrorObject {
        ErrorObject::invalid_params(format!(
            "Invalid arguments for prompt `{}`: {}",
            self.prompt,
            self.errors.join("; ")
        ))
    }
}

/// Builds a prompt's definition.
pub struct PromptDefinition(Prompt);

impl PromptDefinition {
    /// A prompt named `name`.
    pub fn new(name: &'static str) -> Self {
        PromptDefinition(Prompt::new(name))
    }

    /// Sets the title.
    pub fn title(mut self, title: &'static str) -> Self {
        self.0.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: Option<String>) -> Self {
        self.0.description = description;
        self
    }

    /// Adds an argument read through `slot`: required unless it has a
    /// default or its type takes `null`.
    pub fn argument<T>(
        mut self,
        name: &'static str,
        slot: TextArg<T>,
        has_default: bool,
        title: Option<&'static str>,
        description: Option<String>,
    ) -> Self {
        let mut arg = PromptArgument::new(name, !has_default && !slot.accepts_null());
        arg.title = title.map(Into::into);
        arg.description = description;
        self.0.arguments.push(arg);
        self
    }

    /// Sets the icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.0.icons = icons;
        self
    }

    /// Sets `_meta`.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.0.meta = Some(meta);
        self
    }

    /// The definition.
    pub fn build(self) -> Prompt {
        self.0
    }
}
