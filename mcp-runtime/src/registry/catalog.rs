//! The immutable, sorted catalog a server serves from: every entry with its
//! definition serialized once, so `*/list` never re-serializes schemas.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::value::RawValue;

use crate::registry::entry::{PromptEntry, ResourceEntry, ResourceKind, ToolEntry};
use crate::registry::error::{BuildError, Problems};
use crate::registry::location::SourceLocation;
use crate::registry::param_headers::{self, HeaderParam};
use crate::uri_template::UriTemplate;

/// The entries of a catalog, taken apart: what a catalog is built from,
/// and what a changed one is rebuilt from.
pub(crate) struct Entries {
    pub(crate) tools: Vec<ToolEntry>,
    pub(crate) prompts: Vec<PromptEntry>,
    pub(crate) resources: Vec<ResourceEntry>,
    /// The skills, whose files are among `resources`.
    #[cfg(feature = "skills")]
    pub(crate) skills: Vec<crate::protocol::Skill>,
}

/// An entry with its list JSON and its sort key.
pub(crate) struct Listed<E> {
    entry: E,
    json: Box<RawValue>,
    key: String,
}

impl<E> Listed<E> {
    /// The entry.
    pub(crate) fn entry(&self) -> &E {
        &self.entry
    }

    /// Its definition as `*/list` shows it, serialized when the catalog was built.
    pub(crate) fn json(&self) -> &RawValue {
        &self.json
    }

    /// What the list is sorted by: the name, or the URI for resources.
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}

/// A resource template with its parsed matcher.
struct Template {
    matcher: UriTemplate,
    index: usize,
}

/// Every registered tool, prompt, resource and template, sorted and indexed.
#[derive(Default)]
pub(crate) struct Catalog {
    tools: Vec<Listed<ToolEntry>>,
    tool_index: HashMap<String, usize>,
    /// Mounted tools by the names their own server's views call them
    /// (`add_note` for `notes_add_note`): only names no tool has, and that
    /// one mounted tool alone answers to.
    view_aliases: HashMap<String, usize>,
    /// The `x-mcp-header` parameters of each tool, in `tools` order.
    tool_headers: Vec<Vec<HeaderParam>>,
    prompts: Vec<Listed<PromptEntry>>,
    prompt_index: HashMap<String, usize>,
    resources: Vec<Listed<ResourceEntry>>,
    resource_index: HashMap<String, usize>,
    templates: Vec<Listed<ResourceEntry>>,
    matchers: Vec<Template>,
    /// Fixed resources read by URI that `resources/list` does not show.
    unlisted: Vec<ResourceEntry>,
    unlisted_index: HashMap<String, usize>,
    #[cfg(feature = "skills")]
    skills: crate::registry::skills::SkillIndex,
    /// Whether any entry has a visibility rule: then every list depends on
    /// its caller, even where scopes are not checked.
    has_rules: bool,
}

/// Refuses scopes that break RFC 6749's rule, the one `scopes = [...]` is
/// checked against at compile time.
fn check_scopes(
    kind: &'static str,
    name: &str,
    scopes: Option<&[String]>,
    location: SourceLocation,
) -> Result<(), BuildError> {
    let Some(scopes) = scopes else { return Ok(()) };
    mcp_runtime_rules::scope::check_list(scopes).map_err(|(_, reason)| BuildError::Scope {
        kind,
        name: name.to_owned(),
        reason,
        location,
    })
}

fn listed<E, D: Serialize>(entry: E, definition: &D, key: String) -> Result<Listed<E>, BuildError> {
    let json = serde_json::value::to_raw_value(definition)
        .map_err(|e| BuildError::Definition { name: key.clone(), reason: e.to_string() })?;
    Ok(Listed { entry, json, key })
}

