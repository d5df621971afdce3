//! YAML to JSON, the one mapping every reader of a skill's front matter
//! uses, so that a server's `frontmatter` and a client's reading of the
//! file compare equal when the file is the same.
//!
//! The mapping is YAML 1.2's core schema: a plain scalar is `null`, a
//! boolean, an integer (decimal, `0x`, `0o`) or a float when it reads as
//! one, else a string; a quoted or block scalar is always a string. Keys
//! are strings (a scalar key is taken as its text). A hostile document is
//! bounded: its text, its depth and its node count (aliases included, each
//! counted as the nodes it copies) are limited, so an alias bomb is refused
//! rather than expanded.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;
use yaml_rust2::{ScanError, Yaml};

/// The longest YAML text read, in bytes.
pub const MAX_LEN: usize = 64 * 1024;
/// The deepest nesting of sequences and mappings.
pub const MAX_DEPTH: usize = 32;
/// The most nodes a document may have, each alias counting the nodes it copies.
pub const MAX_NODES: usize = 10_000;

/// Why YAML text could not be turned into JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YamlError {
    /// Not valid YAML; the parser's message, with the line and column.
    Syntax(String),
    /// Past one of the limits ([`MAX_LEN`], [`MAX_DEPTH`], [`MAX_NODES`]).
    TooLarge(&'static str),
    /// A value JSON cannot hold: a float that is not finite, a tag this
    /// mapping does not read, more than one document.
    Unsupported(String),
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlError::Syntax(e) => write!(f, "invalid YAML: {e}"),
            YamlError::TooLarge(what) => write!(f, "the YAML is too large: {what}"),
            YamlError::Unsupported(what) => write!(f, "the YAML holds what JSON cannot: {what}"),
        }
    }
}

impl std::error::Error for YamlError {}

impl From<ScanError> for YamlError {
    fn from(e: ScanError) -> Self {
        YamlError::Syntax(e.to_string())
    }
}

/// The JSON value of a YAML document (`null` for an empty one).
///
/// ```
/// use mcp_runtime_rules::skill::yaml::to_json;
/// use serde_json::json;
///
/// let value = to_json("name: pdf\nversion: 2\nquoted: '2'\ntags: [a, b]\nempty:").unwrap();
/// assert_eq!(value, json!({"name": "pdf", "version": 2, "quoted": "2", "tags": ["a", "b"], "empty": null}));
/// assert!(to_json("a: [1, 2").is_err());
/// ```
pub fn to_json(text: &str) -> Result<Value, YamlError> {
    if text.len() > MAX_LEN {
        return Err(YamlError::TooLarge("more than 64 KiB"));
    }
    let mut parser = Parser::new_from_str(text);
    let mut builder = Builder::default();
    let mut documents = 0;
    loop {
        let (event, _) = parser.next_token()?;
        match event {
            Event::StreamEnd => break,
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => {}
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError::Unsupported("more than one document".into()));
                }
            }
            other => builder.event(other)?,
        }
    }
    Ok(builder.root.unwrap_or(Value::Null))
}

/// A sequence or mapping being read: its values so far, and for a mapping
/// the key waiting for its value.
enum Open {
    Sequence { anchor: usize, items: Vec<Value> },
    Mapping { anchor: usize, entries: Map<String, Value>, key: Option<String> },
}

#[derive(Default)]
struct Builder {
    open: Vec<Open>,
    root: Option<Value>,
    /// Anchored nodes, with the number of nodes each holds.
    anchors: HashMap<usize, (Value, usize)>,
    nodes: usize,
    /// The node count of each open collection when it started.
    starts: Vec<usize>,
}

