//! The keys of `#[tool(...)]`, `#[prompt(...)]` and `#[resource(...)]`,
//! parsed with their spans. Every unknown, duplicate or malformed key is
//! reported, so all typos show up in one compile.

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprPath, Ident, Lit, LitFloat, LitInt, LitStr, Meta, MetaList, Path, Token};

use crate::errors::Errors;
use crate::keys::{key_name, lit_str, parse_list, set, unknown_key, value};

/// Which macro is being expanded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Macro {
    Tool,
    Prompt,
    Resource,
}

impl Macro {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Macro::Tool => "tool",
            Macro::Prompt => "prompt",
            Macro::Resource => "resource",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Macro::Tool => &[
                "name",
                "title",
                "description",
                "annotations",
                "task",
                "icons",
                "meta",
                "scopes",
                "visible_to",
                "view",
                "visibility",
                "layer",
                "invalidates",
                "crate",
            ],
            Macro::Prompt => &["name", "title", "description", "icons", "meta", "scopes", "visible_to", "crate"],
            Macro::Resource => &[
                "name",
                "title",
                "description",
                "mime_type",
                "annotations",
                "icons",
                "size",
                "meta",
                "scopes",
                "visible_to",
                "view",
                "crate",
            ],
        }
    }
}

/// A tool's `annotations(...)`.
#[derive(Default)]
pub(crate) struct ToolHints {
    pub(crate) title: Option<LitStr>,
    pub(crate) read_only: Option<Flag>,
    pub(crate) destructive: Option<Flag>,
    pub(crate) idempotent: Option<Flag>,
    pub(crate) open_world: Option<Flag>,
}

/// A tool's `task` or `task(required)`: whether it may, or must, run as a
/// task.
#[derive(Clone, Copy)]
pub(crate) struct TaskMode {
    pub(crate) required: bool,
    /// `input_first`: input before the first other wait comes by round trips
    /// on the call, and the task starts at that wait.
    pub(crate) input_first: bool,
}

/// A boolean hint: `read_only` or `read_only = false`.
#[derive(Clone, Copy)]
pub(crate) struct Flag {
    pub(crate) value: bool,
    pub(crate) span: Span,
}

/// A resource's `annotations(...)`.
#[derive(Default)]
pub(crate) struct ContentHints {
    pub(crate) audience: Option<Vec<LitStr>>,
    pub(crate) priority: Option<LitFloat>,
    pub(crate) last_modified: Option<LitStr>,
}

/// One `"key" = value` of `meta(...)`.
pub(crate) struct MetaEntry {
    pub(crate) key: LitStr,
    pub(crate) value: Expr,
}

/// `scopes = ["...", ...]`: the list's span (for an empty one) and its
/// string literals.
pub(crate) struct Scopes {
    pub(crate) span: Span,
    pub(crate) scopes: Vec<LitStr>,
}

/// The keys given to the item's attribute.
#[derive(Default)]
pub(crate) struct ItemAttrs {
    /// `#[resource("...")]`: the URI or URI template.
    pub(crate) uri: Option<LitStr>,
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) tool_hints: Option<ToolHints>,
    pub(crate) task: Option<TaskMode>,
    pub(crate) content_hints: Option<ContentHints>,
    pub(crate) icons: Option<Vec<Expr>>,
    pub(crate) meta: Option<Vec<MetaEntry>>,
    pub(crate) krate: Option<Path>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) size: Option<LitInt>,
    pub(crate) scopes: Option<Scopes>,
    /// `visible_to = path`: the function `fn(&Viewer<'_>) -> bool` that
    /// decides who is shown the item.
    pub(crate) visible_to: Option<ExprPath>,
    /// `#[tool(invalidates = ["..."])]`: the tools whose cached results a
    /// call makes stale.
    pub(crate) invalidates: Option<Vec<LitStr>>,
    /// `#[resource(..., view(...))]`: the resource is an interactive view.
    pub(crate) view: Option<crate::view::ViewAttrs>,
    /// `#[tool(view = "ui://...")]`: the view the tool is bound to.
    pub(crate) view_uri: Option<LitStr>,
    /// `#[tool(visibility = ...)]`: who a tool bound to a view is for.
    pub(crate) visibility: Option<Ident>,
    /// `#[tool(layer = ...)]`, each of them: the tool's own middleware, in
    /// order (the first is the outermost).
    pub(crate) layers: Vec<Expr>,
}