/// Sorts by key and builds a name → position index, reporting each
/// duplicate with both locations: against an earlier one from the same
/// place when there is one (an entry listed twice), else the first.
fn index<E>(
    items: &mut [Listed<E>],
    kind: &'static str,
    location: impl Fn(&E) -> SourceLocation,
    problems: &mut Problems,
) -> HashMap<String, usize> {
    items.sort_by(|a, b| a.key.cmp(&b.key));
    let mut map = HashMap::with_capacity(items.len());
    let mut reported = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match map.entry(item.key.clone()) {
            Entry::Occupied(first) => {
                let first: usize = *first.get();
                let second = location(&item.entry);
                let same_place = (first..i).map(|j| location(&items[j].entry)).find(|l| *l == second);
                let first = same_place.unwrap_or_else(|| location(&items[first].entry));
                if !reported.contains(&(&item.key, first, second)) {
                    reported.push((&item.key, first, second));
                    problems.push(BuildError::Duplicate { kind, name: item.key.clone(), first, second });
                }
            }
            Entry::Vacant(slot) => {
                slot.insert(i);
            }
        }
    }
    map
}

/// The names mounted tools answer to for their server's views: a tool's
/// name at its own server, when no tool here has it and no other mounted
/// tool answers to it (two mounts' `add_note` leave `add_note` to none).
fn view_aliases(tools: &[Listed<ToolEntry>], index: &HashMap<String, usize>) -> HashMap<String, usize> {
    let mut aliases: HashMap<String, Option<usize>> = HashMap::new();
    for (position, tool) in tools.iter().enumerate() {
        let Some(alias) = &tool.entry.view_alias else { continue };
        if index.contains_key(alias) {
            continue;
        }
        aliases.entry(alias.clone()).and_modify(|taken| *taken = None).or_insert(Some(position));
    }
    aliases.into_iter().filter_map(|(alias, position)| Some((alias, position?))).collect()
}

