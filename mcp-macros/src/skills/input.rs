//! The input of `skills!`: one string literal, the path of a directory,
//! and that directory resolved the way `include_bytes!` resolves a path.

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

/// What the input should look like, for the messages.
const EXAMPLE: &str = "`skills!(\"skills\")`";

/// `skills!("dir")`, parsed: the literal, kept for its span.
#[derive(Debug)]
pub(super) struct SkillsInput {
    literal: LitStr,
}

impl Parse for SkillsInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.is_empty() {
            // `skills!()`: no token to point at, so the whole call.
            return Err(syn::Error::new(
                Span::call_site(),
                format!("`skills!` takes the path of a directory of skills, as a string literal: {EXAMPLE}"),
            ));
        }
        if input.peek(syn::Ident) && input.peek2(Token![!]) {
            // `skills!(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))` works
            // with `include_bytes!`, whose argument the compiler expands
            // first; a proc macro receives the call unexpanded.
            let call: syn::Macro = input.parse()?;
            return Err(syn::Error::new_spanned(
                call,
                "expected a string literal, not a macro call: `skills!` receives its argument unexpanded, unlike \
                 `include_bytes!` (a relative path starts at the directory of this file)",
            ));
        }
        if !input.peek(LitStr) {
            let token: TokenTree = input.parse()?;
            return Err(syn::Error::new_spanned(
                token,
                format!("expected a string literal, the path of a directory of skills: {EXAMPLE}"),
            ));
        }
        let literal: LitStr = input.parse()?;
        if !literal.suffix().is_empty() {
            return Err(syn::Error::new_spanned(&literal, "expected a string literal without a suffix"));
        }
        // One trailing comma is accepted, as by `include_bytes!`.
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            let rest: TokenStream = input.parse()?;
            return Err(syn::Error::new_spanned(
                rest,
                "`skills!` takes one path; for more directories, join the sets: `skills!(\"a\").and(skills!(\"b\"))`",
            ));
        }
        Ok(SkillsInput { literal })
    }
}

/// The directory `skills!` embeds.
#[derive(Debug)]
pub(super) struct SkillsDir {
    /// The path literal, where every error about the directory points.
    pub(super) literal: LitStr,
    /// The path as written, by which messages name the files below it:
    /// the span already points at the literal, so `../skills/pdf/SKILL.md`
    /// reads better than an absolute path, and is the same on every machine.
    pub(super) written: PathBuf,
    /// The directory, absolute: the generated `include_bytes!` calls would
    /// resolve a relative path against the invoking file, not against the
    /// compiler's working directory this macro runs in.
    pub(super) root: PathBuf,
}

impl SkillsInput {
    /// Resolves the path: absolute as it is, relative against `base` (the
    /// invoking file's directory).
    pub(super) fn resolve(self, base: Option<&Path>) -> syn::Result<SkillsDir> {
        let literal = self.literal;
        let value = literal.value();
        let error = |message: String| syn::Error::new(literal.span(), message);
        if value.is_empty() {
            return Err(error("skills!: the path is empty; `\".\"` is the directory of the invoking file".to_owned()));
        }
        let written = PathBuf::from(value);
        let joined = if written.is_absolute() {
            written.clone()
        } else {
            let Some(base) = base else {
                return Err(error(format!(
                    "skills!: cannot tell which file invokes the macro, so the relative path `{}` has no start \
                     (CARGO_MANIFEST_DIR is not set either); give an absolute path",
                    written.display()
                )));
            };
            base.join(&written)
        };
        // `absolute` only prefixes the working directory: `..` stays, and a
        // missing directory is reported by the walk, naming it as written.
        let root = std::path::absolute(&joined).map_err(|e| error(format!("skills!: {}: {e}", written.display())))?;
        Ok(SkillsDir { literal, written, root })
    }
}
