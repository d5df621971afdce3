//! The internal model of an annotated function: what the generator needs,
//! with the spans errors point at. Built from the syntax by [`build`], which
//! reports what rustc cannot express (receivers, generics, `impl Trait`,
//! nameless arguments) at the offending token.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Expr, FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Type};

use crate::attr::{ItemAttrs, Macro};
use crate::errors::Errors;
use crate::params::{self, Marker, ParamAttrs};

/// An annotated function.
pub(crate) struct Handler {
    pub(crate) kind: Macro,
    /// The function as it will be emitted (our parameter attributes removed).
    pub(crate) item: ItemFn,
    pub(crate) attrs: ItemAttrs,
    /// The name clients see, and where to point at when it is wrong.
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) docs: Vec<Expr>,
    pub(crate) params: Vec<Param>,
    /// The return type (`()` when none is written).
    pub(crate) ret: Type,
}

/// One parameter, in order.
pub(crate) struct Param {
    pub(crate) index: usize,
    pub(crate) role: Role,
}

/// What a parameter is.
#[allow(clippy::large_enum_variant, reason = "a few per function, built once per expansion")]
pub(crate) enum Role {
    /// Extracted from the request; `ty` has any `&`/`&mut` removed.
    /// `by_name`: unmarked, and context only because of its type's name.
    Context { ty: Type, pass: Pass, by_name: bool },
    /// A JSON property, prompt argument or template variable.
    Argument(Argument),
}

/// How a context value is handed to the function.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    Value,
    Ref,
    RefMut,
}

/// Where a description comes from.
pub(crate) enum Description {
    None,
    Docs(Vec<Expr>),
    Explicit(LitStr),
}

pub(crate) struct Argument {
    pub(crate) ty: Type,
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) description: Description,
    pub(crate) default: Option<Expr>,
    pub(crate) header: Option<LitStr>,
    pub(crate) complete: Option<Expr>,
    pub(crate) title: Option<LitStr>,
}

/// Removes the attributes the macro consumes from the parameters, so the
/// function can be emitted as written whatever else goes wrong; returns
/// them, in parameter order.
pub(crate) fn strip_param_attrs(item: &mut ItemFn) -> Vec<Vec<syn::Attribute>> {
    item.sig
        .inputs
        .iter_mut()
        .map(|arg| {
            let attrs = match arg {
                FnArg::Typed(t) => &mut t.attrs,
                FnArg::Receiver(r) => &mut r.attrs,
            };
            let (ours, theirs) = std::mem::take(attrs).into_iter().partition(params::is_ours);
            *attrs = theirs;
            ours
        })
        .collect()
}

/// The wire name of an identifier (`r#type` is `type`).
pub(crate) fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// Builds the model, reporting every problem of the signature.
pub(crate) fn build(
    kind: Macro,
    attrs: ItemAttrs,
    item: ItemFn,
    param_attrs: Vec<ParamAttrs>,
    errors: &mut Errors,
) -> Handler {
    let sig = &item.sig;
    let what = format!("`#[{}]`", kind.name());
    if let syn::Safety::Unsafe(token) = &sig.safety {
        errors.spanned(token, format!("{what} cannot call an `unsafe fn`: wrap the unsafe code in a safe function"));
    }
    if let (true, Some(clause)) = (sig.generics.params.is_empty(), &sig.generics.where_clause) {
        errors.spanned(clause, format!("{what} functions cannot have a `where` clause: they take concrete types"));
    } else if !sig.generics.params.is_empty() {
        errors.spanned(
            &sig.generics,
            format!(
                "{what} functions cannot be generic: schemas and the generated adapter need concrete types (lifetimes included)"
            ),
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.spanned(variadic, format!("{what} functions cannot be variadic"));
    }

    let mut params = Vec::new();
    for (index, (arg, attrs)) in sig.inputs.iter().zip(param_attrs).enumerate() {
        match arg {
            FnArg::Receiver(r) => errors.spanned(
                r,
                format!("{what} goes on free functions: a `self` parameter is not allowed (move the function out of the `impl` block)"),
            ),
            FnArg::Typed(t) => {
                if let Some(role) = role(kind, &t.pat, &t.ty, attrs, errors) {
                    params.push(Param { index, role });
                }
            }
        }
    }

    let ret = match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => {
            if let Type::Never(never) = &**ty {
                errors.spanned(never, format!("{what} functions must return a value: `!` never does"));
            } else if let Some(token) = find_borrow(ty) {
                errors.at(
                    token,
                    format!("{what} functions return owned values: a borrow cannot outlive the call; return `String` (or a `&'static str`)"),
                );
            }
            if let Some(token) = find_impl(ty) {
                errors.at(
                    token,
                    format!("{what} functions must return a nameable type: the schema and conversion are chosen from it; replace `impl Trait` with the concrete type"),
                );
            }
            (**ty).clone()
        }
    };

    let (name, name_span) = match &attrs.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (unraw(&sig.ident), sig.ident.span()),
    };
    let docs = crate::docs::doc_values(&item.attrs);
    Handler { kind, item, attrs, name, name_span, docs, params, ret }
}

