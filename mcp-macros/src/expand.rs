//! The pipeline shared by the three macros: parse → build and check the
//! model → generate, stopping between stages when a stage reported errors,
//! with [`fallback`](crate::fallback) output on error.

use proc_macro2::TokenStream;
use syn::ItemFn;

use crate::attr::{self, Macro};
use crate::errors::Errors;
use crate::{check, codegen, fallback, model, params};

/// Expands `#[tool]`, `#[prompt]` or `#[resource]` on `item`.
pub(crate) fn expand(kind: Macro, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func = match syn::parse2::<ItemFn>(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            let message =
                format!("`#[{0}]` goes on a function, e.g. `#[{0}] async fn name(arg: String) -> String`", kind.name());
            let error = syn::Error::new(proc_macro2::Span::call_site(), message).to_compile_error();
            return quote::quote!(#item #error);
        }
    };
    let ours = model::strip_param_attrs(&mut func);
    let output = match expand_fn(kind, args, func.clone(), ours) {
        Ok(tokens) => tokens,
        Err((error, krate)) => fallback::output(kind, Some(&func), krate.as_ref(), &error),
    };
    debug_dump(&func, &output);
    output
}

type Failure = (syn::Error, Option<syn::Path>);

fn expand_fn(
    kind: Macro,
    args: TokenStream,
    func: ItemFn,
    param_attrs: Vec<Vec<syn::Attribute>>,
) -> Result<TokenStream, Failure> {
    // Stage 1: attributes.
    let mut errors = Errors::new();
    let attrs = attr::parse_item(kind, args, &mut errors);
    let krate = attrs.krate.clone();
    let param_attrs: Vec<_> = param_attrs.iter().map(|a| params::parse(kind, a, &mut errors)).collect();
    errors.finish().map_err(|e| (e, krate.clone()))?;

    // Stage 2: the model and its checks.
    let mut errors = Errors::new();
    let handler = model::build(kind, attrs, func, param_attrs, &mut errors);
    check::check(&handler, &mut errors);
    errors.finish().map_err(|e| (e, krate))?;

    // Stage 3: code, which cannot fail.
    Ok(codegen::generate(&handler))
}

/// `MCP_MACROS_DEBUG=1` (or the function's name) prints the expansion to
/// stderr while compiling.
fn debug_dump(func: &ItemFn, output: &TokenStream) {
    if let Ok(filter) = std::env::var("MCP_MACROS_DEBUG")
        && (filter == "1" || func.sig.ident == filter)
    {
        eprintln!("// expansion of `{}`\n{output}", func.sig.ident);
    }
}
