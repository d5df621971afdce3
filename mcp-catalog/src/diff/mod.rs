//! Compares two catalog snapshots and classifies every change: breaking
//! for clients built against the old catalog, or compatible with them.
//!
//! ```
//! use mcp_catalog::diff::{Class, diff};
//! use serde_json::json;
//!
//! let old = json!({"tools": [{"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}]});
//! let new = json!({"tools": [{"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}]});
//! let changes = diff(&old, &new);
//! assert!(changes.is_breaking());
//! assert_eq!(changes.changes[0].class, Class::Breaking);
//! assert_eq!(changes.changes[0].what, "argument `b` added as required");
//! ```

mod change;
mod schema;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use self::change::Changes;
pub use self::change::{CatalogDiff, Change, Class};
use self::schema::{Direction, compare_schema};

/// The items of a snapshot's list, by key, in snapshot order.
fn keyed<'a>(snapshot: &'a Value, list: &str, key: &str) -> Vec<(String, &'a Map<String, Value>)> {
    let items = snapshot.get(list).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    items.iter().filter_map(|i| Some((i.get(key)?.as_str()?.to_owned(), i.as_object()?))).collect()
}

/// An item's key with its old and its new definition, either missing.
type Pair<'a> = (String, Option<&'a Map<String, Value>>, Option<&'a Map<String, Value>>);

