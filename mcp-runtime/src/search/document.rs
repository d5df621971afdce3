//! What search reads of a tool: its name, title, description, and the
//! names and descriptions of its parameters, bounded so that one enormous
//! definition (a remote's, say) cannot make the index large.

use serde_json::{Map, Value};

use crate::protocol::Tool;

/// The text read of any one field (a description, say); the rest is left
/// out. Long enough for every real description seen.
const FIELD_MAX: usize = 8 * 1024;
/// Parameters read per tool, nested ones included.
const PARAMETERS_MAX: usize = 256;
/// How deep nested objects and arrays are followed.
const DEPTH_MAX: usize = 4;

/// A tool's text, by field.
pub(super) struct Document {
    pub(super) name: String,
    pub(super) title: String,
    pub(super) description: String,
    /// Every parameter's name and description, one line each.
    pub(super) parameters: String,
}

impl Document {
    pub(super) fn of(tool: &Tool) -> Self {
        let mut parameters = String::new();
        let mut budget = PARAMETERS_MAX;
        parameters_of(&tool.input_schema, 0, &mut budget, &mut parameters);
        Document {
            name: bounded(&tool.name).to_owned(),
            title: bounded(tool.title.as_deref().unwrap_or_default()).to_owned(),
            description: bounded(tool.description.as_deref().unwrap_or_default()).to_owned(),
            parameters,
        }
    }
}

/// Appends the name and description of each property of `schema` (and of
/// those nested in it) to `out`.
fn parameters_of(schema: &Map<String, Value>, depth: usize, budget: &mut usize, out: &mut String) {
    if depth > DEPTH_MAX {
        return;
    }
    if let Some(Value::Object(items)) = schema.get("items") {
        parameters_of(items, depth + 1, budget, out);
    }
    let Some(Value::Object(properties)) = schema.get("properties") else { return };
    for (name, property) in properties {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        out.push_str(bounded(name));
        if let Some(Value::String(description)) = property.get("description") {
            out.push(' ');
            out.push_str(bounded(description));
        }
        out.push('\n');
        if let Value::Object(property) = property {
            parameters_of(property, depth + 1, budget, out);
        }
    }
}

/// `text`, cut at [`FIELD_MAX`] on a character boundary.
fn bounded(text: &str) -> &str {
    if text.len() <= FIELD_MAX {
        return text;
    }
    let mut end = FIELD_MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
