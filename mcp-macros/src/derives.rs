//! `#[derives(...)]`: `#[derive(...)]` whose `Serialize`, `Deserialize` and
//! `JsonSchema` come from the runtime's re-exports of serde and schemars,
//! with the `crate` attributes those derives need when serde and schemars are
//! not dependencies of the user's crate.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Meta};

use crate::attr::crate_path;
use crate::errors::Errors;
use crate::keys::{key_name, parse_list};

/// Expands `#[derives(...)]` on `item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    if syn::parse2::<DeriveInput>(item.clone()).is_err() {
        errors.at(proc_macro2::Span::call_site(), "`#[mcp_runtime::derives(...)]` goes on a struct or an enum");
    }
    let mut krate = None;
    let mut names = Vec::new();
    match parse_list(args) {
        Ok(metas) => {
            for meta in metas {
                match meta {
                    Meta::Path(path) => names.push(path),
                    other if key_name(other.path()) == "crate" => krate = crate_path(&mut errors, &other),
                    other => {
                        errors.spanned(&other, "expected a trait to derive, e.g. `Deserialize`, or `crate = path`")
                    }
                }
            }
        }
        Err(e) => errors.push(e),
    }
    if let Err(error) = errors.finish() {
        let error = error.to_compile_error();
        return quote!(#error #item);
    }
    let root = crate::codegen::runtime(krate.as_ref());
    let (mut serde, mut schemars) = (false, false);
    let derives: Vec<TokenStream> = names
        .iter()
        .map(|path| {
            let span = path.span();
            match key_name(path).as_str() {
                "Serialize" => {
                    serde = true;
                    quote_spanned!(span=> #root::serde::Serialize)
                }
                "Deserialize" => {
                    serde = true;
                    quote_spanned!(span=> #root::serde::Deserialize)
                }
                "JsonSchema" => {
                    schemars = true;
                    quote_spanned!(span=> #root::schemars::JsonSchema)
                }
                // Anything else (`Debug`, `Clone`, a path) is derived as written.
                _ => quote!(#path),
            }
        })
        .collect();
    // Both derives take the crate path as a string.
    let serde_attr = serde.then(|| {
        let path = format!("{root}::serde").replace(' ', "");
        quote!(#[serde(crate = #path)])
    });
    let schemars_attr = schemars.then(|| {
        let path = format!("{root}::schemars").replace(' ', "");
        quote!(#[schemars(crate = #path)])
    });
    quote! {
        #[derive(#(#derives),*)]
        #serde_attr
        #schemars_attr
        #item
    }
}
