//! Compile-fail and compile-pass tests of `#[tool]`, `#[prompt]` and
//! `#[resource]`: one mistake per file, named for the mistake, with the
//! expected diagnostics committed next to it (`.stderr`).
//!
//! Diagnostics differ between compiler versions, so the snapshots hold those
//! of the toolchain `rust-toolchain.toml` pins. On another compiler the test
//! is ignored with a reason (`build.rs` sets `off_pinned_toolchain`), except
//! under CI, where it always runs. Refresh the snapshots deliberately, for the
//! cases you changed, with `TRYBUILD=overwrite cargo test -p mcp-tests --test ui`
//! and review the diff; CI refuses to overwrite them.

#[cfg_attr(
    off_pinned_toolchain,
    ignore = "UI snapshots hold the diagnostics of the toolchain in rust-toolchain.toml; run with that one"
)]
#[test]
fn ui() {
    if std::env::var("CI").as_deref() == Ok("true")
        && let Some(mode) = std::env::var_os("TRYBUILD")
    {
        panic!(
            "TRYBUILD={} is not honoured under CI=true: CI checks the committed snapshots, it never rewrites them",
            mode.to_string_lossy()
        );
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*/fail/*.rs");
    cases.pass("ui/*/pass/*.rs");
}
