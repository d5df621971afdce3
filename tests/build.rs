//! Decides, at build time, which tests of this crate cannot run here, so that
//! `cargo test` reports them as ignored with a reason instead of passing
//! them silently:
//!
//! - `no_redis_server`: no `redis-server` on the PATH (`redis_bus`,
//!   `redis_sessions`, `redis_tasks`, `redis_restart`, `replica_loss`, the
//!   Redis half of `session_store`, `oauth_proxy_store` and one test of
//!   `oauth_proxy` need one);
//! - `no_redis_cli`: no `redis-cli` on the PATH (`redis_cluster` makes its
//!   cluster with it);
//! - `no_haproxy`: no `haproxy` on the PATH (`replica_loss` and
//!   `redis_cluster` put one in front of their replicas);
//! - `no_oidc_provider`: no `node`, or no oidc-provider installed where
//!   `.ci/install.sh` puts it (`oauth` runs against it; see
//!   `support/oidc.rs` for where it is looked for);
//! - `no_python_sdk`: the official Python SDK is not installed where
//!   `.ci/install.sh` puts it (`client_python` runs its server; see
//!   `support/python_sdk.rs`);
//! - `off_pinned_toolchain`: the compiler is not the one `rust-toolchain.toml`
//!   pins, whose diagnostics the UI snapshots hold (`ui`).
//!
//! Under `CI=true` none of them is set: there a missing prerequisite fails its
//! test rather than hiding it. Changing `CI` reruns this script and so
//! rebuilds this crate's tests.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_redis_server)");
    println!("cargo::rustc-check-cfg=cfg(no_redis_cli)");
    println!("cargo::rustc-check-cfg=cfg(no_haproxy)");
    println!("cargo::rustc-check-cfg=cfg(off_pinned_toolchain)");
    println!("cargo::rustc-check-cfg=cfg(no_oidc_provider)");
    println!("cargo::rustc-check-cfg=cfg(no_python_sdk)");
    println!("cargo::rerun-if-env-changed=MCP_PYTHON_SDK_DIR");
    println!("cargo::rerun-if-env-changed=MCP_OIDC_PROVIDER_DIR");
    println!("cargo::rerun-if-env-changed=CI_CACHE_DIR");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");

    let ci = env::var("CI").as_deref() == Ok("true");

    prerequisite("redis-server", "no_redis_server", ci);
    prerequisite("redis-cli", "no_redis_cli", ci);
    prerequisite("haproxy", "no_haproxy", ci);
    prerequisite("node", "no_oidc_provider", ci);
    oidc_provider(ci);
    python_sdk(ci);

    let toolchain_file = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../rust-toolchain.toml");
    println!("cargo::rerun-if-changed={}", toolchain_file.display());
    if !ci && !on_pinned_toolchain(&toolchain_file) {
        println!("cargo::rustc-cfg=off_pinned_toolchain");
    }
}

/// Sets `no_oidc_provider` when oidc-provider is not installed (never
/// under CI). Where it is looked for is `support/oidc.rs`'s
/// `provider_dir`, repeated here since a build script cannot use the crate.
fn oidc_provider(ci: bool) {
    let dir = match (env::var_os("MCP_OIDC_PROVIDER_DIR"), env::var_os("CI_CACHE_DIR")) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(cache)) => PathBuf::from(cache).join("tools/oidc-provider"),
        (None, None) => {
            Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../target/ci/tools/oidc-provider")
        }
    };
    let installed = dir.join("node_modules/oidc-provider/package.json");
    // The nearest folder that exists changes when the install creates the rest.
    let watched = installed.ancestors().find(|p| p.exists()).unwrap_or(&dir);
    println!("cargo::rerun-if-changed={}", watched.display());
    if !ci && !installed.is_file() {
        println!("cargo::rustc-cfg=no_oidc_provider");
    }
}

/// Sets `no_python_sdk` when the official Python SDK's virtual environment
/// is not where `.ci/install.sh` makes it (never under CI). Where it is
/// looked for is `support/python_sdk.rs`'s `venv`, repeated here.
fn python_sdk(ci: bool) {
    let dir = match (env::var_os("MCP_PYTHON_SDK_DIR"), env::var_os("CI_CACHE_DIR")) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(cache)) => PathBuf::from(cache).join("tools/py"),
        (None, None) => Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../target/ci/tools/py"),
    };
    // Written last by the install, once the SDK is in.
    let installed = dir.join(".pins");
    let watched = installed.ancestors().find(|p| p.exists()).unwrap_or(&dir);
    println!("cargo::rerun-if-changed={}", watched.display());
    if !ci && !installed.is_file() {
        println!("cargo::rustc-cfg=no_python_sdk");
    }
}

/// Sets `cfg` when `program` is not on the PATH (never under CI), and
/// arranges for this script to rerun when that changes.
fn prerequisite(program: &str, cfg: &str, ci: bool) {
    match find_on_path(program) {
        // Removing it must be noticed as well as installing it.
        Some(found) => println!("cargo::rerun-if-changed={}", found.display()),
        None => {
            // A package install adds the file to a PATH directory without
            // touching PATH itself; the directory's mtime changes then.
            for dir in path_dirs() {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
            if !ci {
                println!("cargo::rustc-cfg={cfg}");
            }
        }
    }
}

/// The absolute, existing directories of the PATH (a missing path given to
/// `rerun-if-changed` would rerun this script on every build).
fn path_dirs() -> Vec<PathBuf> {
    let path = env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = env::split_paths(&path).filter(|d| d.is_absolute() && d.is_dir()).collect();
    dirs.dedup();
    dirs
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path_dirs()
        .into_iter()
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// Whether `rustc` is the release named by the toolchain file's `channel`
/// (e.g. `1.95.0`). A file that is missing or names no plain release pins
/// nothing to compare with, so the UI tests run.
fn on_pinned_toolchain(toolchain_file: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(toolchain_file) else { return true };
    let Some(channel) = text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "channel").then(|| value.trim().trim_matches('"').to_owned())
    }) else {
        return true;
    };
    if !channel.split('.').all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())) {
        return true;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(output) = std::process::Command::new(&rustc).arg("--version").output() else {
        println!("cargo::warning=cannot run {} --version; assuming the pinned toolchain", rustc.to_string_lossy());
        return true;
    };
    // `rustc 1.95.0 (59807616e 2026-04-14)`; a beta or nightly reads `1.96.0-beta.3` or `1.97.0-nightly`.
    let version = String::from_utf8_lossy(&output.stdout);
    version.split_whitespace().nth(1) == Some(channel.as_str())
}
