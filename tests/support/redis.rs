//! A `redis-server` of a test's own, on a free loopback port, without
//! persistence, killed when dropped.

use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

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
        for _ in 0..200 {
            if std::net::TcpListener::bind(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("port {} still taken after redis-server was killed", self.port);
    }
}

/// A loopback port nothing listens on (as far as can be known without keeping it).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// Starts `redis-server` and waits until it accepts connections.
pub async fn start() -> RedisServer {
    start_on(free_port()).await
}

/// Starts `redis-server` on `port` (again, after an outage) and waits until
/// it accepts connections.
pub async fn start_on(port: u16) -> RedisServer {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start redis-server ({e}): apt-get install redis-server"));
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return RedisServer { child, port, url: format!("redis://127.0.0.1:{port}/") };
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("redis-server did not start listening");
}
