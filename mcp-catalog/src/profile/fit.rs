//! Rewrites an input schema so that a provider's rules accept it, where
//! the rewrite keeps the tool's meaning: an optional property becomes a
//! required one that may be `null` (and the server drops such a `null`
//! before the handler sees it, see [`NullPlan`]), and an object without
//! `additionalProperties` is closed. What cannot be rewritten so is refused
//! with the rule it breaks.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value, json};

use super::walk::{escape, is_object};
use super::{Check, Profile, check_schema};

/// An input schema rewritten for a profile, with what the server must undo.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// The schema clients are shown.
    pub schema: Map<String, Value>,
    /// The properties that became `required` and `null`able, whose `null`
    /// the server removes from the arguments before the handler reads them.
    pub nulls: NullPlan,
}

/// Why an input schema cannot be made to fit a profile: each reason with
/// its place, rule and citation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitError {
    /// One line per problem.
    pub reasons: Vec<String>,
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reasons.join("; "))
    }
}

impl std::error::Error for FitError {}

/// Where the `null`s stand that a fitted schema allows and the original
/// did not ask for: the properties that were optional, object by object.
///
/// ```
/// use mcp_catalog::profile::{Profile, fit_input_schema};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q"]});
/// let fitted = fit_input_schema(Profile::OpenAi, schema.as_object().unwrap()).unwrap();
/// assert_eq!(fitted.schema["required"], json!(["q", "limit"]));
/// assert_eq!(fitted.schema["properties"]["limit"]["type"], json!(["integer", "null"]));
///
/// let mut args = json!({"q": "rust", "limit": null});
/// fitted.nulls.strip(&mut args);
/// assert_eq!(args, json!({"q": "rust"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NullPlan {
    /// Properties of this object whose `null` means "absent".
    optional: Vec<String>,
    /// Plans for the values of this object's properties.
    properties: BTreeMap<String, NullPlan>,
    /// The plan for each element, when the value is an array.
    items: Option<Box<NullPlan>>,
}

impl NullPlan {
    /// Whether the plan removes nothing (the schema had no optional property).
    pub fn is_empty(&self) -> bool {
        self.optional.is_empty() && self.properties.is_empty() && self.items.is_none()
    }

