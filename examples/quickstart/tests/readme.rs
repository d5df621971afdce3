//! The README's code a newcomer copies is this package's code, byte for
//! byte, so it compiles (with `mcp-runtime` as its only dependency), passes
//! clippy and, for the test, runs: the quick start is `src/main.rs`, the
//! testing section's example is `tests/wipe.rs`.

use std::path::Path;

/// The first ```` ```rust ```` block of `markdown` after `heading` (or from
/// the start, for an empty heading).
fn rust_block_after<'a>(markdown: &'a str, heading: &str) -> Option<&'a str> {
    let from = markdown.find(heading)?;
    let start = from + markdown[from..].find("```rust\n")? + "```rust\n".len();
    let len = markdown[start..].find("\n```")? + 1;
    Some(&markdown[start..start + len])
}

/// Asserts that the block after `heading` in the README is the file at
/// `path` in this package.
fn assert_readme_block_is(heading: &str, path: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../README.md")).expect("README.md at the repository root");
    let file = std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let block =
        rust_block_after(&readme, heading).unwrap_or_else(|| panic!("README.md has a ```rust block after `{heading}`"));
    assert!(
        block == file,
        "the README's block after `{heading}` differs from examples/quickstart/{path}; copy one into the other\n\
         --- README.md\n{block}\n--- {path}\n{file}"
    );
}

#[test]
fn readme_quick_start_is_this_package() {
    assert_readme_block_is("", "src/main.rs");
}

#[test]
fn readme_testing_example_is_a_test_of_this_package() {
    assert_readme_block_is("## Testing your server", "tests/wipe.rs");
}