impl Builder {
    fn count(&mut self, n: usize) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            return Err(YamlError::TooLarge("more than 10,000 nodes, aliases counted as what they copy"));
        }
        Ok(())
    }

    fn event(&mut self, event: Event) -> Result<(), YamlError> {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1)?;
                let value = scalar(text, style, tag.map(|t| (t.handle, t.suffix)))?;
                self.anchor(anchor, &value, 1);
                self.put(value)
            }
            Event::Alias(id) => {
                let Some((value, size)) = self.anchors.get(&id).cloned() else {
                    return Err(YamlError::Syntax(format!("an alias to an unknown anchor ({id})")));
                };
                self.count(size)?;
                self.put(value)
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                if let Some(tag) = tag {
                    return Err(YamlError::Unsupported(format!("the tag `{}{}`", tag.handle, tag.suffix)));
                }
                self.count(1)?;
                if self.open.len() >= MAX_DEPTH {
                    return Err(YamlError::TooLarge("nested more than 32 levels deep"));
                }
                self.starts.push(self.nodes);
                let is_sequence = matches!(event, Event::SequenceStart(..));
                self.open.push(if is_sequence {
                    Open::Sequence { anchor, items: Vec::new() }
                } else {
                    Open::Mapping { anchor, entries: Map::new(), key: None }
                });
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let start = self.starts.pop().unwrap_or(self.nodes);
                let size = self.nodes - start + 1;
                let (anchor, value) = match self.open.pop() {
                    Some(Open::Sequence { anchor, items }) => (anchor, Value::Array(items)),
                    Some(Open::Mapping { anchor, entries, .. }) => (anchor, Value::Object(entries)),
                    None => return Err(YamlError::Syntax("a collection closed that was not open".into())),
                };
                self.anchor(anchor, &value, size);
                self.put(value)
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => {
                Ok(())
            }
        }
    }

    fn anchor(&mut self, anchor: usize, value: &Value, size: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, (value.clone(), size));
        }
    }

    /// Places a finished value: an item, a key, a key's value, or the root.
    fn put(&mut self, value: Value) -> Result<(), YamlError> {
        match self.open.last_mut() {
            None => self.root = Some(value),
            Some(Open::Sequence { items, .. }) => items.push(value),
            Some(Open::Mapping { entries, key, .. }) => match key.take() {
                None => *key = Some(key_text(value)?),
                Some(k) => {
                    entries.insert(k, value);
                }
            },
        }
        Ok(())
    }
}

/// A mapping key as a JSON object key: a scalar's text.
fn key_text(value: Value) -> Result<String, YamlError> {
    match value {
        Value::String(s) => Ok(s),
        Value::Null => Ok("null".into()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Array(_) | Value::Object(_) => Err(YamlError::Unsupported("a mapping key that is not a scalar".into())),
    }
}

fn scalar(text: String, style: TScalarStyle, tag: Option<(String, String)>) -> Result<Value, YamlError> {
    if let Some((handle, suffix)) = tag {
        // `!!str` forces a string; any other tag is not part of the mapping.
        return match (handle.as_str(), suffix.as_str()) {
            ("!!", "str") | ("tag:yaml.org,2002:", "str") => Ok(Value::String(text)),
            _ => Err(YamlError::Unsupported(format!("the tag `{handle}{suffix}`"))),
        };
    }
    if style != TScalarStyle::Plain {
        return Ok(Value::String(text));
    }
    Ok(match Yaml::from_str(&text) {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(real) => {
            let float = Yaml::Real(real.clone()).as_f64().unwrap_or(f64::NAN);
            match Number::from_f64(float) {
                Some(n) => Value::Number(n),
                None => return Err(YamlError::Unsupported(format!("the float `{real}`, which JSON cannot hold"))),
            }
        }
        _ => Value::String(text),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn core_schema_scalars_read_as_json_reads_them() {
        let text = "a: 1\nb: -2\nc: 1.5\nd: true\ne: ~\nf: 0x10\ng: '007'\nh: \"true\"\ni: 2024-01-02\nj: |\n  line\n";
        assert_eq!(
            to_json(text).unwrap(),
            json!({"a": 1, "b": -2, "c": 1.5, "d": true, "e": null, "f": 16, "g": "007", "h": "true",
                   "i": "2024-01-02", "j": "line\n"})
        );
    }

    #[test]
    fn nested_values_and_aliases_copy_what_they_name() {
        let text = "base: &b {x: [1, 2]}\ncopy: *b\nmetadata:\n  author: me\n";
        assert_eq!(
            to_json(text).unwrap(),
            json!({"base": {"x": [1, 2]}, "copy": {"x": [1, 2]}, "metadata": {"author": "me"}})
        );
    }

    #[test]
    fn an_alias_bomb_is_refused_before_it_grows() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let prev = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        assert!(matches!(to_json(&text), Err(YamlError::TooLarge(_))));
    }

    #[test]
    fn depth_floats_tags_and_documents_are_bounded() {
        assert!(matches!(to_json(&"[".repeat(40)), Err(YamlError::TooLarge(_)) | Err(YamlError::Syntax(_))));
        assert!(matches!(to_json(&format!("{}1{}", "[".repeat(40), "]".repeat(40))), Err(YamlError::TooLarge(_))));
        assert!(matches!(to_json("a: .inf"), Err(YamlError::Unsupported(_))));
        assert!(matches!(to_json("a: !!binary aGk="), Err(YamlError::Unsupported(_))));
        assert_eq!(to_json("a: !!str 12").unwrap(), json!({"a": "12"}));
        assert!(matches!(to_json("a: 1\n---\nb: 2\n"), Err(YamlError::Unsupported(_))));
        assert!(matches!(to_json(&"a".repeat(MAX_LEN + 1)), Err(YamlError::TooLarge(_))));
    }
}
