//! How the input is read, how the directory is resolved, how a refusal of
//! the walk is worded, and a snapshot of the expansion of a small tree
//! (`snapshots/skills/`, compared with `snapshots/skills.expanded.rs`;
//! `UPDATE_SNAPSHOTS=1` rewrites it, except under `CI=true`).

use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use super::input::SkillsInput;
use super::{expand_from, fallback};

fn message<T: std::fmt::Debug>(result: syn::Result<T>) -> String {
    result.expect_err("an error").to_string()
}

#[test]
fn one_string_literal_is_the_input() {
    for tokens in [quote!("skills"), quote!("skills",), quote!(r"../skills"), quote!("/abs/skills")] {
        assert!(syn::parse2::<SkillsInput>(tokens.clone()).is_ok(), "{tokens}");
    }
}

#[test]
fn anything_else_says_what_is_expected() {
    let cases = [
        (quote!(), "`skills!` takes the path of a directory of skills, as a string literal"),
        (quote!(42), "expected a string literal, the path of a directory of skills"),
        (quote!(skills), "expected a string literal, the path of a directory of skills"),
        (quote!(b"skills"), "expected a string literal, the path of a directory of skills"),
        (quote!(concat!("a", "b")), "expected a string literal, not a macro call"),
        (quote!("a", "b"), "`skills!` takes one path"),
        (quote!("a" "b"), "`skills!` takes one path"),
    ];
    for (tokens, expected) in cases {
        let actual = message(syn::parse2::<SkillsInput>(tokens.clone()));
        assert!(actual.starts_with(expected), "{tokens}: {actual}");
    }
    let suffixed = message(syn::parse_str::<SkillsInput>("\"skills\"x"));
    assert_eq!(suffixed, "expected a string literal without a suffix");
}

fn resolve(tokens: TokenStream, base: Option<&Path>) -> syn::Result<super::input::SkillsDir> {
    syn::parse2::<SkillsInput>(tokens)?.resolve(base)
}

#[test]
fn relative_paths_start_at_the_base_and_absolute_ones_are_kept() {
    let base = Path::new("/src/server");
    let dir = resolve(quote!("../skills"), Some(base)).unwrap();
    assert_eq!(dir.root, Path::new("/src/server/../skills"));
    assert_eq!(dir.written, Path::new("../skills"));
    let dir = resolve(quote!("/opt/skills"), None).unwrap();
    assert_eq!(dir.root, Path::new("/opt/skills"));
    // A file in the working directory (`main.rs`) has an empty parent.
    let dir = resolve(quote!("skills"), Some(Path::new(""))).unwrap();
    assert_eq!(dir.root, std::env::current_dir().unwrap().join("skills"));
}

#[test]
fn a_relative_path_without_a_base_or_an_empty_one_is_refused() {
    assert!(message(resolve(quote!("skills"), None)).contains("give an absolute path"));
    assert!(message(resolve(quote!(""), Some(Path::new("/src")))).starts_with("skills!: the path is empty"));
}

/// A tree of `files` in a directory of its own, removed when dropped.
struct Tree(PathBuf);

impl Tree {
    fn new(files: &[(&str, &str)]) -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let root = std::env::temp_dir().join(format!("mcp-macros-skills-{}-{nanos}", std::process::id()));
        for (path, text) in files {
            let full = root.join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        }
        fs::create_dir_all(&root).unwrap();
        Tree(root)
    }

    /// The error of `skills!("tree")` invoked from the tree's root.
    fn error(&self) -> String {
        message(expand_from(quote!("tree"), Some(self.0.clone())))
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_refusal_names_the_file_by_the_path_as_written() {
    let tree = Tree::new(&[("tree/x/SKILL.md", "---\ndescription: d\n---\n")]);
    assert_eq!(tree.error(), "skills!: tree/x/SKILL.md: the front matter has no `name` (a non-empty string)");
    let tree = Tree::new(&[("tree/pdf/SKILL.md", "---\nname: other\ndescription: d\n---\n")]);
    assert!(tree.error().starts_with("skills!: tree/pdf/SKILL.md: the skill is named `other`"), "{}", tree.error());
    let tree = Tree::new(&[("tree/README.md", "no skill")]);
    assert_eq!(tree.error(), "skills!: tree holds no SKILL.md, at its root or below");
    let tree = Tree::new(&[]);
    assert!(tree.error().starts_with("skills!: tree: "), "{}", tree.error());
}

#[test]
fn an_error_still_has_the_type_of_the_expansion() {
    // `{ compile_error!{..} Skills::__embedded(&[]) }`: one error, no
    // "expected `Skills`, found `()`" after it.
    let error = syn::Error::new(proc_macro2::Span::call_site(), "wrong");
    let block: syn::ExprBlock = syn::parse2(fallback(&error)).unwrap();
    assert_eq!(block.block.stmts.len(), 2);
    let last = &block.block.stmts[1];
    assert_eq!(quote!(#last).to_string(), quote!(::mcp_runtime::skills::Skills::__embedded(&[])).to_string());
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The expansion inside a function, pretty-printed, with the absolute
/// paths made the same on every machine.
fn pretty(expansion: TokenStream) -> String {
    let file: syn::File = syn::parse2(quote! {
        fn skills() -> ::mcp_runtime::skills::Skills {
            #expansion
        }
    })
    .unwrap_or_else(|e| panic!("the expansion does not parse: {e}"));
    let dir = manifest_dir().to_str().unwrap();
    prettyplease::unparse(&file).replace(dir, "$CARGO_MANIFEST_DIR")
}

#[test]
fn expansion_of_a_small_tree() {
    let snapshots = manifest_dir().join("snapshots");
    let actual = pretty(expand_from(quote!("skills"), Some(snapshots.clone())).unwrap());
    let expected_path = snapshots.join("skills.expanded.rs");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "UPDATE_SNAPSHOTS is not honoured under CI=true: CI checks the committed snapshots, it never rewrites them"
        );
        fs::write(&expected_path, &actual).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        return;
    }
    let expected = fs::read_to_string(&expected_path).unwrap_or_default();
    assert!(
        expected == actual,
        "expansion of skills changed (UPDATE_SNAPSHOTS=1 to accept):\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}