/// Parses the arguments of `#[tool(...)]`, `#[prompt(...)]` or
/// `#[resource(...)]`.
pub(crate) fn parse_item(kind: Macro, args: TokenStream, errors: &mut Errors) -> ItemAttrs {
    let mut attrs = ItemAttrs::default();
    let items = if kind == Macro::Resource {
        match (|input: ParseStream<'_>| -> syn::Result<(LitStr, Vec<Meta>)> {
            let uri: LitStr = input.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected the resource's URI as a string literal, e.g. `#[resource(\"docs://readme\")]` or `#[resource(\"notes://{id}\")]`",
                )
            })?;
            if input.is_empty() {
                return Ok((uri, Vec::new()));
            }
            input.parse::<Token![,]>()?;
            let rest = Punctuated::<Meta, Token![,]>::parse_terminated(input)?;
            Ok((uri, rest.into_iter().collect()))
        })
        .parse2(args)
        {
            Ok((uri, items)) => {
                attrs.uri = Some(uri);
                items
            }
            Err(e) => {
                errors.push(e);
                return attrs;
            }
        }
    } else {
        // `#[resource("...")]` takes its URI first; the others name
        // themselves with a key, which is easy to forget.
        if let Some(proc_macro2::TokenTree::Literal(lit)) = args.clone().into_iter().next()
            && let Ok(name) = syn::parse2::<LitStr>(proc_macro2::TokenTree::Literal(lit).into())
        {
            errors.spanned(
                &name,
                format!(
                    "`#[{0}]` takes no positional string: to name the {0}, write `#[{0}(name = {1:?})]`",
                    kind.name(),
                    name.value()
                ),
            );
            return attrs;
        }
        match parse_list(args) {
            Ok(items) => items,
            Err(e) => {
                errors.push(e);
                return attrs;
            }
        }
    };

    for item in &items {
        let key = item.path();
        match key_name(key).as_str() {
            "name" => {
                let v = lit_str(errors, item);
                set(errors, &mut attrs.name, key, v);
            }
            "title" => {
                let v = lit_str(errors, item);
                set(errors, &mut attrs.title, key, v);
            }
            "description" => {
                let v = lit_str(errors, item);
                set(errors, &mut attrs.description, key, v);
            }
            "mime_type" if kind == Macro::Resource => {
                let v = lit_str(errors, item);
                set(errors, &mut attrs.mime_type, key, v);
            }
            "size" if kind == Macro::Resource => {
                let v = lit_int(errors, item);
                set(errors, &mut attrs.size, key, v);
            }
            "annotations" if kind == Macro::Tool => {
                let v = list(errors, item).map(|l| tool_hints(errors, l));
                set(errors, &mut attrs.tool_hints, key, v);
            }
            "task" if kind == Macro::Tool => {
                let v = task_mode(errors, item);
                set(errors, &mut attrs.task, key, v);
            }
            "annotations" if kind == Macro::Resource => {
                let v = list(errors, item).map(|l| content_hints(errors, l));
                set(errors, &mut attrs.content_hints, key, v);
            }
            "icons" => {
                let v = array(errors, item);
                set(errors, &mut attrs.icons, key, v);
            }
            "meta" => {
                let v = list(errors, item).and_then(|l| meta_entries(errors, l));
                set(errors, &mut attrs.meta, key, v);
            }
            "crate" => {
                let v = crate_path(errors, item);
                set(errors, &mut attrs.krate, key, v);
            }
            "scopes" => {
                let v = scopes(errors, item);
                set(errors, &mut attrs.scopes, key, v);
            }
            "visible_to" => {
                let v = visibility_rule(errors, item);
                set(errors, &mut attrs.visible_to, key, v);
            }
            "invalidates" if kind == Macro::Tool => {
                let v = tool_names(errors, item);
                set(errors, &mut attrs.invalidates, key, v);
            }
            "view" if kind == Macro::Resource => {
                let v = crate::view::parse(errors, item);
                set(errors, &mut attrs.view, key, v);
            }
            "view" if kind == Macro::Tool => {
                let v = lit_str(errors, item);
                set(errors, &mut attrs.view_uri, key, v);
            }
            "visibility" if kind == Macro::Tool => {
                let v = crate::view::visibility(errors, item);
                set(errors, &mut attrs.visibility, key, v);
            }
            // Repeatable: a tool may have several layers.
            "layer" if kind == Macro::Tool => {
                if let Some(layer) = value(errors, item, "TimeLimit::new(...)") {
                    attrs.layers.push(layer.clone());
                }
            }
            _ => unknown_key(errors, &format!("`#[{}]`", kind.name()), key, kind.keys()),
        }
    }
    attrs
}