impl Catalog {
    /// Checks the entries (tool names, `x-mcp-header` annotations, resource
    /// templates, duplicates) and sorts and indexes them. Every problem is
    /// reported, not the first alone.
    pub(crate) fn build(entries: Entries) -> Result<Self, BuildError> {
        #[cfg(feature = "skills")]
        let Entries { tools, prompts, resources, skills } = entries;
        #[cfg(not(feature = "skills"))]
        let Entries { tools, prompts, resources } = entries;
        let mut problems = Problems::default();
        let mut listed_tools = Vec::with_capacity(tools.len());
        for t in tools {
            if let Err(reason) = mcp_runtime_rules::tool_name::check(&t.definition.name) {
                let (name, location) = (t.definition.name.clone(), t.location);
                problems.push(BuildError::ToolName { name, reason, location });
            }
            problems.take(check_scopes("tool", &t.definition.name, t.scopes.as_deref(), t.location));
            let key = t.definition.name.clone();
            let def = t.definition.clone();
            listed_tools.extend(problems.take(listed(t, &def, key)));
        }
        let tool_index = index(&mut listed_tools, "tool", |t: &ToolEntry| t.location, &mut problems);
        let view_aliases = view_aliases(&listed_tools, &tool_index);
        let tool_headers = listed_tools
            .iter()
            .map(|t| {
                let found = param_headers::find(&t.entry.definition.input_schema).map_err(|reason| {
                    BuildError::HeaderParam { tool: t.key.clone(), reason, location: t.entry.location }
                });
                problems.take(found).unwrap_or_default()
            })
            .collect();

        let mut listed_prompts = Vec::with_capacity(prompts.len());
        for p in prompts {
            problems.take(check_scopes("prompt", &p.definition.name, p.scopes.as_deref(), p.location));
            let key = p.definition.name.clone();
            let def = p.definition.clone();
            listed_prompts.extend(problems.take(listed(p, &def, key)));
        }
        let prompt_index = index(&mut listed_prompts, "prompt", |p: &PromptEntry| p.location, &mut problems);

        let mut fixed = Vec::new();
        let mut unlisted = Vec::new();
        let mut templates = Vec::new();
        for r in resources {
            let kind = if matches!(r.kind, ResourceKind::Fixed(_)) { "resource" } else { "resource template" };
            problems.take(check_scopes(kind, r.uri(), r.scopes.as_deref(), r.location));
            match &r.kind {
                ResourceKind::Fixed(def) => {
                    // A read of it would be refused as no URI, and `resources/list` would fail the schema.
                    if let Err(e) = mcp_runtime_rules::uri::check_absolute(&def.uri) {
                        let (uri, reason) = (def.uri.clone(), e.to_string());
                        problems.push(BuildError::ResourceUri { uri, reason, location: r.location });
                        continue;
                    }
                    let (def, key) = (def.clone(), def.uri.clone());
                    if r.listed {
                        fixed.extend(problems.take(listed(r, &def, key)));
                    } else {
                        unlisted.extend(problems.take(listed(r, &def, key)));
                    }
                }
                ResourceKind::Template(def, parsed) => {
                    if let Err(e) = parsed {
                        problems.push(BuildError::Template { error: e.clone(), location: r.location });
                        continue;
                    }
                    let (def, key) = (def.clone(), def.uri_template.clone());
                    templates.extend(problems.take(listed(r, &def, key)));
                }
            }
        }
        // Duplicates are found by URI; lists are then ordered by name (then
        // URI), and lookups go through the URI index.
        // One URI index over listed and unlisted ones, so no URI is both.
        let mut all_fixed: Vec<Listed<ResourceEntry>> = fixed.into_iter().chain(unlisted).collect();
        index(&mut all_fixed, "resource", |r: &ResourceEntry| r.location, &mut problems);
        let (mut fixed, unlisted): (Vec<_>, Vec<_>) = all_fixed.into_iter().partition(|r| r.entry.listed);
        index(&mut templates, "resource template", |r: &ResourceEntry| r.location, &mut problems);
        problems.into_result()?;
        fixed.sort_by(|a, b| (a.entry.name(), &a.key).cmp(&(b.entry.name(), &b.key)));
        let resource_index: HashMap<String, usize> =
            fixed.iter().enumerate().map(|(i, r)| (r.key.clone(), i)).collect();
        templates.sort_by(|a, b| (a.entry.name(), &a.key).cmp(&(b.entry.name(), &b.key)));
        let mut matchers: Vec<Template> = templates
            .iter()
            .enumerate()
            .filter_map(|(index, t)| match &t.entry.kind {
                ResourceKind::Template(_, Ok(m)) => Some(Template { matcher: m.clone(), index }),
                _ => None,
            })
            .collect();
        // The most specific first: a catch-all template (a proxied remote's
        // `{+uri}`) never takes the reads of one written for a namespace
        // (`file://files/{path}`), whatever their names.
        matchers.sort_by_key(|t| std::cmp::Reverse(t.matcher.literal_prefix_len()));
        let unlisted: Vec<ResourceEntry> = unlisted.into_iter().map(|r| r.entry).collect();
        let unlisted_index: HashMap<String, usize> =
            unlisted.iter().enumerate().map(|(i, r)| (r.uri().to_owned(), i)).collect();
        #[cfg(feature = "skills")]
        let skills = {
            let lookup = |uri: &str| {
                resource_index
                    .get(uri)
                    .map(|&i: &usize| &fixed[i].entry)
                    .or_else(|| unlisted_index.get(uri).map(|&i: &usize| &unlisted[i]))
            };
            crate::registry::skills::SkillIndex::build(skills, lookup)
                .map_err(|reason| BuildError::Definition { name: "skills".to_owned(), reason })?
        };

        let has_rules = listed_tools.iter().any(|t| t.entry.visible.is_some())
            || listed_prompts.iter().any(|p| p.entry.visible.is_some())
            || fixed.iter().chain(&templates).any(|r| r.entry.visible.is_some())
            || unlisted.iter().any(|r| r.visible.is_some());
        Ok(Catalog {
            has_rules,
            tools: listed_tools,
            tool_index,
            view_aliases,
            tool_headers,
            prompts: listed_prompts,
            prompt_index,
            resources: fixed,
            resource_index,
            templates,
            matchers,
            unlisted,
            unlisted_index,
            #[cfg(feature = "skills")]
            skills,
        })
    }

    /// The entries, to build a changed catalog from.
    pub(crate) fn entries(&self) -> Entries {
        Entries {
            tools: self.tools.iter().map(|t| t.entry.clone()).collect(),
            prompts: self.prompts.iter().map(|p| p.entry.clone()).collect(),
            resources: (self.resources.iter().chain(&self.templates).map(|r| r.entry.clone()))
                .chain(self.unlisted.iter().cloned())
                .collect(),
            #[cfg(feature = "skills")]
            skills: self.skills.entries(),
        }
    }

