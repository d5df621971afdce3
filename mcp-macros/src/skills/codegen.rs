//! The expression `skills!` expands to, generated from the checked model
//! alone: it cannot fail.

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use super::model::Embedded;

/// `Skills::__embedded` over a static table of the skills and their files,
/// every path absolute (`::mcp_runtime`, `::core`), so the call site needs
/// no `use` and a shadowed name cannot change its meaning.
pub(super) fn generate(embedded: &Embedded) -> TokenStream {
    let skills = embedded.skills.iter().map(|skill| {
        let path = &skill.path;
        let files = skill.files.iter().map(|file| {
            let path = &file.path;
            // An absolute path: `include_bytes!` puts the file in the
            // crate's dependency info, so cargo rebuilds when it changes.
            let full = LitStr::new(&file.full, embedded.span);
            quote! {
                ::mcp_runtime::skills::EmbeddedFile { path: #path, bytes: ::core::include_bytes!(#full) }
            }
        });
        quote! {
            ::mcp_runtime::skills::EmbeddedSkill { path: #path, files: &[#(#files),*] }
        }
    });
    // A `static`: the nested `&[...]` of its initializer live for
    // `'static`, which `__embedded` asks for, with no reliance on the
    // promotion of temporaries in an expression.
    quote! {{
        static SKILLS: &[::mcp_runtime::skills::EmbeddedSkill] = &[#(#skills),*];
        ::mcp_runtime::skills::Skills::__embedded(SKILLS)
    }}
}