fn lit_int(errors: &mut Errors, item: &Meta) -> Option<LitInt> {
    match value(errors, item, "<integer>")? {
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) if i.base10_parse::<u64>().is_ok() => Some(i.clone()),
        other => {
            errors.spanned(other, "expected a non-negative integer literal");
            None
        }
    }
}

/// `key = expr`, any expression.
pub(crate) fn expr(errors: &mut Errors, item: &Meta) -> Option<Expr> {
    value(errors, item, "...").cloned()
}

fn array(errors: &mut Errors, item: &Meta) -> Option<Vec<Expr>> {
    match value(errors, item, "[...]")? {
        Expr::Array(a) => Some(a.elems.iter().cloned().collect()),
        other => {
            errors.spanned(other, "expected a list: `[...]`");
            None
        }
    }
}

/// `invalidates = ["...", ...]`: tool names, as string literals, checked
/// against the server's tools when it is built.
fn tool_names(errors: &mut Errors, item: &Meta) -> Option<Vec<LitStr>> {
    let list = "expected a list of tool names: `invalidates = [\"search_articles\", ...]`";
    let one = "expected a tool's name as a string literal, e.g. `\"search_articles\"`";
    string_literals(errors, item, list, one).map(|(_, names)| names)
}

/// `scopes = ["...", ...]`: string literals only, checked later.
fn scopes(errors: &mut Errors, item: &Meta) -> Option<Scopes> {
    let list = "expected a list of scopes: `scopes = [\"notes:read\", ...]`";
    let one = "expected a scope as a string literal, e.g. `\"notes:read\"`";
    string_literals(errors, item, list, one).map(|(span, scopes)| Scopes { span, scopes })
}

/// `key = ["...", ...]`: the list's span and its string literals; `list`
/// is the error for a value that is no list, `one` for an item that is no
/// string literal.
fn string_literals(errors: &mut Errors, item: &Meta, list: &str, one: &str) -> Option<(Span, Vec<LitStr>)> {
    let Expr::Array(array) = value(errors, item, "[\"...\", ...]")? else {
        let expr = value(errors, item, "")?;
        errors.spanned(expr, list);
        return None;
    };
    let mut literals = Vec::new();
    for elem in &array.elems {
        match elem {
            Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => literals.push(s.clone()),
            other => errors.spanned(other, one),
        }
    }
    Some((array.span(), literals))
}

/// `visible_to = path`: the path of a function `fn(&Viewer<'_>) -> bool`,
/// named by the static descriptor (so no closure, which has no name, and no
/// string). Its type is checked by the compiler, at the path.
fn visibility_rule(errors: &mut Errors, item: &Meta) -> Option<ExprPath> {
    const TAKES: &str = "`visible_to` takes the path of a function `fn(&Viewer<'_>) -> bool`";
    match value(errors, item, "path::to::rule")? {
        Expr::Path(path) if path.attrs.is_empty() => Some(path.clone()),
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
            // The string is likely a group or a role: say how to decide on it.
            let name = s.parse::<Ident>().map_or_else(|_| "staff_only".to_owned(), |i| i.to_string());
            errors.spanned(
                s,
                format!(
                    "{TAKES}, not a string: write the function that decides, `fn {name}(viewer: &Viewer<'_>) -> bool`, and name it, `visible_to = {name}`"
                ),
            );
            None
        }
        closure @ Expr::Closure(_) => {
            errors.spanned(
                closure,
                format!("{TAKES}, not a closure: the rule is kept in a static, so write it as a `fn` and name it"),
            );
            None
        }
        other => {
            errors.spanned(other, format!("{TAKES}, e.g. `visible_to = staff_only`"));
            None
        }
    }
}

fn list<'a>(errors: &mut Errors, item: &'a Meta) -> Option<&'a MetaList> {
    match item {
        Meta::List(l) => Some(l),
        _ => {
            errors.spanned(item, format!("expected `{}(...)`", key_name(item.path())));
            None
        }
    }
}

pub(crate) fn crate_path(errors: &mut Errors, item: &Meta) -> Option<Path> {
    match value(errors, item, "path::to::mcp_runtime")? {
        Expr::Path(p) if p.qself.is_none() => Some(p.path.clone()),
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => errors.collect(s.parse::<Path>()),
        other => {
            errors.spanned(other, "expected the path of the runtime crate, e.g. `crate = ::my_runtime`");
            None
        }
    }
}

