//! Server processes a test starts: spawned, then waited for until they
//! accept connections.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

/// Starts `command` (its stdout discarded, killed when dropped) and waits
/// until it accepts connections on loopback `port`; panics, naming the
/// command, if it exits first or does not listen within ten seconds.
pub async fn listening(mut command: Command, port: u16) -> Child {
    let mut child = command.stdout(Stdio::null()).kill_on_drop(true).spawn().expect("starts");
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return child;
        }
        if let Some(status) = child.try_wait().expect("a status") {
            panic!("{command:?} exited ({status}) before listening on {port}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{command:?} did not listen on {port}");
}
