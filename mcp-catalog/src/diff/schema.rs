//! Compares two JSON Schemas of one tool. An input schema must go on
//! accepting every value it accepted (narrowing it breaks callers); an
//! output schema must go on describing only values clients were promised
//! (widening it breaks readers).

use serde_json::{Map, Value};

use super::change::{Changes, Class};

/// Which side of the call a schema describes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// What clients send: narrowing breaks them.
    Input,
    /// What clients receive: widening breaks them.
    Output,
}

impl Direction {
    /// The class of a change that narrows (`true`) or widens (`false`) the
    /// values described.
    fn class(self, narrows: bool) -> Class {
        match (self, narrows) {
            (Direction::Input, true) | (Direction::Output, false) => Class::Breaking,
            _ => Class::Compatible,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Direction::Input => "argument",
            Direction::Output => "output field",
        }
    }
}

/// Keywords that describe without constraining.
const ANNOTATIONS: &[&str] = &["description", "title", "examples", "default", "$comment", "deprecated", "$schema"];
/// Lower bounds: raising one narrows.
const LOWER: &[&str] = &["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
/// Upper bounds: lowering one narrows.
const UPPER: &[&str] = &["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];
/// Keywords compared here; any other that changes is reported as breaking,
/// since its effect is not known.
const HANDLED: &[&str] = &["type", "enum", "const", "properties", "required", "additionalProperties", "items"];

fn place(at: &str) -> String {
    if at.is_empty() { String::new() } else { format!(" of `{at}`") }
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() { name.to_owned() } else { format!("{at}.{name}") }
}

/// Compares `old` with `new`; `at` is the dotted path of the value they
/// describe (`""` for the arguments or the result as a whole).
pub(crate) fn compare_schema(old: &Value, new: &Value, dir: Direction, at: &str, changes: &mut Changes<'_>) {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        if old != new {
            changes.push(Class::Breaking, format!("schema{} changed", place(at)));
        }
        return;
    };
    types(old, new, dir, at, changes);
    values(old, new, dir, at, changes);
    properties(old, new, dir, at, changes);
    match (old.get("items"), new.get("items")) {
        (Some(a), Some(b)) => compare_schema(a, b, dir, &format!("{}[]", if at.is_empty() { "" } else { at }), changes),
        (None, Some(_)) => changes.push(dir.class(true), format!("items{} constrained", place(at))),
        (Some(_), None) => changes.push(dir.class(false), format!("items{} unconstrained", place(at))),
        (None, None) => {}
    }
    for key in LOWER.iter().chain(UPPER) {
        let (a, b) = (old.get(*key).and_then(Value::as_f64), new.get(*key).and_then(Value::as_f64));
        if a == b {
            continue;
        }
        let lower = LOWER.contains(key);
        let narrows = match (a, b) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => (b > a) == lower,
            (None, None) => continue,
        };
        changes.push(
            dir.class(narrows),
            format!("`{key}`{} {} → {}", place(at), show(old.get(*key)), show(new.get(*key))),
        );
    }
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let k = key.as_str();
        if old.get(k) == new.get(k) || HANDLED.contains(&k) || LOWER.contains(&k) || UPPER.contains(&k) {
            continue;
        }
        if ANNOTATIONS.contains(&k) {
            changes.push(Class::Compatible, format!("`{k}`{} changed", place(at)));
        } else {
            changes.push(Class::Breaking, format!("`{k}`{} changed", place(at)));
        }
    }
}

fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "none".to_owned(), Value::to_string)
}

/// Type names, with `integer` inside `number`; `None` when unconstrained.
fn type_set(s: &Map<String, Value>) -> Option<Vec<String>> {
    match s.get("type")? {
        Value::String(t) => Some(vec![t.clone()]),
        Value::Array(list) => Some(list.iter().filter_map(|t| t.as_str().map(str::to_owned)).collect()),
        _ => None,
    }
}

fn covers(set: &Option<Vec<String>>, t: &str) -> bool {
    match set {
        None => true,
        Some(set) => set.iter().any(|s| s == t || (s == "number" && t == "integer")),
    }
}