/// `flag` or `flag = true|false`.
pub(crate) fn flag(errors: &mut Errors, item: &Meta) -> Option<Flag> {
    match item {
        Meta::Path(p) => Some(Flag { value: true, span: p.span() }),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => Some(Flag { value: b.value, span: nv.span() }),
            other => {
                errors.spanned(other, "expected `true` or `false`");
                None
            }
        },
        Meta::List(_) => {
            errors.spanned(item, format!("expected `{0}` or `{0} = true|false`", key_name(item.path())));
            None
        }
    }
}

/// `task`, or `task(...)` with `optional` or `required`, and `input_first`.
fn task_mode(errors: &mut Errors, item: &Meta) -> Option<TaskMode> {
    const EXPECTED: &str = "expected `task` (may run as a task), `task(required)` (only as a task), \
                            `task(optional)`, and `input_first` among them (`task(required, input_first)`)";
    let mut mode = TaskMode { required: false, input_first: false };
    let list = match item {
        Meta::Path(_) => return Some(mode),
        Meta::List(list) => list,
        Meta::NameValue(nv) => {
            errors.spanned(&nv.value, EXPECTED);
            return None;
        }
    };
    let items = errors.collect(parse_list(list.tokens.clone()))?;
    if items.is_empty() {
        errors.spanned(list, EXPECTED);
        return None;
    }
    let (mut saw_mode, mut saw_first, mut ok) = (false, false, true);
    for item in &items {
        let seen = match item {
            Meta::Path(p) if p.is_ident("required") || p.is_ident("optional") => {
                mode.required = p.is_ident("required");
                std::mem::replace(&mut saw_mode, true)
            }
            Meta::Path(p) if p.is_ident("input_first") => {
                mode.input_first = true;
                std::mem::replace(&mut saw_first, true)
            }
            other => {
                errors.spanned(other, format!("unknown task mode `{}`; {EXPECTED}", key_name(other.path())));
                ok = false;
                continue;
            }
        };
        if seen {
            errors.spanned(item, format!("`{}` repeats what `task(...)` already says", key_name(item.path())));
            ok = false;
        }
    }
    ok.then_some(mode)
}

fn tool_hints(errors: &mut Errors, list: &MetaList) -> ToolHints {
    const KEYS: &[&str] = &["title", "read_only", "destructive", "idempotent", "open_world"];
    let mut hints = ToolHints::default();
    let Some(items) = errors.collect(parse_list(list.tokens.clone())) else { return hints };
    for item in &items {
        let key = item.path();
        match key_name(key).as_str() {
            "title" => {
                let v = lit_str(errors, item);
                set(errors, &mut hints.title, key, v);
            }
            "read_only" => {
                let v = flag(errors, item);
                set(errors, &mut hints.read_only, key, v);
            }
            "destructive" => {
                let v = flag(errors, item);
                set(errors, &mut hints.destructive, key, v);
            }
            "idempotent" => {
                let v = flag(errors, item);
                set(errors, &mut hints.idempotent, key, v);
            }
            "open_world" => {
                let v = flag(errors, item);
                set(errors, &mut hints.open_world, key, v);
            }
            _ => unknown_key(errors, "`annotations(...)`", key, KEYS),
        }
    }
    hints
}

fn content_hints(errors: &mut Errors, list: &MetaList) -> ContentHints {
    const KEYS: &[&str] = &["audience", "priority", "last_modified"];
    let mut hints = ContentHints::default();
    let Some(items) = errors.collect(parse_list(list.tokens.clone())) else { return hints };
    for item in &items {
        let key = item.path();
        match key_name(key).as_str() {
            "audience" => {
                let v = array(errors, item).map(|roles| {
                    roles
                        .iter()
                        .filter_map(|r| match r {
                            Expr::Lit(ExprLit { lit: Lit::Str(s), .. })
                                if s.value() == "user" || s.value() == "assistant" =>
                            {
                                Some(s.clone())
                            }
                            other => {
                                errors.spanned(other, "expected \"user\" or \"assistant\"");
                                None
                            }
                        })
                        .collect()
                });
                set(errors, &mut hints.audience, key, v);
            }
            "priority" => {
                let v = match value(errors, item, "<number from 0 to 1>") {
                    Some(Expr::Lit(ExprLit { lit: Lit::Float(f), .. }))
                        if f.base10_parse::<f64>().is_ok_and(|p| (0.0..=1.0).contains(&p)) =>
                    {
                        Some(f.clone())
                    }
                    Some(Expr::Lit(ExprLit { lit: Lit::Int(i), .. })) if matches!(i.base10_digits(), "0" | "1") => {
                        Some(LitFloat::new(&format!("{}.0", i.base10_digits()), i.span()))
                    }
                    Some(other) => {
                        errors.spanned(other, "`priority` is a number from 0 (least important) to 1 (most important)");
                        None
                    }
                    None => None,
                };
                set(errors, &mut hints.priority, key, v);
            }
            "last_modified" => {
                let v = lit_str(errors, item);
                set(errors, &mut hints.last_modified, key, v);
            }
            _ => unknown_key(errors, "`annotations(...)`", key, KEYS),
        }
    }
    hints
}

