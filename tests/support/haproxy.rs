//! HAProxy in front of three replicas, with the configuration CI and the
//! deployment guide use (`.ci/haproxy.cfg`), ready once every replica has
//! answered through it.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use http::Method;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use tokio::process::{Child, Command};

use crate::process::STARTUP;
use crate::redis::free_port;

/// A running HAProxy, killed when dropped.
pub struct Balancer {
    _child: Child,
    /// Where clients connect.
    pub addr: SocketAddr,
}

/// How many ports to try: one fails only when another process took it
/// between [`free_port`] and HAProxy's bind (HAProxy cannot report a port
/// the system chose).
const ATTEMPTS: usize = 10;

/// Starts HAProxy in front of `replicas` and waits until each has answered
/// a request through it (the health checks marked them all up).
pub async fn start(replicas: [SocketAddr; 3]) -> Balancer {
    let mut refused = Vec::new();
    for _ in 0..ATTEMPTS {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut command = Command::new("haproxy");
        command
            .args(["-db", "-f", concat!(env!("CARGO_MANIFEST_DIR"), "/../.ci/haproxy.cfg")])
            .env("MCP_BALANCER_ADDR", addr.to_string())
            .env("MCP_REPLICA_1", replicas[0].to_string())
            .env("MCP_REPLICA_2", replicas[1].to_string())
            .env("MCP_REPLICA_3", replicas[2].to_string())
            .stdout(Stdio::null())
            .stdin(Stdio::null())
            .kill_on_drop(true);
        let mut child =
            command.spawn().unwrap_or_else(|e| panic!("cannot start haproxy ({e}): apt-get install haproxy"));
        let ready = async {
            let mut seen = BTreeSet::new();
            loop {
                if let Some(status) = child.try_wait().expect("a status") {
                    return Err(format!("haproxy on {addr} exited ({status})"));
                }
                if let Some(replica) = answered_by(addr).await {
                    seen.insert(replica);
                    if seen.len() == replicas.len() {
                        return Ok(());
                    }
                    continue;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        match tokio::time::timeout(STARTUP, ready).await {
            Ok(Ok(())) => return Balancer { _child: child, addr },
            Ok(Err(why)) => refused.push(why),
            Err(_) => panic!("not every replica answered through haproxy on {addr} within {STARTUP:?}"),
        }
    }
    panic!("haproxy did not start in {ATTEMPTS} attempts: {}", refused.join("; "));
}

/// Which replica answered a readiness probe through the balancer at `addr`
/// (its `X-Mcp-Replica` header), if one did.
async fn answered_by(addr: SocketAddr) -> Option<String> {
    let stream = tokio::net::TcpStream::connect(addr).await.ok()?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.ok()?;
    tokio::spawn(connection);
    let request = http::Request::builder()
        .method(Method::GET)
        .uri("/readyz")
        .header("host", addr.to_string())
        .body(Empty::<bytes::Bytes>::new())
        .expect("a request");
    let response = sender.send_request(request).await.ok()?;
    let replica = response.headers().get("x-mcp-replica")?.to_str().ok()?.to_owned();
    response.into_body().collect().await.ok()?;
    Some(replica)
}
