//! `#[main]`: tokio's `#[tokio::main]`, reached through the runtime's
//! re-export of tokio, so a server's `main` needs no tokio dependency of
//! its own.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::attr::{crate_path, key_name, parse_list};
use crate::errors::Errors;

/// Expands `#[main(args)]` on `item`: every argument but `crate = path` is
/// tokio's (`flavor`, `worker_threads`, ...) and passed on unchanged.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::new();
    if syn::parse2::<ItemFn>(item.clone()).is_err() {
        errors.at(proc_macro2::Span::call_site(), "`#[mcp_runtime::main]` goes on `async fn main()`");
    }
    let mut krate = None;
    let mut tokio_args = Vec::new();
    match parse_list(args) {
        Ok(metas) => {
            for meta in metas {
                if key_name(meta.path()) == "crate" {
                    krate = crate_path(&mut errors, &meta);
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
    // tokio's `crate` key takes the path as a string.
    let tokio_path = format!("{}::tokio", root).replace(' ', "");
    quote! {
        #[#root::tokio::main(crate = #tokio_path #(, #tokio_args)*)]
        #item
    }
}
