//! The output when the input has mistakes: the function as written (minus
//! our parameter attributes), the errors, and inert stand-ins for what other
//! code may name (the proxy struct and its item impl), so that one mistake
//! gives one error and not a cascade of "cannot find" errors.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ItemFn, Path};

use crate::attr::Macro;
use crate::codegen;

pub(crate) fn output(kind: Macro, item: Option<&ItemFn>, krate: Option<&Path>, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    let Some(item) = item else { return errors };
    if item.sig.receiver().is_some() {
        // A method sits in an `impl` block, where a struct or `const _` would
        // be a second error; the function alone is all that fits there.
        return quote!(#item #errors);
    }
    let ident = &item.sig.ident;
    let proxy = codegen::proxy(kind, &item.vis, ident);
    let root = codegen::root(krate);
    let (item_trait, descriptor_ty, fallback) = match kind {
        Macro::Tool => (quote!(ToolItem), quote!(ToolDescriptor), quote!(TOOL)),
        Macro::Prompt => (quote!(PromptItem), quote!(PromptDescriptor), quote!(PROMPT)),
        Macro::Resource => (quote!(ResourceItem), quote!(ResourceDescriptor), quote!(RESOURCE)),
    };
    let cfgs = codegen::cfgs(item);
    quote! {
        #item
        #errors
        #(#cfgs)*
        #proxy
        #(#cfgs)*
        const _: () = {
            impl #root::#item_trait for #ident {
                fn descriptor() -> &'static #root::#descriptor_ty {
                    &#root::fallback::#fallback
                }
            }
        };
    }
}
