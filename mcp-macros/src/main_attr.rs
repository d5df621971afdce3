//! `#[main]` and `#[test]`: tokio's `#[tokio::main]` and `#[tokio::test]`,
//! reached through the runtime's re-export of tokio, so a server and its
//! tests need no tokio dependency of their own.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ItemFn;

use crate::attr::crate_path;
use crate::errors::Errors;
use crate::keys::{key_name, parse_list};

/// Which of tokio's attributes to put on the function.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `#[tokio::main]`.
    Main,
    /// `#[tokio::test]`.
    Test,
}

impl Entry {
    /// tokio's attribute, as named under its crate root.
    fn tokio_attribute(self) -> TokenStream {
        match self {
            Entry::Main => quote!(main),
            Entry::Test => quote!(test),
        }
    }
}

/// Expands `#[main(args)]` or `#[test(args)]` on `item`: every argument but
/// `crate = path` is tokio's (`flavor`, `worker_threads`, ...) and passed on
/// unchanged.
pub(crate) fn expand(entry: Entry, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    match (entry, syn::parse2::<ItemFn>(item.clone())) {
        (Entry::Main, Err(_)) => errors.at(Span::call_site(), "`#[mcp_runtime::main]` goes on `async fn main()`"),
        (Entry::Test, Err(_)) => errors.at(Span::call_site(), "`#[mcp_runtime::test]` goes on an `async fn`"),
        // tokio would say "the `async` keyword is missing from the function
        // declaration"; this says which attribute fits instead.
        (Entry::Test, Ok(f)) if f.sig.asyncness.is_none() => errors.spanned(
            f.sig.fn_token,
            "`#[mcp_runtime::test]` runs an `async fn` on a tokio runtime: write `async fn`, or use `#[test]` for a test that awaits nothing",
        ),
        (_, Ok(_)) => {}
    }
    let mut krate = None;
    let mut logging = None;
    let mut tokio_args = Vec::new();
    match parse_list(args) {
        Ok(metas) => {
            for meta in metas {
                if key_name(meta.path()) == "crate" {
                    krate = crate_path(&mut errors, &meta);
                } else if key_name(meta.path()) == "logging" {
                    match (&meta, entry) {
                        (syn::Meta::Path(path), Entry::Main) => logging = Some(path.clone()),
                        (syn::Meta::Path(path), Entry::Test) => errors.spanned(
                            path,
                            "`logging` is `#[mcp_runtime::main]`'s: a test sets logs up with `mcp_runtime::logging::init()`",
                        ),
                        _ => errors.spanned(&meta, "`logging` takes no value: write `#[mcp_runtime::main(logging)]`"),
                    }
                } else {
                    tokio_args.push(meta);
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
    // Logs are set up before anything of `main` runs, inside the runtime.
    let item = match (logging, syn::parse2::<ItemFn>(item.clone())) {
        (Some(flag), Ok(mut f)) => {
            let init = quote::quote_spanned!(syn::spanned::Spanned::span(&flag)=> #root::logging::init_for_main(););
            f.block.stmts.insert(0, syn::parse_quote!(#init));
            f.into_token_stream()
        }
        _ => item,
    };
    // tokio's `crate` key takes the path as a string.
    let tokio_path = format!("{}::tokio", root.to_token_stream()).replace(' ', "");
    let attribute = entry.tokio_attribute();
    quote! {
        #[#root::tokio::#attribute(crate = #tokio_path #(, #tokio_args)*)]
        #item
    }
}
