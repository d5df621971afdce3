//! Parameter attributes (`#[arg(...)]`, `#[ctx]`, doc comments) and the rule
//! that decides whether a parameter is a context parameter or an argument.
//!
//! The rule is syntactic so that a reader can predict it, and the macro then
//! verifies it with trait bounds: a parameter is *context* when it is marked
//! `#[ctx]`, or when it is not marked `#[arg]` and its type (behind at most
//! one `&`) ends in one of `mcp_runtime_rules::context::CONTEXT_TYPES`, or
//! is an `Option` of one of `OPTIONAL_CONTEXT_TYPES`; every other parameter is an
//! *argument* (a JSON property of a tool, an argument of a prompt, a variable
//! of a resource template).

use mcp_runtime_rules::context;
use syn::{Attribute, Expr, LitStr, Meta, Type};

use crate::attr::{Macro, expr};
use crate::docs;
use crate::errors::Errors;
use crate::keys::{key_name, lit_str, parse_list, set, unknown_key};

/// How a parameter was explicitly marked.
#[derive(Clone, Copy)]
pub(crate) enum Marker {
    /// `#[arg]` or `#[arg(...)]`.
    Arg,
    /// `#[ctx]`.
    Ctx,
}

/// Our attributes on one parameter.
#[derive(Default)]
pub(crate) struct ParamAttrs {
    pub(crate) marker: Option<Marker>,
    pub(crate) description: Option<LitStr>,
    pub(crate) docs: Vec<Expr>,
    pub(crate) default: Option<Expr>,
    pub(crate) rename: Option<LitStr>,
    pub(crate) header: Option<LitStr>,
    pub(crate) complete: Option<Expr>,
    pub(crate) title: Option<LitStr>,
}

fn keys(kind: Macro) -> &'static [&'static str] {
    match kind {
        Macro::Tool => &["description", "default", "rename", "header"],
        Macro::Prompt => &["description", "title", "default", "rename", "complete"],
        Macro::Resource => &["rename", "complete"],
    }
}

/// Whether `attr` is one the macro consumes (and removes from the function).
/// `cfg` and `cfg_attr` are taken too, only to be refused.
pub(crate) fn is_ours(attr: &Attribute) -> bool {
    ["arg", "ctx", "cfg", "cfg_attr"].iter().any(|name| attr.path().is_ident(name)) || docs::is_doc(attr)
}

/// Reads our attributes of one parameter.
pub(crate) fn parse(kind: Macro, attrs: &[Attribute], errors: &mut Errors) -> ParamAttrs {
    let mut out = ParamAttrs::default();
    for attr in attrs {
        if let Some(doc) = docs::doc_value(attr) {
            out.docs.push(doc);
            continue;
        }
        if attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr") {
            // The macro runs before `cfg` is applied: the generated call
            // would pass an argument the compiled function may not take.
            errors.spanned(
                attr,
                format!(
                    "`#[{}]` on a parameter is not supported by `#[{}]`: make the whole function conditional instead",
                    key_name(attr.path()),
                    kind.name()
                ),
            );
            continue;
        }
        let is_arg = attr.path().is_ident("arg");
        if !is_arg && !attr.path().is_ident("ctx") {
            continue;
        }
        let marker = if is_arg { Marker::Arg } else { Marker::Ctx };
        match (out.marker, marker) {
            (Some(Marker::Arg), Marker::Arg) => {
                errors.spanned(attr, "duplicate `#[arg]`: put every key in one `#[arg(...)]`");
            }
            (Some(Marker::Ctx), Marker::Ctx) => errors.spanned(attr, "duplicate `#[ctx]`"),
            (Some(_), _) => errors.spanned(
                attr,
                "a parameter is either an argument (`#[arg]`) or a context parameter (`#[ctx]`), not both",
            ),
            (None, _) => out.marker = Some(marker),
        }
        match (&attr.meta, is_arg) {
            (Meta::Path(_), _) => {}
            (Meta::List(list), true) => {
                let Some(items) = errors.collect(parse_list(list.tokens.clone())) else { continue };
                for item in &items {
                    arg_key(kind, item, &mut out, errors);
                }
            }
            (_, true) => errors.spanned(attr, "expected `#[arg]` or `#[arg(key = value, ...)]`"),
            (_, false) => errors.spanned(attr, "`#[ctx]` takes no arguments"),
        }
    }
    out
}