    /// Removes, from arguments shaped like the schema, each `null` that
    /// stands for an optional property left out.
    pub fn strip(&self, value: &mut Value) {
        match value {
            Value::Object(map) => {
                for name in &self.optional {
                    if map.get(name).is_some_and(Value::is_null) {
                        map.remove(name);
                    }
                }
                for (name, plan) in &self.properties {
                    if let Some(v) = map.get_mut(name) {
                        plan.strip(v);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(plan) = &self.items {
                    items.iter_mut().for_each(|item| plan.strip(item));
                }
            }
            _ => {}
        }
    }

    fn merge(&mut self, other: NullPlan) {
        for name in other.optional {
            if !self.optional.contains(&name) {
                self.optional.push(name);
            }
        }
        for (name, plan) in other.properties {
            self.properties.entry(name).or_default().merge(plan);
        }
        if let Some(items) = other.items {
            self.items.get_or_insert_with(Default::default).merge(*items);
        }
    }
}

/// What the profile's rules let the fitter do.
#[derive(Clone, Copy)]
struct Fixes {
    require_all: bool,
    close_objects: bool,
}

/// Rewrites `schema` for `profile` (see the module docs), or says why it
/// cannot be: the rules that no rewrite can satisfy, with their citations.
/// A profile whose rules need no rewrite returns the schema as it is when
/// it already passes.
pub fn fit_input_schema(profile: Profile, schema: &Map<String, Value>) -> Result<Fitted, FitError> {
    let fixes = Fixes {
        require_all: profile.rules().any(|r| matches!(r.check, Check::AllRequired)),
        close_objects: profile.rules().any(|r| matches!(r.check, Check::ClosedObjects)),
    };
    let mut fitted = schema.clone();
    let mut reasons = Vec::new();
    let nulls = fit(&mut fitted, "", false, fixes, &mut reasons);
    let value = Value::Object(fitted);
    reasons.extend(check_schema(profile, &value).iter().map(ToString::to_string));
    if !reasons.is_empty() {
        return Err(FitError { reasons });
    }
    let Value::Object(schema) = value else { unreachable!("built from an object") };
    Ok(Fitted { schema, nulls })
}

/// Fits one (sub)schema and those under it; returns the plan for values it
/// describes. Under `$defs` (a recursive type, which schemas reach by
/// `$ref`) no plan can follow the values, so an optional property there is
/// refused instead of made `null`able.
fn fit(schema: &mut Map<String, Value>, at: &str, in_defs: bool, fixes: Fixes, reasons: &mut Vec<String>) -> NullPlan {
    let mut plan = NullPlan::default();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = schema.get_mut(key) {
            for (name, def) in defs.iter_mut() {
                if let Value::Object(def) = def {
                    fit(def, &format!("{at}/{key}/{}", escape(name)), true, fixes, reasons);
                }
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema.get_mut(key) {
            for (i, branch) in branches.iter_mut().enumerate() {
                if let Value::Object(branch) = branch {
                    plan.merge(fit(branch, &format!("{at}/{key}/{i}"), in_defs, fixes, reasons));
                }
            }
        }
    }
    match schema.get_mut("items") {
        Some(Value::Object(items)) => {
            let items_plan = fit(items, &format!("{at}/items"), in_defs, fixes, reasons);
            if !items_plan.is_empty() {
                plan.items = Some(Box::new(items_plan));
            }
        }
        Some(Value::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                if let Value::Object(item) = item {
                    fit(item, &format!("{at}/items/{i}"), in_defs, fixes, reasons);
                }
            }
        }
        _ => {}
    }
    if !is_object(schema) {
        return plan;
    }
    if fixes.close_objects {
        match schema.get("additionalProperties") {
            None => {
                schema.insert("additionalProperties".into(), Value::Bool(false));
            }
            Some(Value::Bool(false)) => {}
            Some(_) => reasons.push(format!(
                "{}: an object with free-form keys (a map) cannot be closed with `additionalProperties: false`",
                if at.is_empty() { "/" } else { at }
            )),
        }
    }
    let required: Vec<String> = match schema.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
        _ => Vec::new(),
    };
    let mut newly_required = Vec::new();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            let here = format!("{at}/properties/{}", escape(name));
            let Value::Object(property) = property else { continue };
            let child = fit(property, &here, in_defs, fixes, reasons);
            if !child.is_empty() {
                plan.properties.insert(name.clone(), child);
            }
            if fixes.require_all && !required.contains(name) {
                if in_defs {
                    reasons.push(format!(
                        "{here}: an optional property under `$defs` (reached by `$ref`) cannot be made required and nullable, since the arguments cannot be followed there to drop its `null`"
                    ));
                    continue;
                }
                make_nullable(property);
                newly_required.push(name.clone());
                plan.optional.push(name.clone());
            }
        }
    }
    if !newly_required.is_empty() {
        let list = schema.entry("required").or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            list.extend(newly_required.into_iter().map(Value::String));
        }
    }
    plan
}

/// Lets `null` through a property's schema, in the form the strict
/// profiles document: a `null` in the type list, or a `null` branch.
fn make_nullable(p: &mut Map<String, Value>) {
    match p.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let only = std::mem::take(t);
            p.insert("type".into(), json!([only, "null"]));
        }
        Some(Value::Array(list)) if !list.iter().any(|t| t == "null") => list.push("null".into()),
        Some(_) => {}
        None => {
            if let Some(Value::Array(branches)) = p.get_mut("anyOf") {
                if !branches.iter().any(|b| b.get("type") == Some(&json!("null"))) {
                    branches.push(json!({"type": "null"}));
                }
                return;
            }
            if p.keys().all(|k| k == "description" || k == "title" || k == "default") {
                // No constraint: `null` is already a value it accepts.
                return;
            }
            let description = p.remove("description");
            let inner = std::mem::take(p);
            p.insert("anyOf".into(), json!([Value::Object(inner), {"type": "null"}]));
            if let Some(d) = description {
                p.insert("description".into(), d);
            }
            return;
        }
    }
    if let Some(Value::Array(values)) = p.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}
