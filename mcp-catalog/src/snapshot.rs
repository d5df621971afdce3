//! Reading and writing catalog snapshots in their one stable form: object
//! members sorted by name, two-space indentation, a final newline, so a
//! snapshot changes only when what clients see changes.

use std::path::Path;

use serde_json::{Map, Value};

/// `value` with the members of every object sorted by name, whatever order
/// serde_json keeps them in.
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect::<Map<_, _>>())
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The snapshot text of `value`: sorted, pretty, newline-terminated.
pub fn to_text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(&sorted(value)).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a snapshot file.
pub fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}