/// Pairs old and new items by key: removed ones first, then each new item
/// with its old counterpart, if any.
fn paired<'a>(old: &[(String, &'a Map<String, Value>)], new: &[(String, &'a Map<String, Value>)]) -> Vec<Pair<'a>> {
    let old_index: BTreeMap<&str, &Map<String, Value>> = old.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let new_index: BTreeMap<&str, &Map<String, Value>> = new.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let removed =
        old.iter().filter(|(k, _)| !new_index.contains_key(k.as_str())).map(|(k, v)| (k.clone(), Some(*v), None));
    let kept = new.iter().map(|(k, v)| (k.clone(), old_index.get(k.as_str()).copied(), Some(*v)));
    removed.chain(kept).collect()
}

/// Classifies every change from `old` to `new` (two catalog snapshots).
pub fn diff(old: &Value, new: &Value) -> CatalogDiff {
    let mut out = Vec::new();
    server(old.get("discover"), new.get("discover"), &mut Changes { subject: "server".into(), out: &mut out });
    for (name, before, after) in paired(&keyed(old, "tools", "name"), &keyed(new, "tools", "name")) {
        let mut changes = Changes { subject: format!("tool `{name}`"), out: &mut out };
        match (before, after) {
            (Some(_), None) => changes.push(Class::Breaking, "removed"),
            (None, Some(_)) => changes.push(Class::Compatible, "added"),
            (Some(b), Some(a)) => tool(b, a, &mut changes),
            (None, None) => {}
        }
    }
    for (name, before, after) in paired(&keyed(old, "prompts", "name"), &keyed(new, "prompts", "name")) {
        let mut changes = Changes { subject: format!("prompt `{name}`"), out: &mut out };
        match (before, after) {
            (Some(_), None) => changes.push(Class::Breaking, "removed"),
            (None, Some(_)) => changes.push(Class::Compatible, "added"),
            (Some(b), Some(a)) => prompt(b, a, &mut changes),
            (None, None) => {}
        }
    }
    for (list, key, kind) in
        [("resources", "uri", "resource"), ("resourceTemplates", "uriTemplate", "resource template")]
    {
        for (uri, before, after) in paired(&keyed(old, list, key), &keyed(new, list, key)) {
            let mut changes = Changes { subject: format!("{kind} `{uri}`"), out: &mut out };
            match (before, after) {
                (Some(_), None) => changes.push(Class::Breaking, "removed"),
                (None, Some(_)) => changes.push(Class::Compatible, "added"),
                (Some(b), Some(a)) => resource(b, a, key, &mut changes),
                (None, None) => {}
            }
        }
    }
    CatalogDiff { changes: out }
}

/// Fields whose change a client cannot notice in its behaviour.
const WORDING: &[&str] = &["title", "description", "icons", "_meta", "name", "size", "annotations"];

fn other_fields(old: &Map<String, Value>, new: &Map<String, Value>, handled: &[&str], changes: &mut Changes<'_>) {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys.into_iter().filter(|k| !handled.contains(&k.as_str())) {
        if old.get(key) == new.get(key) {
            continue;
        }
        let class = if WORDING.contains(&key.as_str()) { Class::Compatible } else { Class::Breaking };
        let what = match (old.contains_key(key), new.contains_key(key)) {
            (true, false) => format!("`{key}` removed"),
            (false, true) => format!("`{key}` added"),
            _ => format!("`{key}` changed"),
        };
        changes.push(class, what);
    }
}

fn tool(old: &Map<String, Value>, new: &Map<String, Value>, changes: &mut Changes<'_>) {
    let empty = Value::Object(Map::new());
    compare_schema(
        old.get("inputSchema").unwrap_or(&empty),
        new.get("inputSchema").unwrap_or(&empty),
        Direction::Input,
        "",
        changes,
    );
    match (old.get("outputSchema"), new.get("outputSchema")) {
        (Some(_), None) => {
            changes.push(Class::Breaking, "outputSchema removed (structured results no longer promised)")
        }
        (None, Some(_)) => changes.push(Class::Compatible, "outputSchema added"),
        (Some(a), Some(b)) => compare_schema(a, b, Direction::Output, "", changes),
        (None, None) => {}
    }
    annotations(old.get("annotations"), new.get("annotations"), changes);
    scopes(old, new, changes);
    other_fields(old, new, &["name", "inputSchema", "outputSchema", "annotations", "scopes"], changes);
}

/// A hint and the value the protocol gives it when absent, with the value
/// that is the more dangerous one.
const HINTS: &[(&str, bool, bool)] = &[
    ("readOnlyHint", false, false),
    ("destructiveHint", true, true),
    ("idempotentHint", false, false),
    ("openWorldHint", true, true),
];

fn annotations(old: Option<&Value>, new: Option<&Value>, changes: &mut Changes<'_>) {
    for &(hint, default, dangerous) in HINTS {
        let before = old.and_then(|a| a.get(hint)).and_then(Value::as_bool).unwrap_or(default);
        let after = new.and_then(|a| a.get(hint)).and_then(Value::as_bool).unwrap_or(default);
        if before == after {
            continue;
        }
        let class = if after == dangerous { Class::Breaking } else { Class::Compatible };
        let how = if class == Class::Breaking { "more dangerous" } else { "safer" };
        changes.push(class, format!("annotation {hint} {before} → {after} ({how})"));
    }
    let title = |a: Option<&Value>| a.and_then(|a| a.get("title")).cloned();
    if title(old) != title(new) {
        changes.push(Class::Compatible, "annotation title changed");
    }
}

fn prompt(old: &Map<String, Value>, new: &Map<String, Value>, changes: &mut Changes<'_>) {
    let arguments = |p: &Map<String, Value>| -> Vec<(String, bool, Option<Value>)> {
        let list = p.get("arguments").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        list.iter()
            .filter_map(|a| {
                let name = a.get("name")?.as_str()?.to_owned();
                let required = a.get("required").and_then(Value::as_bool).unwrap_or(false);
                Some((name, required, a.get("description").cloned()))
            })
            .collect()
    };
    let (before, after) = (arguments(old), arguments(new));
    for (name, _, _) in before.iter().filter(|(n, _, _)| !after.iter().any(|(m, _, _)| m == n)) {
        changes.push(Class::Breaking, format!("argument `{name}` removed"));
    }
    for (name, required, description) in &after {
        match before.iter().find(|(n, _, _)| n == name) {
            None if *required => changes.push(Class::Breaking, format!("argument `{name}` added as required")),
            None => changes.push(Class::Compatible, format!("optional argument `{name}` added")),
            Some((_, was, _)) if !was && *required => {
                changes.push(Class::Breaking, format!("argument `{name}` made required"));
            }
            Some((_, was, _)) if *was && !required => {
                changes.push(Class::Compatible, format!("argument `{name}` made optional"));
            }
            Some((_, _, old_description)) if old_description != description => {
                changes.push(Class::Compatible, format!("description of argument `{name}` changed"));
            }
            Some(_) => {}
        }
    }
    scopes(old, new, changes);
    other_fields(old, new, &["name", "arguments", "scopes"], changes);
}

fn resource(old: &Map<String, Value>, new: &Map<String, Value>, key: &str, changes: &mut Changes<'_>) {
    scopes(old, new, changes);
    other_fields(old, new, &[key, "scopes"], changes);
}

/// The scopes an entry requires (the snapshot's `scopes`): one added takes
/// the entry away from callers whose tokens lack it; one removed opens it
/// to more callers.
fn scopes(old: &Map<String, Value>, new: &Map<String, Value>, changes: &mut Changes<'_>) {
    let list = |item: &Map<String, Value>| -> Vec<String> {
        let scopes = item.get("scopes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        scopes.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()
    };
    let (before, after) = (list(old), list(new));
    for scope in after.iter().filter(|s| !before.contains(s)) {
        changes.push(Class::Breaking, format!("scope `{scope}` now required (callers without it lose access)"));
    }
    for scope in before.iter().filter(|s| !after.contains(s)) {
        changes.push(Class::Compatible, format!("scope `{scope}` no longer required"));
    }
}

fn server(old: Option<&Value>, new: Option<&Value>, changes: &mut Changes<'_>) {
    let versions = |d: Option<&Value>| -> Vec<String> {
        d.and_then(|d| d.get("supportedVersions"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let (before, after) = (versions(old), versions(new));
    for v in before.iter().filter(|v| !after.contains(v)) {
        changes.push(Class::Breaking, format!("protocol version {v} no longer supported"));
    }
    for v in after.iter().filter(|v| !before.contains(v)) {
        changes.push(Class::Compatible, format!("protocol version {v} now supported"));
    }
    let empty = Map::new();
    let capabilities = |d: Option<&Value>| {
        d.and_then(|d| d.get("capabilities")).and_then(Value::as_object).cloned().unwrap_or_default()
    };
    let (before, after) = (capabilities(old), capabilities(new));
    for (name, value) in &before {
        match after.get(name) {
            None => changes.push(Class::Breaking, format!("capability `{name}` removed")),
            Some(now) if now != value => {
                let (was, is) = (value.as_object().unwrap_or(&empty), now.as_object().unwrap_or(&empty));
                for (flag, on) in was {
                    if on == &Value::Bool(true) && is.get(flag) != Some(&Value::Bool(true)) {
                        changes.push(Class::Breaking, format!("capability `{name}.{flag}` turned off"));
                    }
                }
                for (flag, on) in is {
                    if on == &Value::Bool(true) && was.get(flag) != Some(&Value::Bool(true)) {
                        changes.push(Class::Compatible, format!("capability `{name}.{flag}` turned on"));
                    }
                }
            }
            Some(_) => {}
        }
    }
    for name in after.keys().filter(|k| !before.contains_key(*k)) {
        changes.push(Class::Compatible, format!("capability `{name}` added"));
    }
    let instructions = |d: Option<&Value>| d.and_then(|d| d.get("instructions")).cloned();
    if instructions(old) != instructions(new) {
        changes.push(Class::Compatible, "instructions changed");
    }
}

#[cfg(test)]
mod tests;
