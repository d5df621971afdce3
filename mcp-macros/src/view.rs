//! `view` on `#[resource]` (the resource is an interactive view, MCP Apps)
//! and `view = "ui://…"` with `visibility` on `#[tool]` (the tool is bound
//! to one): parsed with their spans, checked by the rules the runtime's
//! builder applies too, and turned into the descriptor's fields.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, ExprLit, Ident, Lit, LitBool, LitStr, Meta};

use mcp_runtime_rules::view::MIME_TYPE;

use crate::errors::Errors;
use crate::keys::{key_name, lit_str, parse_list, unknown_key};

/// The domain lists of `view(...)`, each with the name the rule uses.
const LISTS: [(&str, &str); 4] = [
    ("connect_domains", "connect"),
    ("resource_domains", "resource"),
    ("frame_domains", "frame"),
    ("base_uri_domains", "base-URI"),
];

/// The permissions a view may ask for.
const PERMISSIONS: [&str; 4] = ["camera", "microphone", "geolocation", "clipboard_write"];

/// The values of a tool's `visibility`.
const VISIBILITIES: [(&str, &str); 3] = [("model_and_app", "ModelAndApp"), ("model", "Model"), ("app", "App")];

/// A resource's `view` or `view(...)`.
pub(crate) struct ViewAttrs {
    /// Each domain, with the setter of its list.
    domains: Vec<(&'static str, LitStr)>,
    permissions: Vec<Ident>,
    domain: Option<LitStr>,
    prefers_border: Option<LitBool>,
}

/// Parses `view` or `view(key = ..., ...)`.
pub(crate) fn parse(errors: &mut Errors, item: &Meta) -> Option<ViewAttrs> {
    let mut view = ViewAttrs { domains: Vec::new(), permissions: Vec::new(), domain: None, prefers_border: None };
    let list = match item {
        Meta::Path(_) => return Some(view),
        Meta::List(list) => list,
        Meta::NameValue(nv) => {
            errors.spanned(&nv.value, "expected `view` or `view(connect_domains = [...], prefers_border = true, ...)`");
            return None;
        }
    };
    for setting in errors.collect(parse_list(list.tokens.clone()))? {
        let key = key_name(setting.path());
        if let Some((setter, _)) = LISTS.iter().find(|(name, _)| *name == key) {
            view.domains.extend(domains(errors, &setting).into_iter().map(|domain| (*setter, domain)));
        } else if PERMISSIONS.contains(&key.as_str()) {
            match &setting {
                Meta::Path(path) => view.permissions.extend(path.get_ident().cloned()),
                _ => errors.spanned(&setting, format!("expected `{key}` alone: its presence asks for it")),
            }
        } else if key == "domain" {
            view.domain = lit_str(errors, &setting);
        } else if key == "prefers_border" {
            view.prefers_border = lit_bool(errors, &setting);
        } else {
            let known: Vec<&str> =
                LISTS.iter().map(|(name, _)| *name).chain(PERMISSIONS).chain(["domain", "prefers_border"]).collect();
            unknown_key(errors, "`view(...)`", setting.path(), &known);
        }
    }
    Some(view)
}

fn domains(errors: &mut Errors, item: &Meta) -> Vec<LitStr> {
    let Meta::NameValue(nv) = item else {
        errors.spanned(item, format!("expected `{} = [\"https://...\", ...]`", key_name(item.path())));
        return Vec::new();
    };
    let Expr::Array(array) = &nv.value else {
        errors.spanned(&nv.value, "expected a list of origins: `[\"https://api.example.com\", ...]`");
        return Vec::new();
    };
    let mut found = Vec::new();
    for elem in &array.elems {
        match elem {
            Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => found.push(s.clone()),
            other => {
                errors.spanned(other, "expected an origin as a string literal, e.g. `\"https://api.example.com\"`")
            }
        }
    }
    found
}

fn lit_bool(errors: &mut Errors, item: &Meta) -> Option<LitBool> {
    match item {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => Some(b.clone()),
            other => {
                errors.spanned(other, "expected `true` or `false`");
                None
            }
        },
        _ => {
            errors.spanned(item, format!("expected `{} = true|false`", key_name(item.path())));
            None
        }
    }
}