fn role(kind: Macro, pat: &Pat, ty: &Type, attrs: ParamAttrs, errors: &mut Errors) -> Option<Role> {
    let what = format!("`#[{}]`", kind.name());
    let is_context = match attrs.marker {
        Some(Marker::Ctx) => true,
        Some(Marker::Arg) => false,
        None => params::is_context_type(ty),
    };
    if let Some(token) = find_impl(ty) {
        errors
            .at(token, format!("`impl Trait` parameters make the function generic; {what} needs a concrete type here"));
        return None;
    }
    if is_context {
        // A doc comment on a context parameter documents the source only:
        // clients never see context parameters.
        let (inner, pass) = match ty {
            Type::Reference(r) => ((*r.elem).clone(), if r.mutability.is_some() { Pass::RefMut } else { Pass::Ref }),
            other => (other.clone(), Pass::Value),
        };
        if let Type::Reference(r) = &inner {
            errors.spanned(r, "context parameters are taken by value or by one reference (`&RequestContext`)");
            return None;
        }
        if let Type::Reference(syn::TypeReference { lifetime: Some(lifetime), .. }) = ty {
            errors.spanned(
                lifetime,
                "a context parameter is lent for the call only: write the reference without a lifetime (`&RequestContext`)",
            );
            return None;
        }
        return Some(Role::Context { ty: inner, pass, by_name: attrs.marker.is_none() });
    }

    if let Some(amp) = find_reference(ty) {
        errors.at(
            amp,
            "arguments are deserialized into owned values: use `String` instead of `&str`, `Vec<T>` instead of `&[T]`",
        );
        return None;
    }
    if let Some(lifetime) = find_borrow(ty) {
        errors.at(
            lifetime,
            "arguments are deserialized into owned values: a borrow cannot outlive the request; use `String` instead of `Cow<'_, str>`",
        );
        return None;
    }
    let (name, name_span) = match (&attrs.rename, pat) {
        (Some(lit), _) => (lit.value(), lit.span()),
        (None, Pat::Ident(p)) if p.subpat.is_none() => (unraw(&p.ident), p.ident.span()),
        (None, other) => {
            errors.spanned(
                other,
                "this argument has no name for clients: bind it to an identifier (`query: String`), or name it with `#[arg(rename = \"...\")]`",
            );
            return None;
        }
    };
    if name.is_empty() {
        errors.at(name_span, "an argument name cannot be empty");
        return None;
    }
    let description = match (attrs.description, attrs.docs.is_empty()) {
        (Some(lit), _) => Description::Explicit(lit),
        (None, false) => Description::Docs(attrs.docs),
        (None, true) => Description::None,
    };
    Some(Role::Argument(Argument {
        ty: ty.clone(),
        name,
        name_span,
        description,
        default: attrs.default,
        header: attrs.header,
        complete: attrs.complete,
        title: attrs.title,
    }))
}

/// The span of the first `impl` keyword in a type, if any.
fn find_impl(ty: &Type) -> Option<Span> {
    find_token(ty.to_token_stream(), &|t| matches!(t, TokenTree::Ident(i) if i == "impl"))
}

/// The span of the first `&` in a type, if any.
fn find_reference(ty: &Type) -> Option<Span> {
    find_token(ty.to_token_stream(), &|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '&'))
}

/// The span of the first borrow in a type that is not `'static`: a `&`
/// without a lifetime, or a lifetime other than `'static`.
fn find_borrow(ty: &Type) -> Option<Span> {
    fn walk(tokens: TokenStream) -> Option<Span> {
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match &token {
                TokenTree::Group(g) => {
                    if let Some(span) = walk(g.stream()) {
                        return Some(span);
                    }
                }
                TokenTree::Punct(p) if p.as_char() == '&' => {
                    let is_static = matches!(tokens.peek(), Some(TokenTree::Punct(q)) if q.as_char() == '\'') && {
                        tokens.next();
                        matches!(tokens.peek(), Some(TokenTree::Ident(i)) if i == "static")
                    };
                    if !is_static {
                        return Some(p.span());
                    }
                }
                TokenTree::Punct(p) if p.as_char() == '\'' => {
                    if matches!(tokens.peek(), Some(TokenTree::Ident(i)) if i != "static") {
                        return Some(p.span());
                    }
                }
                _ => {}
            }
        }
        None
    }
    walk(ty.to_token_stream())
}

fn find_token(tokens: TokenStream, hit: &dyn Fn(&TokenTree) -> bool) -> Option<Span> {
    tokens.into_iter().find_map(|t| match &t {
        TokenTree::Group(g) => find_token(g.stream(), hit),
        t if hit(t) => Some(t.span()),
        _ => None,
    })
}

impl Handler {
    pub(crate) fn arguments(&self) -> impl Iterator<Item = (usize, &Argument)> {
        self.params.iter().filter_map(|p| match &p.role {
            Role::Argument(a) => Some((p.index, a)),
            Role::Context { .. } => None,
        })
    }

    pub(crate) fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    pub(crate) fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }
}
