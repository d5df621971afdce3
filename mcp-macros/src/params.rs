//! Parameter attributes (`#[arg(...)]`, `#[ctx]`, doc comments) and the rule
//! that decides whether a parameter is a context parameter or an argument.
//!
//! The rule is syntactic so that a reader can predict it, and the macro then
//! verifies it with trait bounds: a parameter is *context* when it is marked
//! `#[ctx]`, or when it is not marked `#[arg]` and its type (behind at most
//! one `&`) ends in one of [`CONTEXT_TYPES`], or is an `Option` of one of
//! [`OPTIONAL_CONTEXT_TYPES`]; every other parameter is an
//! *argument* (a JSON property of a tool, an argument of a prompt, a variable
//! of a resource template).

use syn::{Attribute, Expr, LitStr, Meta, Type};

use crate::attr::{Macro, expr, key_name, lit_str, parse_list, set, unknown_key};
use crate::docs;
use crate::errors::Errors;

/// The runtime's context types, recognised by the last segment of their path.
pub(crate) const CONTEXT_TYPES: &[&str] =
    &["RequestContext", "RequestMeta", "State", "CancellationToken", "Progress", "Logger", "Input", "Extension"];

/// The context types the runtime also extracts as an `Option` (absent when
/// the request has none), as axum's handlers take `Option<Extension<T>>`.
/// Only these: `Option<State<T>>` stays an argument the compiler refuses,
/// rather than becoming a context parameter that does not exist.
pub(crate) const OPTIONAL_CONTEXT_TYPES: &[&str] = &["Extension"];

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
                    crate::attr::key_name(attr.path()),
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
    if CONTEXT_TYPES.iter().any(|c| last.ident == c) {
        return true;
    }
    let inner = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if last.ident == "Option" && args.args.len() == 1 => &args.args[0],
        _ => return false,
    };
    match inner {
        syn::GenericArgument::Type(inner) => {
            last_segment(inner).is_some_and(|s| OPTIONAL_CONTEXT_TYPES.iter().any(|c| s.ident == c))
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
    use super::is_context_type;

    fn context(ty: &str) -> bool {
        is_context_type(&syn::parse_str(ty).expect("a type"))
    }

    #[test]
    fn extensions_are_context_alone_or_optional() {
        assert!(context("Extension<User>"));
        assert!(context("mcp_runtime::Extension<User>"));
        assert!(context("Option<Extension<User>>"));
        assert!(context("&Option<mcp_runtime::Extension<User>>"));
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
