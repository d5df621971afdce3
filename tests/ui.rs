//! Compile-fail and compile-pass tests of `#[tool]`, `#[prompt]` and
//! `#[resource]`: one mistake per file, named for the mistake, with the
//! expected diagnostics committed next to it (`.stderr`).
//!
//! Diagnostics differ between compiler versions, so this runs only on the
//! pinned toolchain; refresh the snapshots deliberately with
//! `TRYBUILD=overwrite cargo test -p mcp-tests --test ui` when bumping it.

#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*/fail/*.rs");
    cases.pass("ui/*/pass/*.rs");
}
