//! The checks a rule can name, each over a whole schema or a tool name.

use serde_json::{Map, Value};

use super::rule::{Check, Rule, Violation};
use super::walk::{self, Node};

fn violation(rule: &'static Rule, at: &str, reason: String) -> Violation {
    Violation { rule, at: at.to_owned(), reason }
}

/// Whether `name` is ASCII letters and digits plus `extra`, within `max`
/// characters, starting with a letter or `_` when asked; why not otherwise.
fn name_problem(name: &str, extra: &str, max: usize, first_letter_or_underscore: bool) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".into());
    }
    let length = name.chars().count();
    if length > max {
        return Some(format!("`{name}` is {length} characters long, more than {max}"));
    }
    if let Some(bad) = name.chars().find(|c| !c.is_ascii_alphanumeric() && !extra.contains(*c)) {
        return Some(format!("`{name}` contains `{bad}`; allowed are letters, digits and `{extra}`"));
    }
    if first_letter_or_underscore && !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return Some(format!("`{name}` must start with a letter or an underscore"));
    }
    None
}

/// The tool-name rule applied to `name`; other rules say nothing here.
pub(super) fn tool_name(rule: &'static Rule, name: &str) -> Option<Violation> {
    let Check::ToolName { extra_chars, max_length, first_letter_or_underscore } = &rule.check else {
        return None;
    };
    name_problem(name, extra_chars, *max_length, *first_letter_or_underscore).map(|reason| violation(rule, "", reason))
}

/// The rule applied to a whole schema; tool-name rules say nothing here.
pub(super) fn schema(rule: &'static Rule, root: &Value) -> Vec<Violation> {
    let mut found = Vec::new();
    match &rule.check {
        Check::ToolName { .. } => {}
        Check::RootType { r#type } => {
            let given = root.as_object().map(walk::types).unwrap_or_default();
            if given != [r#type.as_str()] {
                found.push(violation(rule, "", format!("the root type is {given:?}, not \"{type}\"", type = r#type)));
            }
        }
        Check::RootForbids { keywords } => {
            for k in keywords.iter().filter(|k| root.get(k.as_str()).is_some()) {
                found.push(violation(rule, "", format!("the root uses `{k}`")));
            }
        }
        Check::MaxProperties { max } => {
            let mut count = 0;
            walk::visit(root, &mut |n| count += properties(n.schema).map_or(0, Map::len));
            if count > *max {
                found.push(violation(rule, "", format!("{count} properties in all, more than {max}")));
            }
        }
        Check::MaxEnumValues { max } => {
            let mut count = 0;
            walk::visit(root, &mut |n| count += n.schema.get("enum").and_then(Value::as_array).map_or(0, Vec::len));
            if count > *max {
                found.push(violation(rule, "", format!("{count} enum values in all, more than {max}")));
            }
        }
        _ => walk::visit(root, &mut |n| node(rule, n, &mut found)),
    }
    found
}

fn properties(schema: &Map<String, Value>) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// The rules that look at one node at a time.
fn node(rule: &'static Rule, n: &Node<'_>, found: &mut Vec<Violation>) {
    let s = n.schema;
    let mut push = |reason: String| found.push(violation(rule, &n.at, reason));
    match &rule.check {
        Check::AllRequired => {
            let required: Vec<&str> =
                s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
            let missing: Vec<&str> = properties(s)
                .into_iter()
                .flatten()
                .map(|(k, _)| k.as_str())
                .filter(|k| !required.contains(k))
                .collect();
            if !missing.is_empty() {
                push(format!("properties not listed in `required`: {}", missing.join(", ")));
            }
        }
        Check::ClosedObjects => {
            if walk::is_object(s) && s.get("additionalProperties") != Some(&Value::Bool(false)) {
                push(match s.get("additionalProperties") {
                    None => "an object without `additionalProperties: false`".into(),
                    Some(other) => format!("an object with `additionalProperties: {other}`"),
                });
            }
        }
        Check::ForbiddenKeywords { keywords } => {
            for k in keywords.iter().filter(|k| s.contains_key(k.as_str())) {
                push(format!("uses `{k}`"));
            }
        }
        Check::AllowedKeywords { keywords } => {
            for k in s.keys().filter(|k| !keywords.contains(k)) {
                push(format!("uses `{k}`, which is not supported"));
            }
        }
        Check::SingleType => {
            if let Some(Value::Array(list)) = s.get("type") {
                push(format!("`type` is a list {}", Value::Array(list.clone())));
            }
        }
        Check::AllowedTypes { types } => {
            for t in walk::types(s).into_iter().filter(|t| !types.iter().any(|a| a == t)) {
                push(format!("type `{t}` is not supported"));
            }
        }
        Check::AllowedFormats { formats } => {
            if let Some(f) = s.get("format").and_then(Value::as_str)
                && !formats.iter().any(|a| a == f)
            {
                push(format!("format `{f}` is not supported"));
            }
        }
        Check::PropertyNames { extra_chars, max_length, first_letter_or_underscore } => {
            for name in properties(s).into_iter().flatten().map(|(k, _)| k) {
                if let Some(reason) = name_problem(name, extra_chars, *max_length, *first_letter_or_underscore) {
                    push(format!("property {reason}"));
                }
            }
        }
        Check::MaxDepth { max } => {
            if walk::is_object(s) && n.depth == max + 1 {
                push(format!("objects nested {} levels deep, more than {max}", n.depth));
            }
        }
        Check::ToolName { .. }
        | Check::RootType { .. }
        | Check::RootForbids { .. }
        | Check::MaxProperties { .. }
        | Check::MaxEnumValues { .. } => {}
    }
}
