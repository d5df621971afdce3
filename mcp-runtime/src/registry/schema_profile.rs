//! Fits tools' input schemas to a model provider's tool-calling rules (the
//! server-wide option [`ServerBuilder::schema_profile`]), and undoes at
//! call time what the fitting added: the `null` of an optional argument.
//!
//! [`ServerBuilder::schema_profile`]: crate::ServerBuilder::schema_profile

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

pub(crate) use mcp_catalog::profile::NullPlan;
/// A model provider whose documented tool-calling schema rules a server's
/// tools can be fitted to (see [`ServerBuilder::schema_profile`](crate::ServerBuilder::schema_profile)).
pub use mcp_catalog::profile::Profile as SchemaProfile;
use mcp_catalog::profile::{check_tool, fit_input_schema};

use crate::registry::entry::ToolEntry;
use crate::registry::error::{BuildError, RefusedTool};
use crate::registry::param_headers;

/// Fits every tool not fitted yet; refuses the build, naming every tool
/// that cannot fit, if any cannot.
pub(crate) fn apply(profile: SchemaProfile, tools: &mut [ToolEntry]) -> Result<(), BuildError> {
    let mut refused = Vec::new();
    for tool in tools.iter_mut().filter(|t| t.fitted != Some(profile)) {
        let definition = serde_json::to_value(&tool.definition).unwrap_or(Value::Null);
        let mut reasons: Vec<String> =
            check_tool(profile, &definition).tool_violations.iter().map(|v| format!("name {v}")).collect();
        match fit_input_schema(profile, &tool.definition.input_schema) {
            // The protocol's own rules still hold: a property mirrored into
            // an `Mcp-Param-*` header cannot take `null`.
            Ok(fitted) if let Err(reason) = param_headers::find(&fitted.schema) => {
                reasons.push(format!("the fitted schema would break an MCP rule: {reason}"));
            }
            Ok(fitted) if reasons.is_empty() => {
                tool.definition.input_schema = fitted.schema;
                tool.nulls = (!fitted.nulls.is_empty()).then(|| Arc::new(fitted.nulls));
                tool.fitted = Some(profile);
            }
            Ok(_) => {}
            Err(e) => reasons.extend(e.reasons),
        }
        if !reasons.is_empty() {
            refused.push(RefusedTool { tool: tool.definition.name.clone(), location: tool.location, reasons });
        }
    }
    if refused.is_empty() {
        return Ok(());
    }
    refused.sort_by(|a, b| a.tool.cmp(&b.tool));
    Err(BuildError::SchemaProfile { profile: profile.id(), refused })
}

/// The arguments with the `null`s of optional arguments removed, as the
/// handler expects them; arguments that are not JSON pass unchanged (the
/// handler reports them).
pub(crate) fn strip_nulls(plan: &NullPlan, arguments: Option<Box<RawValue>>) -> Option<Box<RawValue>> {
    let raw = arguments?;
    let Ok(mut value) = serde_json::from_str::<Value>(raw.get()) else { return Some(raw) };
    plan.strip(&mut value);
    Some(serde_json::value::to_raw_value(&value).unwrap_or(raw))
}
