//! Server processes a test starts, each waited for until it is really
//! ready: our own HTTP servers until they have answered a request on the
//! port they report, never a port chosen beforehand and hoped free.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};
use tokio::sync::mpsc;

/// How long a process may take to become ready: a debug build starting on
/// a machine busy compiling takes seconds, never this long.
pub const STARTUP: Duration = Duration::from_secs(60);

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

    /// Adds a line.
    pub(crate) fn push_line(&self, line: String) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(line);
    }
}

/// Reads `stderr` into a new [`Log`] (echoing each line), and passes each
/// line on to the receiver too, until the process closes it.
fn read_log(stderr: ChildStderr) -> (Log, mpsc::UnboundedReceiver<String>) {
    let log = Log::default();
    let (lines_tx, lines_rx) = mpsc::unbounded_channel();
    let kept = log.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            eprintln!("{line}");
            kept.push_line(line.clone());
            // The receiver goes once the process is ready; the log goes on.
            let _ = lines_tx.send(line);
        }
    });
    (log, lines_rx)
}

/// Reads the standard error of `child` (spawned with it piped) into a
/// [`Log`], each line echoed to the test's own.
pub fn log_stderr(child: &mut Child) -> Log {
    read_log(child.stderr.take().expect("stderr piped")).0
}

/// One of our HTTP servers, running and ready.
pub struct Served {
    /// Killed when dropped.
    pub child: Child,
    /// Where it listens, as it reported.
    pub addr: SocketAddr,
    /// Its standard error.
    pub log: Log,
}

/// Starts one of our HTTP server binaries, told to listen on port 0 (the
/// system picks a free one, so no other process can take it first), and
/// waits until it is ready: it has logged the address it bound (the
/// runtime's `serving MCP over HTTP address=...` line, which it writes once
/// the listener is bound; the binary must log it, at INFO, without colours)
/// and answered a request there. Panics, with what the process wrote, if it
/// exits first or is not ready within [`STARTUP`].
pub async fn serve(command: Command) -> Served {
    let (served, command) = bound(command).await;
    if tokio::time::timeout(STARTUP, answers_http(served.addr)).await.is_err() {
        panic!("{command:?} bound {} but answered no request within {STARTUP:?}", served.addr);
    }
    served
}

/// [`serve`] for a server of HTTPS (`--tls-cert`, `--tls-key`) whose
/// certificate, for `localhost`, is signed by `roots` (PEM): ready once it
/// has answered `server/discover` over HTTPS.
pub async fn serve_tls(command: Command, roots: &str) -> Served {
    let (served, command) = bound(command).await;
    // Bound before it says so: the request waits to be served.
    let url = format!("https://localhost:{}/mcp", served.addr.port());
    let client = mcp_runtime::client::Client::http(&url).root_certificates(roots).expect("roots").timeout(STARTUP);
    match client.discover().await {
        // A protected server answers too: that it refused is an answer.
        Ok(_) | Err(mcp_runtime::client::Error::Http { status: 401, .. }) => served,
        Err(e) => panic!("{command:?} bound {} but did not answer over HTTPS: {e}", served.addr),
    }
}

/// Starts `command` and waits until it has logged the address it bound.
async fn bound(mut command: Command) -> (Served, Command) {
    command.stderr(Stdio::piped()).kill_on_drop(true);
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    let (log, mut lines) = read_log(child.stderr.take().expect("stderr piped"));
    let bound = async {
        while let Some(line) = lines.recv().await {
            if let Some(addr) = reported_address(&line) {
                return Some(addr);
            }
        }
        None
    };
    let addr = match tokio::time::timeout(STARTUP, bound).await {
        Ok(Some(addr)) => addr,
        Ok(None) => {
            let status = child.wait().await.expect("a status");
            panic!("{command:?} exited ({status}) before serving:\n{}", log.lines().join("\n"))
        }
        Err(_) => panic!("{command:?} reported no address within {STARTUP:?}:\n{}", log.lines().join("\n")),
    };
    (Served { child, addr, log }, command)
}

/// The address of the runtime's `serving MCP over HTTP` log line, read
/// past any colours (`NO_COLOR` is not honoured by every writer).
fn reported_address(line: &str) -> Option<SocketAddr> {
    let line = without_colours(line);
    let (_, fields) = line.split_once("serving MCP over HTTP")?;
    let value = fields.split_whitespace().find_map(|field| field.strip_prefix("address="))?;
    Some(value.parse().unwrap_or_else(|_| panic!("not an address in {line:?}")))
}

/// `line` without its ANSI escape sequences (`ESC [ ... letter`).
fn without_colours(line: &str) -> String {
    let mut plain = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(char::is_ascii_alphabetic);
        } else {
            plain.push(c);
        }
    }
    plain
}

/// Waits until `addr` answers an HTTP request with a status line, whatever
/// the status: the server accepts, reads and responds.
pub async fn answers_http(addr: SocketAddr) {
    loop {
        if status_line(addr).await.is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The status line of the answer to `GET /` at `addr`, if it answers.
async fn status_line(addr: SocketAddr) -> Option<String> {
    let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
    let request = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.ok()?;
    let answer = String::from_utf8_lossy(&answer);
    let line = answer.lines().next()?;
    line.starts_with("HTTP/1.1 ").then(|| line.to_owned())
}

/// Starts a process that announces its readiness with one line on its
/// standard output, and returns it with that line. Its standard error is
/// read into the test's (shown when the test fails). Panics, with what it
/// wrote there, if it exits or closes its output first, or writes nothing
/// within [`STARTUP`].
pub async fn announced(mut command: Command) -> (Child, String) {
    command.stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    let log = log_stderr(&mut child);
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout piped")).lines();
    match tokio::time::timeout(STARTUP, stdout.next_line()).await {
        Ok(Ok(Some(line))) => {
            // Anything it writes later is drained, so it never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
            (child, line)
        }
        Ok(_) => {
            let status = child.wait().await.expect("a status");
            panic!("{command:?} exited ({status}) before announcing readiness:\n{}", log.lines().join("\n"))
        }
        Err(_) => panic!("{command:?} announced nothing within {STARTUP:?}:\n{}", log.lines().join("\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::reported_address;

    #[test]
    fn the_address_is_read_from_the_runtimes_line() {
        let line = "2026-01-01T00:00:00.000000Z  INFO mcp_runtime::transport::http::serve: serving MCP over \
                    HTTP address=127.0.0.1:40123 endpoint=/mcp";
        assert_eq!(reported_address(line), Some(([127, 0, 0, 1], 40123).into()));
        assert_eq!(reported_address("INFO something else address=127.0.0.1:1"), None);
        let coloured =
            "\u{1b}[2m...\u{1b}[0m serving MCP over HTTP \u{1b}[3maddress\u{1b}[0m\u{1b}[2m=\u{1b}[0m127.0.0.1:9 x";
        assert_eq!(reported_address(coloured), Some(([127, 0, 0, 1], 9).into()));
    }
}
