//! Doc comments: the default description of a function or a parameter.
//!
//! The `#[doc]` values are kept as expressions (so `#[doc =
//! include_str!("...")]` works) and processed at run time by the runtime's
//! `description`, which applies clap's paragraph rules.

use syn::{Attribute, Expr, Meta};

/// The values of the `#[doc = ...]` attributes among `attrs`.
pub(crate) fn doc_values(attrs: &[Attribute]) -> Vec<Expr> {
    attrs.iter().filter_map(doc_value).collect()
}

pub(crate) fn doc_value(attr: &Attribute) -> Option<Expr> {
    match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("doc") => Some(nv.value.clone()),
        _ => None,
    }
}

pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}
