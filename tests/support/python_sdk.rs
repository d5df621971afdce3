//! The official Python SDK (its virtual environment, which `.ci/install.sh`
//! makes), running `python_sdk_server.py`: a server written by others, for
//! the client's tests.

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::process::STARTUP;

/// Where the virtual environment is: `MCP_PYTHON_SDK_DIR`, else
/// `$CI_CACHE_DIR/tools/py`, else the repository's `target/ci/tools/py`.
pub fn venv() -> PathBuf {
    if let Some(dir) = std::env::var_os("MCP_PYTHON_SDK_DIR") {
        return dir.into();
    }
    if let Some(cache) = std::env::var_os("CI_CACHE_DIR") {
        return PathBuf::from(cache).join("tools/py");
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/ci/tools/py")
}

/// The command that serves `python_sdk_server.py` over its stdio.
pub fn stdio_server() -> Command {
    let mut command = Command::new(venv().join("bin/python"));
    command.arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("support/python_sdk_server.py"));
    command.stderr(Stdio::inherit());
    command
}

/// The server over Streamable HTTP, killed when the child is dropped, and
/// the URL it listens on.
pub async fn http_server() -> (Child, String) {
    let mut command = stdio_server();
    command.arg("--http").stdin(Stdio::null()).stdout(Stdio::piped()).kill_on_drop(true);
    let mut child = command.spawn().expect("the Python SDK's server starts");
    let stdout = child.stdout.take().expect("its stdout");
    let mut lines = BufReader::new(stdout).lines();
    let url = tokio::time::timeout(STARTUP, lines.next_line())
        .await
        .expect("its URL in time")
        .expect("its stdout readable")
        .expect("a first line");
    (child, url)
}
