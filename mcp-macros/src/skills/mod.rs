//! `skills!("dir")`: a directory of skills embedded in the binary, checked
//! while compiling. Three stages, as for the attribute macros: the input
//! is parsed into the path literal and the directory it names
//! ([`input`]), the directory is walked and checked into the skills and
//! files to embed ([`model`]), and the expression is generated from those
//! alone ([`codegen`], which cannot fail).
//!
//! The walk and its rules are `mcp_runtime_rules::skill::scan`, the one a
//! server makes of a directory read at run time, so an embedded tree and
//! the same tree read from disk are served alike.

mod codegen;
mod input;
mod model;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;

/// Expands `skills!(tokens)` invoked from `invoking_file` (`None` when the
/// compiler cannot tell, e.g. in an IDE: relative paths then resolve
/// against `CARGO_MANIFEST_DIR`).
pub(crate) fn expand(tokens: TokenStream, invoking_file: Option<PathBuf>) -> TokenStream {
    // Where a relative path starts, like `include_bytes!`: the invoking
    // file's directory. The manifest's directory is the best guess left.
    let base = match invoking_file {
        Some(file) => file.parent().map(PathBuf::from),
        None => std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from),
    };
    let output = expand_from(tokens, base).unwrap_or_else(|error| fallback(&error));
    debug_dump(&output);
    output
}

/// The pipeline, with relative paths resolved against `base`.
fn expand_from(tokens: TokenStream, base: Option<PathBuf>) -> syn::Result<TokenStream> {
    let dir = syn::parse2::<input::SkillsInput>(tokens)?.resolve(base.as_deref())?;
    let embedded = model::Embedded::scan(&dir)?;
    Ok(codegen::generate(&embedded))
}

/// The output on error: the errors, then a `Skills` with nothing in it, so
/// that `let s: Skills = skills!("bad")` or `.skills(skills!("bad"))`
/// reports the mistake alone and not also "expected `Skills`, found `()`".
fn fallback(error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {{
        #errors
        ::mcp_runtime::skills::Skills::__embedded(&[])
    }}
}

/// `MCP_MACROS_DEBUG=1` (or `skills`) prints the expansion to stderr while
/// compiling, as for the attribute macros.
fn debug_dump(output: &TokenStream) {
    if let Ok(filter) = std::env::var("MCP_MACROS_DEBUG")
        && (filter == "1" || filter == "skills")
    {
        eprintln!("// expansion of `skills!`\n{output}");
    }
}
