//! The README's quick start is this package's `src/main.rs`, byte for byte,
//! so the code a newcomer copies is code that compiles (with `mcp-runtime`
//! as its only dependency) and passes clippy.

use std::path::Path;

/// The first ```` ```rust ```` block of `markdown`.
fn first_rust_block(markdown: &str) -> Option<&str> {
    let start = markdown.find("```rust\n")? + "```rust\n".len();
    let len = markdown[start..].find("\n```")? + 1;
    Some(&markdown[start..start + len])
}

#[test]
fn readme_quick_start_is_this_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../README.md")).expect("README.md at the repository root");
    let main = std::fs::read_to_string(root.join("src/main.rs")).expect("src/main.rs");
    let block = first_rust_block(&readme).expect("README.md has a ```rust block");
    assert!(
        block == main,
        "the README's quick start differs from examples/quickstart/src/main.rs; copy one into the other\n\
         --- README.md\n{block}\n--- src/main.rs\n{main}"
    );
}
