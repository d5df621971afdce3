//! Build-side figures: release builds, crates compiled, stripped binary
//! size, and the release rebuild after editing one tool body.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::servers::Kind;

/// The comment marking the line of each tool body the rebuild edits.
const MARKER: &str = "// bench: edited by the rebuild measurement";

/// The edited body: different code, same behaviour.
const EDITED_BODY: &str = "text.trim_end_matches('\\0').to_owned()";

/// The build-side figures of one server.
#[derive(Default, Clone)]
pub(crate) struct BuildFigures {
    /// Distinct packages compiled for the release binary (its own included).
    pub(crate) crates: usize,
    /// The binary's size after `strip`, in bytes.
    pub(crate) stripped_bytes: u64,
    /// Release rebuild times after editing the tool body (none for the floor).
    pub(crate) rebuilds: Vec<Duration>,
}

fn cargo(bench: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(bench);
    command
}

/// Builds `kind` in release mode and counts the packages of its build graph
/// from cargo's artifact messages, which cargo prints for fresh units too.
pub(crate) fn build_and_count(bench: &Path, kind: Kind) -> Result<usize> {
    let output = cargo(bench)
        .args(["build", "--release", "--message-format=json-render-diagnostics", "-p", kind.package()])
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo build")?;
    if !output.status.success() {
        bail!("cargo build -p {} failed", kind.package());
    }
    let mut packages = BTreeSet::new();
    for line in output.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let message: serde_json::Value = serde_json::from_slice(line)?;
        if message["reason"] == "compiler-artifact"
            && let Some(id) = message["package_id"].as_str()
        {
            packages.insert(id.to_owned());
        }
    }
    Ok(packages.len())
}

/// Copies the release binary, strips the copy and returns its size.
pub(crate) fn stripped_size(bench: &Path, kind: Kind) -> Result<u64> {
    let dir = bench.join("target/stripped");
    std::fs::create_dir_all(&dir)?;
    let copy = dir.join(kind.package());
    let status =
        Command::new("strip").arg("-o").arg(&copy).arg(kind.binary(bench)).status().context("running strip")?;
    if !status.success() {
        bail!("strip failed on {}", kind.binary(bench).display());
    }
    Ok(std::fs::metadata(&copy)?.len())
}

/// Where the untouched source is kept while an edit is in place, so that
/// an interrupted run is repaired by the next one.
fn backup_of(bench: &Path, kind: Kind) -> PathBuf {
    bench.join("target").join(format!("{}.main.rs.orig", kind.package()))
}

/// Puts back a source an interrupted run left edited.
pub(crate) fn repair(bench: &Path) -> Result<()> {
    for kind in Kind::MCP {
        let Some(source) = kind.tool_source(bench) else { continue };
        let backup = backup_of(bench, kind);
        if backup.exists() {
            std::fs::copy(&backup, &source)?;
            std::fs::remove_file(&backup)?;
        }
    }
    Ok(())
}

/// Runs a release build, returning how long it took and which packages
/// it actually compiled (the fresh ones are not listed).
fn timed_build(bench: &Path, kind: Kind) -> Result<(Duration, Vec<String>)> {
    let start = Instant::now();
    let output = cargo(bench)
        .args(["build", "--release", "--message-format=json-render-diagnostics", "-p", kind.package()])
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo build")?;
    let elapsed = start.elapsed();
    if !output.status.success() {
        bail!("cargo build -p {} failed", kind.package());
    }
    let mut compiled = BTreeSet::new();
    for line in output.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let message: serde_json::Value = serde_json::from_slice(line)?;
        if message["reason"] == "compiler-artifact"
            && message["fresh"] == false
            && let Some(name) = message["target"]["name"].as_str()
        {
            compiled.insert(name.to_owned());
        }
    }
    Ok((elapsed, compiled.into_iter().collect()))
}

/// One rebuild sample: only the server's own package may be compiled. When
/// a dependency changed meanwhile (the workspace is being edited), the
/// sample is thrown away and taken again, now that the dependency is built.
fn rebuild_sample(bench: &Path, kind: Kind) -> Result<Duration> {
    for _ in 0..3 {
        let (elapsed, compiled) = timed_build(bench, kind)?;
        let own = kind.package().replace('-', "_");
        if compiled.iter().all(|name| name.replace('-', "_") == own) {
            return Ok(elapsed);
        }
        eprintln!("  dependencies changed during the measurement ({}); measuring again", compiled.join(", "));
        // Build the package as it is now, then repeat the same edit.
        let source = kind.tool_source(bench).context("no tool source")?;
        let text = std::fs::read_to_string(&source)?;
        std::fs::write(&source, &text)?;
    }
    bail!("dependencies of {} kept changing during the rebuild measurement", kind.package())
}

/// Edits the tool body, times the release rebuild, puts the body back and
/// times that rebuild too: `cycles` edit-and-restore pairs, so the binary
/// left behind is the untouched one. The package must be built already.
pub(crate) fn rebuild_times(bench: &Path, kind: Kind, cycles: usize) -> Result<Vec<Duration>> {
    let Some(source) = kind.tool_source(bench) else { return Ok(Vec::new()) };
    let original = std::fs::read_to_string(&source)?;
    let Some(line) = original.lines().find(|l| l.contains(MARKER)) else {
        bail!("{} has no line marked `{MARKER}`", source.display());
    };
    let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
    let edited = original.replacen(line, &format!("{indent}{EDITED_BODY} {MARKER}"), 1);
    let backup = backup_of(bench, kind);
    std::fs::create_dir_all(bench.join("target"))?;
    std::fs::copy(&source, &backup)?;
    let mut times = Vec::new();
    let result = (|| -> Result<()> {
        for _ in 0..cycles {
            std::fs::write(&source, &edited)?;
            times.push(rebuild_sample(bench, kind)?);
            std::fs::write(&source, &original)?;
            times.push(rebuild_sample(bench, kind)?);
        }
        Ok(())
    })();
    std::fs::write(&source, &original)?;
    std::fs::remove_file(&backup)?;
    result?;
    Ok(times)
}