fn meta_entries(errors: &mut Errors, list: &MetaList) -> Option<Vec<MetaEntry>> {
    let parser = Punctuated::<MetaEntryRaw, Token![,]>::parse_terminated;
    let entries = errors.collect(parser.parse2(list.tokens.clone()))?;
    let mut out: Vec<MetaEntry> = Vec::new();
    for MetaEntryRaw { key, value } in entries {
        if out.iter().any(|e| e.key.value() == key.value()) {
            errors.spanned(&key, format!("duplicate `_meta` key \"{}\"", key.value()));
            continue;
        }
        out.push(MetaEntry { key, value });
    }
    Some(out)
}

struct MetaEntryRaw {
    key: LitStr,
    value: Expr,
}

impl syn::parse::Parse for MetaEntryRaw {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key = if input.peek(LitStr) {
            input.parse::<LitStr>()?
        } else {
            let ident: Ident = input.parse().map_err(|e| {
                syn::Error::new(e.span(), "expected `\"key\" = value`, e.g. `meta(\"com.example/tier\" = \"gold\")`")
            })?;
            LitStr::new(&ident.to_string(), ident.span())
        };
        input.parse::<Token![=]>()?;
        let value = input.parse()?;
        Ok(MetaEntryRaw { key, value })
    }
}

#[cfg(test)]
mod tests {
    use quote::{ToTokens, quote};

    use super::*;

    /// The keys of `#[kind(args)]`, and every error message, in order.
    fn parse(kind: Macro, args: TokenStream) -> (ItemAttrs, Vec<String>) {
        let mut errors = Errors::new();
        let attrs = parse_item(kind, args, &mut errors);
        let messages = match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (attrs, messages)
    }

    fn rule(attrs: &ItemAttrs) -> Option<String> {
        attrs.visible_to.as_ref().map(|p| p.to_token_stream().to_string())
    }

    #[test]
    fn visible_to_takes_a_path_on_every_kind() {
        let (tool, errors) = parse(Macro::Tool, quote!(visible_to = rules::staff_only));
        assert_eq!((rule(&tool).as_deref(), errors), (Some("rules :: staff_only"), Vec::<String>::new()));
        let (prompt, errors) = parse(Macro::Prompt, quote!(visible_to = <Rules>::signed_in));
        assert_eq!((rule(&prompt).as_deref(), errors), (Some("< Rules > :: signed_in"), Vec::<String>::new()));
        let (resource, errors) = parse(Macro::Resource, quote!("docs://a", visible_to = self::acme));
        assert_eq!((rule(&resource).as_deref(), errors), (Some("self :: acme"), Vec::<String>::new()));
    }

    #[test]
    fn visible_to_refuses_anything_but_a_path_and_reports_every_fault() {
        let takes = "`visible_to` takes the path of a function `fn(&Viewer<'_>) -> bool`";
        let (attrs, errors) = parse(
            Macro::Tool,
            quote!(visible_to = "admins", visible_to = |_| true, visible_to = 1, visible_to = "not a name", visible_to),
        );
        assert!(attrs.visible_to.is_none());
        assert_eq!(
            errors,
            [
                format!(
                    "{takes}, not a string: write the function that decides, `fn admins(viewer: &Viewer<'_>) -> bool`, and name it, `visible_to = admins`"
                ),
                format!("{takes}, not a closure: the rule is kept in a static, so write it as a `fn` and name it"),
                format!("{takes}, e.g. `visible_to = staff_only`"),
                format!(
                    "{takes}, not a string: write the function that decides, `fn staff_only(viewer: &Viewer<'_>) -> bool`, and name it, `visible_to = staff_only`"
                ),
                "expected `visible_to = path::to::rule`".to_owned(),
            ]
        );
    }

    #[test]
    fn visible_to_given_twice_is_a_duplicate_key() {
        let (attrs, errors) = parse(Macro::Prompt, quote!(visible_to = a, visible_to = b));
        assert_eq!(rule(&attrs).as_deref(), Some("a"));
        assert_eq!(errors, ["duplicate key `visible_to`"]);
    }
}