fn arg_key(kind: Macro, item: &Meta, out: &mut ParamAttrs, errors: &mut Errors) {
    let key = item.path();
    let name = key_name(key);
    if !keys(kind).contains(&name.as_str()) {
        let hint = match name.as_str() {
            "header" => Some("`header` applies to tool arguments only"),
            "complete" => Some("`complete` applies to prompt arguments and resource template variables only"),
            "title" => Some("`title` applies to prompt arguments only"),
            "description" | "default" => Some("URI template variables take no description or default"),
            _ => None,
        };
        match hint {
            Some(hint) => errors.spanned(key, hint),
            None => unknown_key(errors, "`#[arg(...)]`", key, keys(kind)),
        }
        return;
    }
    match name.as_str() {
        "description" => {
            let v = lit_str(errors, item);
            set(errors, &mut out.description, key, v);
        }
        "title" => {
            let v = lit_str(errors, item);
            set(errors, &mut out.title, key, v);
        }
        "rename" => {
            let v = lit_str(errors, item);
            set(errors, &mut out.rename, key, v);
        }
        "header" => {
            let v = lit_str(errors, item);
            set(errors, &mut out.header, key, v);
        }
        "default" => {
            let v = expr(errors, item);
            set(errors, &mut out.default, key, v);
        }
        "complete" => {
            let v = expr(errors, item);
            set(errors, &mut out.complete, key, v);
        }
        _ => unknown_key(errors, "`#[arg(...)]`", key, keys(kind)),
    }
}

/// Whether an unmarked parameter of type `ty` is a context parameter.
pub(crate) fn is_context_type(ty: &Type) -> bool {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    let Some(last) = last_segment(ty) else { return false };
    if context::is_context_type(&last.ident.to_string()) {
        return true;
    }
    let inner = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if last.ident == "Option" && args.args.len() == 1 => &args.args[0],
        _ => return false,
    };
    match inner {
        syn::GenericArgument::Type(inner) => {
            last_segment(inner).is_some_and(|s| context::is_optional_context_type(&s.ident.to_string()))
        }
        _ => false,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use mcp_runtime_rules::context::{CONTEXT_TYPES, OPTIONAL_CONTEXT_TYPES};

    use super::is_context_type;

    /// The first column of the table of context types in the macros' docs,
    /// without generics: `Option<Extension<T>>` reads `Option<Extension>`.
    fn documented_context_types() -> Vec<String> {
        let doc = include_str!("../doc/parameters.md");
        let table = doc.split("| type | what it gives |").nth(1).expect("the table of context types");
        table
            .lines()
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|line| {
                let cell = line.split('|').nth(1).expect("a first cell").trim().trim_matches('`');
                match cell.strip_prefix("Option<") {
                    Some(inner) => format!("Option<{}>", inner.split(['<', '>']).next().unwrap_or(inner)),
                    None => cell.split('<').next().unwrap_or(cell).to_owned(),
                }
            })
            .collect()
    }

    #[test]
    fn the_documented_context_types_are_the_rule() {
        let mut documented = documented_context_types();
        let mut rule: Vec<String> = CONTEXT_TYPES.iter().map(|t| (*t).to_owned()).collect();
        rule.extend(OPTIONAL_CONTEXT_TYPES.iter().map(|t| format!("Option<{t}>")));
        documented.sort();
        rule.sort();
        assert_eq!(documented, rule, "doc/parameters.md lists other context types than the rule");
    }

    #[test]
    fn every_type_of_the_rule_is_context() {
        for name in CONTEXT_TYPES {
            assert!(context(name), "{name}");
        }
        for name in OPTIONAL_CONTEXT_TYPES {
            assert!(context(&format!("Option<{name}<T>>")), "{name}");
        }
    }

    fn context(ty: &str) -> bool {
        is_context_type(&syn::parse_str(ty).expect("a type"))
    }

    #[test]
    fn extensions_are_context_alone_or_optional() {
        assert!(context("Extension<User>"));
        assert!(context("mcp_runtime::extract::Extension<User>"));
        assert!(context("Option<Extension<User>>"));
        assert!(context("&Option<mcp_runtime::extract::Extension<User>>"));
    }

    #[test]
    fn only_extensions_are_context_inside_an_option() {
        assert!(context("State<Db>"));
        assert!(!context("Option<State<Db>>"));
        assert!(!context("Option<String>"));
        assert!(!context("Vec<Extension<User>>"));
        assert!(!context("Option<Vec<Extension<User>>>"));
    }
}
