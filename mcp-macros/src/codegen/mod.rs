//! Code generation from a checked [`Handler`]. Infallible: everything that
//! can be wrong was reported before.
//!
//! The output is the user's function, untouched, then beside it:
//!
//! - a hidden braced struct named after the function (the proxy that
//!   `tools![f]` names; it lives in the type namespace, so it never clashes
//!   with the function);
//! - `const _: () = { ... };` holding one *slot* function per parameter and
//!   one for the return type (the only places trait bounds are checked, each
//!   spanned on its type), the adapter, the definition builder, and the
//!   static descriptor registered in the runtime's distributed slice.
//!
//! Every path is absolute (`::mcp_runtime::__private::...`, or the
//! `crate = ...` override) and every std item is spelled from `::core` or
//! `::std`, so shadowed prelude names cannot capture generated code.

mod parts;
mod prompt;
mod resource;
mod tool;

use proc_macro2::TokenStream;
use quote::quote;

pub(crate) use self::parts::{cfgs, proxy, root, runtime};
use crate::attr::Macro;
use crate::model::Handler;

/// Generates everything for a checked handler.
pub(crate) fn generate(handler: &Handler) -> TokenStream {
    let item = &handler.item;
    let proxy = proxy(handler.kind, &handler.item.vis, handler.ident());
    let body = match handler.kind {
        Macro::Tool => tool::generate(handler),
        Macro::Prompt => prompt::generate(handler),
        Macro::Resource => resource::generate(handler),
    };
    let root = root(handler.attrs.krate.as_ref());
    let cfgs = cfgs(item);
    quote! {
        #item

        #(#cfgs)*
        #proxy

        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code, deprecated, unused_qualifications, clippy::all, clippy::pedantic)]
        const _: () = {
            use #root as __mcp;
            #body
        };
    }
}
