//! URI template variables (strings parsed into the parameters' types) and
//! resource definitions.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::text::TextArg;
use crate::handler::call::ResourceCall;
use crate::protocol::{Annotations, ErrorObject, Icon, Resource, ResourceTemplate};
use crate::registry::entry::ResourceDefinition;

/// What a URI template variable's parameter must implement; the macro checks
/// each one against this trait, spanned on its type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a URI template variable",
    label = "must implement `Deserialize`",
    note = "template variables are matched as strings and parsed into the parameter's type: use `String`, a number, `bool` or an enum deriving `serde::Deserialize`, or a `Vec` of these for a list (`a,b`)"
)]
pub trait UriVariableValue: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> UriVariableValue for T {}

/// The slot of a template variable of type `T`.
pub fn uri_var<T: UriVariableValue>() -> TextArg<T> {
    TextArg::new()
}

/// The variables of one matched URI, taken parameter by parameter.
#[derive(Debug)]
pub struct UriVars {
    uri: String,
    map: Map<String, Value>,
    errors: Vec<String>,
}

impl UriVars {
    /// The call's variables.
    pub fn new(call: &ResourceCall) -> Self {
        UriVars { uri: call.uri().to_owned(), map: call.variables().clone(), errors: Vec::new() }
    }

    /// Takes the variable `name`; on failure the problem is recorded and
    /// `None` returned.
    pub fn take<T>(&mut self, name: &str, slot: TextArg<T>) -> Option<T> {
        let parsed = match self.map.remove(name) {
            Some(Value::String(text)) => slot.parse(&text),
            _ => slot.absent().ok_or_else(|| "no value".to_owned()),
        };
        match parsed {
            Ok(v) => Some(v),
            Err(e) => {
                self.errors.push(format!("`{name}`: {e}"));
                None
            }
        }
    }

    /// A URI whose variables do not fit the parameters names no resource:
    /// `-32602` with `data.uri`, saying why.
    pub fn into_error(self) -> ErrorObject {
        ErrorObject::invalid_params(format!("Resource not found: {} ({})", self.uri, self.errors.join("; ")))
            .with_data(json!({ "uri": self.uri }))
    }
}

/// Sets a field that fixed resources and templates share.
macro_rules! set_both {
    ($self:ident, $field:ident, $value:expr) => {{
        let value = $value;
        match &mut $self.0 {
            ResourceDefinition::Fixed(r) => r.$field = value,
            ResourceDefinition::Template(t) => t.$field = value,
        }
        $self
    }};
}

/// Builds a resource's or a resource template's definition.
pub struct ResourceDefinitionBuilder(ResourceDefinition);

impl ResourceDefinitionBuilder {
    /// A resource at a fixed URI.
    pub fn fixed(uri: &'static str, name: &'static str) -> Self {
        ResourceDefinitionBuilder(ResourceDefinition::Fixed(Resource::new(uri, name)))
    }

    /// A resource template.
    pub fn template(uri_template: &'static str, name: &'static str) -> Self {
        ResourceDefinitionBuilder(ResourceDefinition::Template(ResourceTemplate::new(uri_template, name)))
    }

    /// Sets the title.
    pub fn title(mut self, title: &'static str) -> Self {
        set_both!(self, title, Some(title.into()))
    }

    /// Sets the description.
    pub fn description(mut self, description: Option<String>) -> Self {
        set_both!(self, description, description)
    }

    /// Sets the MIME type.
    pub fn mime_type(mut self, mime_type: &'static str) -> Self {
        set_both!(self, mime_type, Some(mime_type.into()))
    }

    /// Sets the annotations.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        set_both!(self, annotations, Some(annotations))
    }

    /// Sets the size (fixed resources only; the macro rejects it on templates).
    pub fn size(mut self, size: u64) -> Self {
        if let ResourceDefinition::Fixed(r) = &mut self.0 {
            r.size = Some(size);
        }
        self
    }

    /// Sets the icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        set_both!(self, icons, icons)
    }

    /// Sets `_meta`.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        set_both!(self, meta, Some(meta))
    }

    /// The definition.
    pub fn build(self) -> ResourceDefinition {
        self.0
    }
}
