//! Expansion snapshots: each `snapshots/<case>.rs` holds one annotated
//! function; its expansion, pretty-printed, must equal
//! `snapshots/<case>.expanded.rs`. `UPDATE_SNAPSHOTS=1` rewrites them, except
//! under `CI=true`, where it fails instead.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Item, Meta};

use crate::attr::Macro;
use crate::expand::expand;

fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots")
}

/// Splits a case into the macro, its arguments and the item without it.
fn split(source: &str) -> (Macro, TokenStream, TokenStream) {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("case does not parse: {e}"));
    let Some(Item::Fn(mut func)) = file.items.into_iter().next() else { panic!("a case holds one function") };
    let position = func
        .attrs
        .iter()
        .position(|a| ["tool", "prompt", "resource"].iter().any(|m| a.path().is_ident(m)))
        .unwrap_or_else(|| panic!("no #[tool], #[prompt] or #[resource]"));
    let attr = func.attrs.remove(position);
    let kind = match attr.path().get_ident().map(ToString::to_string).as_deref() {
        Some("tool") => Macro::Tool,
        Some("prompt") => Macro::Prompt,
        _ => Macro::Resource,
    };
    let args = match attr.meta {
        Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    };
    (kind, args, func.into_token_stream())
}

fn pretty(tokens: TokenStream) -> String {
    // `compile_error!` output is a macro call at item level, which parses.
    let file: syn::File = syn::parse2(tokens).unwrap_or_else(|e| panic!("expansion does not parse: {e}"));
    prettyplease::unparse(&file)
}

fn check(case: &str) {
    let input = snapshots().join(format!("{case}.rs"));
    let source = std::fs::read_to_string(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let (kind, args, item) = split(&source);
    let actual = pretty(expand(kind, args, item));
    let expected_path = snapshots().join(format!("{case}.expanded.rs"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "UPDATE_SNAPSHOTS is not honoured under CI=true: CI checks the committed snapshots, it never rewrites them"
        );
        std::fs::write(&expected_path, &actual).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert!(
        expected == actual,
        "expansion of {case} changed (UPDATE_SNAPSHOTS=1 to accept):\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

#[test]
fn tool_async_with_context() {
    check("tool_async_with_context");
}

#[test]
fn tool_no_arguments() {
    check("tool_no_arguments");
}

#[test]
fn tool_task() {
    check("tool_task");
}

#[test]
fn tool_visible_to() {
    check("tool_visible_to");
}

#[test]
fn prompt_with_completion() {
    check("prompt_with_completion");
}

#[test]
fn resource_template() {
    check("resource_template");
}

#[test]
fn error_unknown_key() {
    check("error_unknown_key");
}

/// With `crate = path`, nothing in the output names `mcp_runtime`: a renamed
/// dependency needs no `mcp_runtime` in scope.
#[test]
fn the_crate_override_replaces_every_path() {
    let source = std::fs::read_to_string(snapshots().join("resource_template.rs")).unwrap_or_default();
    let (kind, args, item) = split(&source);
    let output = expand(kind, args, item).to_string();
    assert!(output.contains("renamed"), "{output}");
    assert!(!output.contains("mcp_runtime"), "{output}");
}
