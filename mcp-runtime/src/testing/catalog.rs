//! A server's catalog against a committed snapshot file, so that a test
//! (and with it CI) catches any unintended change to what models see.

use std::path::Path;

use mcp_catalog::diff::diff;

use crate::server::Server;

/// Asserts that `server`'s catalog ([`Server::catalog_json`]) is the one
/// committed at `path`; a relative path starts at the current directory,
/// which `cargo test` sets to the package's root.
///
/// On a difference it panics with the changes classified as breaking or
/// compatible, then a line diff of the two files. Run the test with
/// `UPDATE_SNAPSHOTS=1` to write the file instead (and create it the first
/// time); under `CI=true` that is refused, so CI only ever checks.
///
/// ```no_run
/// # fn build_server() -> mcp_runtime::Server { unimplemented!() }
/// #[test]
/// fn the_tool_api_is_unchanged() {
///     mcp_runtime::testing::assert_catalog_snapshot(&build_server(), "catalog.json");
/// }
/// ```
// Every panic is in this body, none in a closure: a closure is a function
// of its own without `#[track_caller]`, and its panic would name this file
// instead of the test that called.
#[track_caller]
pub fn assert_catalog_snapshot(server: &Server, path: impl AsRef<Path>) {
    let path = path.as_ref();
    let actual = server.catalog_json();
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "UPDATE_SNAPSHOTS is not honoured under CI=true: CI checks the committed snapshots, it never rewrites them"
        );
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            panic!("cannot create {}: {e}", dir.display());
        }
        if let Err(e) = std::fs::write(path, &actual) {
            panic!("cannot write {}: {e}", path.display());
        }
        return;
    }
    let expected = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {} ({e}); run with UPDATE_SNAPSHOTS=1 to create it", path.display()),
    };
    if expected == actual {
        return;
    }
    let classified = match serde_json::from_str(&expected) {
        Ok(old) => diff(&old, &server.catalog_snapshot()).render(),
        Err(e) => format!("(the committed snapshot is not JSON: {e})\n"),
    };
    panic!(
        "the catalog differs from the snapshot {} (if the change is intended, run the test again with \
         UPDATE_SNAPSHOTS=1 and commit the file):\n\n{classified}\n{}",
        path.display(),
        line_diff(&expected, &actual)
    );
}

/// The lines removed (`-`) and added (`+`), with two lines of context
/// around each change, from a longest common subsequence of the lines.
fn line_diff(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    // lcs[i][j]: common lines of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i], i + 1));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Removals before additions, as diff(1) shows them.
            ops.push(('-', a[i], i + 1));
            i += 1;
        } else {
            ops.push(('+', b[j], j + 1));
            j += 1;
        }
    }
    const CONTEXT: usize = 2;
    let changed: Vec<usize> = ops.iter().enumerate().filter(|(_, op)| op.0 != ' ').map(|(k, _)| k).collect();
    let mut out = String::from("--- committed\n+++ current\n");
    let mut last_shown: Option<usize> = None;
    for (k, (mark, line, number)) in ops.iter().enumerate() {
        let near = changed.iter().any(|&c| c.abs_diff(k) <= CONTEXT);
        if !near {
            continue;
        }
        if last_shown.is_some_and(|l| l + 1 != k) || (last_shown.is_none() && k > 0) {
            out.push_str(&format!("@@ line {number} @@\n"));
        }
        out.push_str(&format!("{mark}{line}\n"));
        last_shown = Some(k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_diff_shows_changes_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\n";
        let new = "a\nb\nc\nD\ne\nf\ng\n";
        assert_eq!(line_diff(old, new), "--- committed\n+++ current\n@@ line 2 @@\n b\n c\n-d\n+D\n e\n f\n");
    }
}
