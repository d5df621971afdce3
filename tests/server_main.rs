//! A server's `main` run as a process, as the person starting it sees it:
//! what a failed build prints. Each case starts this binary again with
//! `MCP_TESTS_SERVER_MAIN` naming the `main` to play, so the child is a
//! program with a server's command line, not a test harness (this target
//! has `harness = false`).

use std::error::Error;
use std::process::{Command, Output, Stdio};

use mcp_runtime::{BuildError, Server, State, ToolEntry};

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

fn main() -> Result<(), Box<dyn Error>> {
    match std::env::var(CASE).as_deref() {
        Ok("build_error") => return build_error_main(),
        Ok(other) => panic!("no main named `{other}`"),
        Err(_) => {}
    }
    let cases: &[(&str, fn())] =
        &[("a_build_error_from_main_prints_its_sentence", a_build_error_from_main_prints_its_sentence)];
    for (name, case) in cases {
        case();
        eprintln!("test {name} ... ok");
    }
    Ok(())
}