fn types(old: &Map<String, Value>, new: &Map<String, Value>, dir: Direction, at: &str, changes: &mut Changes<'_>) {
    let (a, b) = (type_set(old), type_set(new));
    if a == b {
        return;
    }
    // Unconstrained means every type; a constraint added narrows.
    let narrowed = match &a {
        None => true,
        Some(a) => a.iter().any(|t| !covers(&b, t)),
    };
    let widened = match &b {
        None => true,
        Some(b) => b.iter().any(|t| !covers(&a, t)),
    };
    let shown = |s: &Option<Vec<String>>| s.as_ref().map_or_else(|| "any".to_owned(), |s| s.join(" | "));
    let what = format!("type{} {} → {}", place(at), shown(&a), shown(&b));
    if narrowed {
        changes.push(dir.class(true), format!("{what} (narrowed)"));
    }
    if widened && !narrowed {
        changes.push(dir.class(false), format!("{what} (widened)"));
    } else if widened {
        changes.push(dir.class(false), format!("type{} also accepts more", place(at)));
    }
}

/// `enum` and `const` as a set of allowed values; `None` when unconstrained.
fn value_set(s: &Map<String, Value>) -> Option<Vec<Value>> {
    if let Some(c) = s.get("const") {
        return Some(vec![c.clone()]);
    }
    s.get("enum").and_then(Value::as_array).cloned()
}

fn values(old: &Map<String, Value>, new: &Map<String, Value>, dir: Direction, at: &str, changes: &mut Changes<'_>) {
    let (a, b) = (value_set(old), value_set(new));
    match (&a, &b) {
        (Some(a), Some(b)) => {
            for v in a.iter().filter(|v| !b.contains(v)) {
                changes.push(dir.class(true), format!("enum value {v}{} removed", place(at)));
            }
            for v in b.iter().filter(|v| !a.contains(v)) {
                changes.push(dir.class(false), format!("enum value {v}{} added", place(at)));
            }
        }
        (None, Some(_)) => changes.push(dir.class(true), format!("values{} restricted to an enum", place(at))),
        (Some(_), None) => changes.push(dir.class(false), format!("enum{} lifted", place(at))),
        (None, None) => {}
    }
}

fn required(s: &Map<String, Value>) -> Vec<&str> {
    s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

fn properties(old: &Map<String, Value>, new: &Map<String, Value>, dir: Direction, at: &str, changes: &mut Changes<'_>) {
    let empty = Map::new();
    let a = old.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let b = new.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let (ra, rb) = (required(old), required(new));
    let noun = dir.noun();
    for name in a.keys().filter(|k| !b.contains_key(*k)) {
        changes.push(Class::Breaking, format!("{noun} `{}` removed", join(at, name)));
    }
    let closed_before = old.get("additionalProperties") == Some(&Value::Bool(false));
    for (name, schema) in b {
        let path = join(at, name);
        let Some(before) = a.get(name) else {
            let is_required = rb.contains(&name.as_str());
            let (class, what) = match dir {
                Direction::Input if is_required => (Class::Breaking, format!("{noun} `{path}` added as required")),
                Direction::Input => (Class::Compatible, format!("optional {noun} `{path}` added")),
                // A client that validates against a closed object rejects a new field.
                Direction::Output if closed_before => {
                    (Class::Breaking, format!("{noun} `{path}` added to an object that allowed no others"))
                }
                Direction::Output => (Class::Compatible, format!("{noun} `{path}` added")),
            };
            changes.push(class, what);
            continue;
        };
        let (was, is) = (ra.contains(&name.as_str()), rb.contains(&name.as_str()));
        if was != is {
            // Required in an input narrows what callers may send; optional
            // in an output widens what readers may get.
            let class = dir.class(is);
            let what = match (dir, is) {
                (Direction::Input, true) => format!("{noun} `{path}` made required"),
                (Direction::Input, false) => format!("{noun} `{path}` made optional"),
                (Direction::Output, true) => format!("{noun} `{path}` now always present"),
                (Direction::Output, false) => format!("{noun} `{path}` may now be absent"),
            };
            changes.push(class, what);
        }
        compare_schema(before, schema, dir, &path, changes);
    }
    let extra = |s: &Map<String, Value>| s.get("additionalProperties").cloned();
    let (xa, xb) = (extra(old), extra(new));
    if xa != xb {
        let what = format!("additionalProperties{} {} → {}", place(at), show(xa.as_ref()), show(xb.as_ref()));
        let open = |x: &Option<Value>| x.is_none() || x == &Some(Value::Bool(true));
        let closed = |x: &Option<Value>| x == &Some(Value::Bool(false));
        if open(&xa) && open(&xb) {
            // `true` and absent mean the same.
        } else if closed(&xb) || open(&xa) {
            // Fewer extra members allowed than before.
            changes.push(dir.class(true), what);
        } else if closed(&xa) || open(&xb) {
            changes.push(dir.class(false), what);
        } else {
            changes.push(Class::Breaking, what);
        }
    }
}
