//! A server's `main` run as a process, as the person starting it sees it:
//! what a failed build prints, and what `--dump-catalog` writes. Each case
//! starts this binary again with `MCP_TESTS_SERVER_MAIN` naming the `main`
//! to play, so the child is a program with a server's command line, not a
//! test harness (this target has `harness = false`).

use std::error::Error;
use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use mcp_runtime::{BuildError, Server, ServerBuilder, State, entry::ToolEntry};

/// Names the `main` a child plays.
const CASE: &str = "MCP_TESTS_SERVER_MAIN";

/// A server whose tool needs state nobody gave it: `build()` fails.
fn missing_state() -> Result<Server, BuildError> {
    Server::builder("main", "1.0.0").tool(ToolEntry::new("count", |State(n): State<u32>| async move { n })).build()
}

/// The read-me's `main`, with a build that fails.
fn build_error_main() -> Result<(), Box<dyn Error>> {
    missing_state()?;
    Ok(())
}

/// A server with a tool, for its catalog.
fn catalog_server() -> ServerBuilder {
    Server::builder("dump", "1.0.0").tool(ToolEntry::new("ping", || async { "pong" }).description("Answers pong."))
}

/// What a server's `main` prints once built, before it serves (on
/// standard error: standard output is the protocol's).
const STARTED: &str = "serving MCP on stdin and stdout\n";

/// The read-me's `main` over stdio, with start-up output of its own after
/// `build()`; `catalog_flag` as the builder's.
fn serve_main(catalog_flag: bool) -> Result<(), Box<dyn Error>> {
    let server = catalog_server().catalog_flag(catalog_flag).build()?;
    std::io::stderr().write_all(STARTED.as_bytes())?;
    let runtime = mcp_runtime::tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    // stdin is empty: serving ends at once.
    runtime.block_on(server.serve_stdio())?;
    Ok(())
}

/// This binary, playing `case` with `args`.
fn run(case: &str, args: &[&str]) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    Command::new(exe)
        .args(args)
        .env(CASE, case)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running the `{case}` main: {e}"))
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("UTF-8 output")
}

/// `main` returning `Result<(), Box<dyn Error>>` reports its error with
/// `Debug`: a build error reads as its sentence, not as the variant's
/// fields.
fn a_build_error_from_main_prints_its_sentence() {
    let sentence = missing_state().expect_err("no state").to_string();
    assert!(sentence.starts_with("tool `count` (at "), "{sentence}");
    let output = run("build_error", &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(text(&output.stderr), format!("Error: {sentence}\n"));
    assert_eq!(text(&output.stdout), "");
}

/// `--dump-catalog` is noted by `build()`, which ends no process, and
/// answered by the serve helper before it reads a byte: the catalog is the
/// whole of standard output, and `main` ran on to the helper.
fn the_dump_is_answered_by_the_serve_helper() {
    let catalog = catalog_server().build().expect("valid").catalog_json();
    let output = run("serve", &["--dump-catalog"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(text(&output.stdout), catalog, "standard output is the catalog, and only it");
    assert_eq!(text(&output.stderr), STARTED, "main went on after build()");

    let path = std::env::temp_dir().join(format!("mcp-server-main-{}.json", std::process::id()));
    let output = run("serve", &[&format!("--dump-catalog={}", path.display())]);
    let written = std::fs::read_to_string(&path);
    std::fs::remove_file(&path).ok();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(written.expect("the dump is written"), catalog);
    assert_eq!(text(&output.stdout), "", "nothing served");
}

/// Without the flag, or with it turned off, the server serves (stdin is
/// empty: nothing to answer, nothing written).
fn without_the_dump_main_serves() {
    let output = run("serve", &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!((text(&output.stdout), text(&output.stderr)), ("", STARTED));
    let output = run("serve_without_flag", &["--dump-catalog"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!((text(&output.stdout), text(&output.stderr)), ("", STARTED));
}

/// A dump that cannot be written is the serve helper's error, naming
/// where it was going, reported by `main`.
fn an_unwritable_dump_is_an_error_naming_its_path() {
    let output = run("serve", &["--dump-catalog=/nonexistent-directory/catalog.json"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = text(&output.stderr).strip_prefix(STARTED).expect("main went on after build()");
    let expected = "Error: Custom { kind: NotFound, error: \"the catalog could not be written to /nonexistent-directory/catalog.json (--dump-catalog): ";
    assert!(stderr.starts_with(expected), "{stderr}");
    assert_eq!(text(&output.stdout), "");
}

fn main() -> Result<(), Box<dyn Error>> {
    match std::env::var(CASE).as_deref() {
        Ok("build_error") => return build_error_main(),
        Ok("serve") => return serve_main(true),
        Ok("serve_without_flag") => return serve_main(false),
        Ok(other) => panic!("no main named `{other}`"),
        Err(_) => {}
    }
    let cases: &[(&str, fn())] = &[
        ("a_build_error_from_main_prints_its_sentence", a_build_error_from_main_prints_its_sentence),
        ("the_dump_is_answered_by_the_serve_helper", the_dump_is_answered_by_the_serve_helper),
        ("without_the_dump_main_serves", without_the_dump_main_serves),
        ("an_unwritable_dump_is_an_error_naming_its_path", an_unwritable_dump_is_an_error_naming_its_path),
    ];
    for (name, case) in cases {
        case();
        eprintln!("test {name} ... ok");
    }
    Ok(())
}
