//! Reading the `key = value` items of an attribute's arguments: the items
//! themselves, a key's name, the errors for an unknown or repeated key,
//! and a string literal value. Every attribute the crate parses (`#[tool]`
//! and its kin, `view(...)`, `derives(...)`) reads its keys through these.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Meta, Path, Token};

use crate::errors::Errors;

/// Stores `value` in `slot`, or reports a duplicate at the second key.
pub(crate) fn set<T>(errors: &mut Errors, slot: &mut Option<T>, key: &Path, value: Option<T>) {
    let Some(value) = value else { return };
    if slot.is_some() {
        errors.spanned(key, format!("duplicate key `{}`", key_name(key)));
    } else {
        *slot = Some(value);
    }
}

/// The key as written (`annotations`, or a path such as `a::b`).
pub(crate) fn key_name(path: &Path) -> String {
    path.get_ident().map_or_else(|| quote::quote!(#path).to_string().replace(' ', ""), Ident::to_string)
}

/// The unknown-key message, listing the keys that exist.
pub(crate) fn unknown_key(errors: &mut Errors, what: &str, key: &Path, known: &[&str]) {
    errors.spanned(key, format!("unknown key `{}` in {what}; expected one of: {}", key_name(key), known.join(", ")));
}

/// Parses the comma-separated items of an attribute.
pub(crate) fn parse_list(tokens: TokenStream) -> syn::Result<Vec<Meta>> {
    let list = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens)?;
    Ok(list.into_iter().collect())
}

/// The value of a `key = value` item, or an error saying what was expected.
pub(crate) fn value<'a>(errors: &mut Errors, item: &'a Meta, expected: &str) -> Option<&'a Expr> {
    match item {
        Meta::NameValue(nv) => Some(&nv.value),
        _ => {
            errors.spanned(item, format!("expected `{} = {expected}`", key_name(item.path())));
            None
        }
    }
}

/// The string literal of a `key = "..."` item.
pub(crate) fn lit_str(errors: &mut Errors, item: &Meta) -> Option<LitStr> {
    match value(errors, item, "\"...\"")? {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.clone()),
        other => {
            errors.spanned(other, "expected a string literal");
            None
        }
    }
}
