//! The error accumulator: every problem of a stage is collected, spanned,
//! and reported together, so one compile shows all attribute typos.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects spanned errors; [`finish`](Self::finish) folds them into one
/// `syn::Error` (which renders as one `compile_error!` per message).
#[derive(Default)]
pub(crate) struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub(crate) fn new() -> Self {
        Errors::default()
    }

    /// An error spanning the tokens of `at`.
    pub(crate) fn spanned(&mut self, at: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(at.into_token_stream(), message));
    }

    /// An error at one span.
    pub(crate) fn at(&mut self, span: Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// An error `syn` already produced.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Runs `parse`, keeping its error if it fails.
    pub(crate) fn collect<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    /// `Ok` when nothing was reported.
    pub(crate) fn finish(self) -> syn::Result<()> {
        let mut errors = self.errors.into_iter();
        match errors.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in errors {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }
}
