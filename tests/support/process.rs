//! Server processes a test starts: spawned, then waited for until they
//! accept connections.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
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

/// The lines a process wrote to its standard error so far, each also
/// echoed to the test's own, so that a failing test shows them.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    /// How many lines so far contain `text`.
    pub fn count(&self, text: &str) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).iter().filter(|l| l.contains(text)).count()
    }

    /// Every line so far.
    pub fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// [`listening`], with the process's standard error read into a [`Log`].
pub async fn listening_logged(mut command: Command, port: u16) -> (Child, Log) {
    command.stderr(Stdio::piped());
    let mut child = listening(command, port).await;
    let log = Log::default();
    let stderr = child.stderr.take().expect("stderr piped");
    let lines = Arc::clone(&log.0);
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            eprintln!("{line}");
            lines.lock().unwrap_or_else(|e| e.into_inner()).push(line);
        }
    });
    (child, log)
}