/// A tool's `visibility = model | app | model_and_app`.
pub(crate) fn visibility(errors: &mut Errors, item: &Meta) -> Option<Ident> {
    const EXPECTED: &str = "expected `visibility = model`, `visibility = app` or `visibility = model_and_app`";
    let Meta::NameValue(nv) = item else {
        errors.spanned(item, EXPECTED);
        return None;
    };
    match &nv.value {
        Expr::Path(path) if path.path.get_ident().is_some_and(|i| VISIBILITIES.iter().any(|(name, _)| i == name)) => {
            path.path.get_ident().cloned()
        }
        other => {
            errors.spanned(other, format!("unknown visibility; {EXPECTED}"));
            None
        }
    }
}

/// The checks of a resource's view: a `ui://` URI that is no template, no
/// MIME type of its own, and origins for domains.
pub(crate) fn check_resource(
    view: &ViewAttrs,
    uri: &LitStr,
    is_template: bool,
    mime: Option<&LitStr>,
    errors: &mut Errors,
) {
    if let Some(reason) = mcp_runtime_rules::view::check_uri(&uri.value()) {
        errors.spanned(uri, reason);
    } else if is_template {
        errors.spanned(uri, "a view is one resource, not a template: give it a URI without `{...}`");
    }
    if let Some(mime) = mime {
        let message = format!("a view's MIME type is `{MIME_TYPE}`, which `view` sets: leave `mime_type` out");
        errors.spanned(mime, message);
    }
    for (setter, domain) in &view.domains {
        let list = LISTS.iter().find(|(name, _)| name == setter).map_or("connect", |(_, list)| *list);
        if let Some(reason) = mcp_runtime_rules::view::check_domain(list, &domain.value()) {
            errors.spanned(domain, reason);
        }
    }
}

/// The checks of a tool's `view` and `visibility`.
pub(crate) fn check_tool(uri: Option<&LitStr>, visibility: Option<&Ident>, errors: &mut Errors) {
    if let Some(uri) = uri
        && let Some(reason) = mcp_runtime_rules::view::check_uri(&uri.value())
    {
        errors.spanned(uri, reason);
    }
    if let (None, Some(visibility)) = (uri, visibility) {
        errors.spanned(visibility, "`visibility` says who a tool bound to a view is for: add `view = \"ui://...\"`");
    }
}

/// The descriptor's `view` of a resource: a function building the settings.
pub(crate) fn resource_view(view: Option<&ViewAttrs>) -> TokenStream {
    let Some(view) = view else { return quote!(::core::option::Option::None) };
    let mut calls = TokenStream::new();
    for (setter, domain) in &view.domains {
        let setter = Ident::new(setter, domain.span());
        calls.extend(quote!(.#setter([#domain])));
    }
    for permission in &view.permissions {
        calls.extend(quote!(.#permission()));
    }
    if let Some(domain) = &view.domain {
        calls.extend(quote!(.domain(#domain)));
    }
    if let Some(border) = &view.prefers_border {
        calls.extend(quote!(.prefers_border(#border)));
    }
    quote! {
        ::core::option::Option::Some({
            fn __view() -> __mcp::View {
                __mcp::View::new() #calls
            }
            __view
        })
    }
}

/// The descriptor's `view` and `visibility` of a tool.
pub(crate) fn tool_view(uri: Option<&LitStr>, visibility: Option<&Ident>) -> (TokenStream, TokenStream) {
    let view = match uri {
        Some(uri) => quote!(::core::option::Option::Some(#uri)),
        None => quote!(::core::option::Option::None),
    };
    let visibility = match visibility.and_then(|v| VISIBILITIES.iter().find(|(name, _)| v == name)) {
        Some((_, variant)) => {
            let variant = Ident::new(variant, Span::call_site());
            quote!(::core::option::Option::Some(__mcp::Visibility::#variant))
        }
        None => quote!(::core::option::Option::None),
    };
    (view, visibility)
}