    /// The skills served.
    #[cfg(feature = "skills")]
    pub(crate) fn skills(&self) -> &crate::registry::skills::SkillIndex {
        &self.skills
    }

    /// The tools, sorted by name.
    pub(crate) fn tools(&self) -> &[Listed<ToolEntry>] {
        &self.tools
    }

    /// The prompts, sorted by name.
    pub(crate) fn prompts(&self) -> &[Listed<PromptEntry>] {
        &self.prompts
    }

    /// The fixed resources, sorted by name, then URI.
    pub(crate) fn resources(&self) -> &[Listed<ResourceEntry>] {
        &self.resources
    }

    /// The resource templates, sorted by name, then URI template.
    pub(crate) fn templates(&self) -> &[Listed<ResourceEntry>] {
        &self.templates
    }

    /// The tool at `position` in [`tools`](Self::tools).
    pub(crate) fn tool(&self, position: usize) -> &ToolEntry {
        &self.tools[position].entry
    }

    /// Where the tool `name` is in [`tools`](Self::tools): the tool of
    /// that name, else the mounted tool a view of its server calls so.
    pub(crate) fn tool_position(&self, name: &str) -> Option<usize> {
        self.tool_index.get(name).or_else(|| self.view_aliases.get(name)).copied()
    }

    /// The `x-mcp-header` parameters of the tool at `position` in
    /// [`tools`](Self::tools).
    pub(crate) fn tool_header_params(&self, position: usize) -> &[HeaderParam] {
        self.tool_headers.get(position).map_or(&[], Vec::as_slice)
    }

    pub(crate) fn prompt(&self, name: &str) -> Option<&PromptEntry> {
        self.prompt_index.get(name).map(|&i| &self.prompts[i].entry)
    }

    /// The fixed resource at `uri`, listed or not.
    pub(crate) fn resource(&self, uri: &str) -> Option<&ResourceEntry> {
        match self.resource_index.get(uri) {
            Some(&i) => Some(&self.resources[i].entry),
            None => self.unlisted_index.get(uri).map(|&i| &self.unlisted[i]),
        }
    }

    /// The template matching `uri`, with its variables, among those not
    /// `hidden` (from the request's caller: a hidden one matches nothing):
    /// the most specific (the longest text before its first variable), then
    /// the first in list order.
    pub(crate) fn match_template_unless(
        &self,
        uri: &str,
        hidden: impl Fn(&ResourceEntry) -> bool,
    ) -> Option<(&ResourceEntry, serde_json::Map<String, serde_json::Value>)> {
        self.matchers.iter().find_map(|t| {
            let entry = &self.templates[t.index].entry;
            if self.has_rules && hidden(entry) {
                return None;
            }
            t.matcher.matches(uri).map(|vars| (entry, vars))
        })
    }

    /// Whether any entry has a visibility rule: then what one caller is
    /// shown may differ from what another is.
    pub(crate) fn has_visibility_rules(&self) -> bool {
        self.has_rules
    }

    /// The template whose template text is exactly `uri_template`.
    pub(crate) fn template(&self, uri_template: &str) -> Option<&ResourceEntry> {
        self.templates.iter().find(|t| t.key == uri_template).map(|t| &t.entry)
    }

    pub(crate) fn has_completions(&self) -> bool {
        self.prompts.iter().any(|p| p.entry.completer.is_some())
            || self.templates.iter().any(|t| t.entry.completer.is_some())
    }

    /// Whether any tool may run as a task.
    pub(crate) fn has_task_tools(&self) -> bool {
        self.tools.iter().any(|t| t.entry.task.is_some())
    }

    /// Every scope an entry declares.
    pub(crate) fn declared_scopes(&self) -> BTreeSet<String> {
        let tools = self.tools.iter().map(|t| &t.entry.scopes);
        let prompts = self.prompts.iter().map(|p| &p.entry.scopes);
        let resources = self.resources.iter().chain(&self.templates).map(|r| &r.entry.scopes);
        tools.chain(prompts).chain(resources).flatten().flatten().cloned().collect()
    }

    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    /// Whether an interactive view (MCP Apps) is served.
    pub(crate) fn has_views(&self) -> bool {
        self.resources.iter().any(|r| r.entry.view.is_some())
    }
}
