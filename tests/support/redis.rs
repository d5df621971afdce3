//! A `redis-server` of a test's own, on a loopback port, without
//! persistence, killed when dropped; ready once it has answered `PING`.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::process::{Log, STARTUP};

/// A running `redis-server`.
pub struct RedisServer {
    /// Kept so that the server is killed with this value.
    child: Child,
    /// Its port.
    pub port: u16,
    /// `redis://127.0.0.1:<port>/`.
    pub url: String,
}

impl RedisServer {
    /// Kills the server with SIGKILL, as a crash would, and waits until it
    /// is gone and its port free, so that it can be started again there.
    pub async fn kill(mut self) {
        self.child.start_kill().expect("SIGKILL");
        self.child.wait().await.expect("redis-server gone");
        let freed = async {
            while std::net::TcpListener::bind(("127.0.0.1", self.port)).is_err() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        if tokio::time::timeout(STARTUP, freed).await.is_err() {
            panic!("port {} still taken {STARTUP:?} after redis-server was killed", self.port);
        }
    }
}

/// A loopback port nothing listened on a moment ago. Another process may
/// take it before it is used: only for programs that cannot take port 0,
/// and then with a retry when the port turns out taken.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// How many ports to try before giving up: each try fails only when another
/// process took the port between [`free_port`] and redis-server's bind.
const ATTEMPTS: usize = 10;

/// Starts `redis-server` on a free port, trying another when the one chosen
/// was taken in the meantime (redis-server reads port 0 as "no TCP", so it
/// cannot be given the choice), and waits until it answers `PING`.
pub async fn start() -> RedisServer {
    let mut refused = Vec::new();
    for _ in 0..ATTEMPTS {
        match try_start(free_port(), &[]).await {
            Ok(server) => return server,
            Err(why) => refused.push(why),
        }
    }
    panic!("redis-server did not start in {ATTEMPTS} attempts:\n{}", refused.join("\n"));
}

/// Starts `redis-server` on `port` (again, after an outage) and waits until
/// it answers `PING`. The port must be this one (clients know it), so a
/// failure to bind it is not retried elsewhere.
pub async fn start_on(port: u16) -> RedisServer {
    try_start(port, &[]).await.unwrap_or_else(|why| panic!("{why}"))
}

/// Starts `redis-server` on `port` with the `extra` arguments after the
/// usual ones; ready once it answers `PING` with `PONG`, or `Err` with what
/// it wrote if it exits first (port taken).
pub(crate) async fn try_start(port: u16, extra: &[String]) -> Result<RedisServer, String> {
    let mut child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .args(extra)
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start redis-server ({e}): apt-get install redis-server"));
    // Its log, read so that it never blocks on a full pipe, and shown if it
    // fails to start.
    let log = Log::default();
    let stdout = child.stdout.take().expect("stdout piped");
    let kept = log.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            kept.push_line(line);
        }
    });
    let ready = async {
        loop {
            if pong(port).await {
                return Ok(());
            }
            if let Some(status) = child.try_wait().expect("a status") {
                return Err(format!("redis-server on port {port} exited ({status}):\n{}", log.lines().join("\n")));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    match tokio::time::timeout(STARTUP, ready).await {
        Ok(Ok(())) => Ok(RedisServer { child, port, url: format!("redis://127.0.0.1:{port}/") }),
        Ok(Err(why)) => Err(why),
        Err(_) => Err(format!("redis-server on port {port} did not answer PING within {STARTUP:?}")),
    }
}

/// Whether a Redis server on `port` answers `PING` with `PONG`: a server
/// still loading answers `-LOADING`, and whatever else holds the port
/// answers something else or nothing.
async fn pong(port: u16) -> bool {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.ok()?;
        stream.write_all(b"*1\r\n$4\r\nPING\r\n").await.ok()?;
        let mut answer = [0; 7];
        stream.read_exact(&mut answer).await.ok()?;
        Some(&answer == b"+PONG\r\n")
    };
    tokio::time::timeout(Duration::from_secs(5), exchange).await.ok().flatten().unwrap_or(false)
}
