//! Model-provider schema profiles: the documented rules a provider applies
//! to the schemas of the tools it is given, checked against a tool or a
//! whole catalog snapshot, and (for the rules that allow it) a fitter that
//! rewrites an input schema to obey them.
//!
//! The rules are data, in `rules/providers.json`, each with the provider,
//! the page it was read on and the date it was read; this module holds only
//! the checks they name.
//!
//! ```
//! use mcp_catalog::profile::{Profile, check_schema};
//! use serde_json::json;
//!
//! let loose = json!({"type": "object", "properties": {"q": {"type": "string"}}});
//! let problems = check_schema(Profile::OpenAi, &loose);
//! assert!(problems.iter().any(|p| p.rule.id == "openai-all-required"));
//! ```

mod check;
mod fit;
mod rule;
mod walk;

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;

pub use self::fit::{FitError, Fitted, NullPlan, fit_input_schema};
pub use self::rule::{Check, Rule, Source, Violation};

/// The rules file, compiled in so the library and the command line agree.
const RULES_JSON: &str = include_str!("../../rules/providers.json");

static RULES: LazyLock<RuleBook> = LazyLock::new(|| match serde_json::from_str(RULES_JSON) {
    Ok(book) => book,
    // The file is part of the crate and checked by its tests; a broken
    // edit must not pass silently as "no rules".
    Err(e) => panic!("rules/providers.json is invalid: {e}"),
});

#[derive(Debug, Deserialize)]
struct RuleBook {
    profiles: Vec<ProfileInfo>,
    rules: Vec<Rule>,
}

/// What a profile stands for, as the rules file describes it.
#[derive(Debug, Clone, Deserialize)]
pub struct ProfileInfo {
    /// `openai`, `gemini` or `anthropic`.
    pub id: String,
    /// The provider feature the profile describes.
    pub name: String,
    /// Which part of the provider's API the rules are for.
    pub fits: String,
}

/// A model provider whose tool-calling schema rules a tool can be checked
/// against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// OpenAI function calling with `strict: true`.
    OpenAi,
    /// Google Gemini function declarations (the OpenAPI-subset `parameters`).
    Gemini,
    /// Anthropic tool use (client tools of the Messages API).
    Anthropic,
}

impl Profile {
    /// Every profile, in a fixed order.
    pub const ALL: [Profile; 3] = [Profile::OpenAi, Profile::Gemini, Profile::Anthropic];

    /// The profile's id in the rules file and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Profile::OpenAi => "openai",
            Profile::Gemini => "gemini",
            Profile::Anthropic => "anthropic",
        }
    }

    /// The rules file's description of the profile.
    pub fn info(self) -> ProfileInfo {
        RULES.profiles.iter().find(|p| p.id == self.id()).cloned().unwrap_or_else(|| ProfileInfo {
            id: self.id().to_owned(),
            name: self.id().to_owned(),
            fits: String::new(),
        })
    }

    /// The profile's rules, in the order of the rules file.
    pub fn rules(self) -> impl Iterator<Item = &'static Rule> {
        RULES.rules.iter().filter(move |r| r.profile == self.id())
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.id().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown profile `{s}` (expected openai, gemini or anthropic)"))
    }
}

/// Every rule of `profile` that the schema breaks. Tool-name rules are not
/// checked here (see [`check_tool`]).
pub fn check_schema(profile: Profile, schema: &Value) -> Vec<Violation> {
    profile.rules().flat_map(|rule| check::schema(rule, schema)).collect()
}

/// What one tool's definition (as `tools/list` shows it) breaks.
#[derive(Debug, Clone, Default)]
pub struct ToolReport {
    /// The tool's name.
    pub tool: String,
    /// Rules the tool itself breaks (its name).
    pub tool_violations: Vec<Violation>,
    /// Rules its `inputSchema` breaks.
    pub input: Vec<Violation>,
    /// Rules its `outputSchema` breaks, for clients that hand it to a model
    /// as a response format; providers do not read it for tool calls.
    pub output: Vec<Violation>,
}

impl ToolReport {
    /// Whether the provider accepts the tool as it is.
    pub fn accepted(&self) -> bool {
        self.tool_violations.is_empty() && self.input.is_empty()
    }
}

/// Checks one tool definition against `profile`.
pub fn check_tool(profile: Profile, tool: &Value) -> ToolReport {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
    let empty = Value::Object(Default::default());
    ToolReport {
        tool: name.to_owned(),
        tool_violations: profile.rules().filter_map(|rule| check::tool_name(rule, name)).collect(),
        input: check_schema(profile, tool.get("inputSchema").unwrap_or(&empty)),
        output: tool.get("outputSchema").map(|s| check_schema(profile, s)).unwrap_or_default(),
    }
}

/// Checks every tool of a catalog snapshot against `profile`, in the
/// snapshot's order.
pub fn check_snapshot(profile: Profile, snapshot: &Value) -> Vec<ToolReport> {
    let tools = snapshot.get("tools").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    tools.iter().map(|t| check_tool(profile, t)).collect()
}

/// A readable report of [`check_snapshot`]: one line per tool, then each
/// reason with its rule and citation.
pub fn render_report(profile: Profile, reports: &[ToolReport]) -> String {
    let info = profile.info();
    let accepted = reports.iter().filter(|r| r.accepted()).count();
    let mut out = format!("{}: {accepted} of {} tools accepted\n", info.name, reports.len());
    for report in reports {
        let verdict = if report.accepted() { "accepted" } else { "rejected" };
        out.push_str(&format!("\n{verdict}: {}\n", report.tool));
        for v in &report.tool_violations {
            out.push_str(&format!("  name {v}\n"));
        }
        for v in &report.input {
            out.push_str(&format!("  input {v}\n"));
        }
        for v in &report.output {
            out.push_str(&format!("  output (informational) {v}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
