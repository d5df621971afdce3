//! What the I/O-bound workload's `lookup` tool talks to: a local
//! `redis-server` holding the key, and an HTTP endpoint answering a fixed
//! body, both on loopback and both on the load generator's core, so that
//! the core the servers run on does their work alone.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};

use crate::servers::free_port;

/// The key every `lookup` call reads (the floor reads it without parsing).
pub(crate) const KEY: &str = "greeting";
/// The value Redis holds under [`KEY`].
pub(crate) const VALUE: &str = "from-redis";
/// The endpoint's body.
pub(crate) const BODY: &str = "from-http";

/// The two backends, running; dropped, Redis is killed and the endpoint
/// stops with the driver.
pub(crate) struct Backends {
    _redis: Child,
    /// `BENCH_REDIS_URL` for the servers.
    pub(crate) redis_url: String,
    /// `BENCH_HTTP_URL` for the servers.
    pub(crate) http_url: String,
}

impl Backends {
    /// Starts both, and returns once Redis answers `PING` and holds the
    /// key, and the endpoint is listening.
    pub(crate) async fn start() -> Result<Backends> {
        let port = free_port()?;
        let redis = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting redis-server (the I/O-bound workload needs it: apt install redis-server)")?;
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        ready(addr).await?;
        let answer = command(addr, &["SET", KEY, VALUE]).await?;
        if answer != "+OK" {
            bail!("redis SET answered {answer}");
        }
        let http = TcpListener::bind("127.0.0.1:0").await?;
        let http_url = format!("http://{}/data", http.local_addr()?);
        tokio::spawn(serve_endpoint(http));
        Ok(Backends { _redis: redis, redis_url: format!("redis://{addr}"), http_url })
    }

    /// The variables the servers read (`bench_io`, and the SDK peers).
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![("BENCH_REDIS_URL", self.redis_url.clone()), ("BENCH_HTTP_URL", self.http_url.clone())]
    }
}

/// Waits until Redis answers `PING` (it listens before it has loaded).
async fn ready(addr: SocketAddr) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match command(addr, &["PING"]).await {
            Ok(answer) if answer == "+PONG" => return Ok(()),
            _ if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(20)).await,
            Ok(answer) => bail!("redis answered PING with {answer}"),
            Err(error) => return Err(error.context("redis-server did not answer PING within 10 s")),
        }
    }
}

/// One command on a new connection: the first line of the answer.
async fn command(addr: SocketAddr, words: &[&str]) -> Result<String> {
    let mut stream = TcpStream::connect(addr).await?;
    let mut request = format!("*{}\r\n", words.len());
    for word in words {
        request.push_str(&format!("${}\r\n{word}\r\n", word.len()));
    }
    stream.write_all(request.as_bytes()).await?;
    let mut answer = vec![0; 256];
    let read = tokio::time::timeout(Duration::from_secs(2), stream.read(&mut answer)).await??;
    let text = String::from_utf8_lossy(&answer[..read]);
    Ok(text.lines().next().unwrap_or_default().to_owned())
}

/// Answers every request with [`BODY`], keeping connections open.
async fn serve_endpoint(listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else { return };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let service = service_fn(|_request| async {
                let mut response = hyper::Response::new(Full::new(Bytes::from_static(BODY.as_bytes())));
                response.headers_mut().insert(
                    hyper::header::CONTENT_TYPE,
                    hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
                );
                Ok::<_, Infallible>(response)
            });
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

/// Pins this process (every thread) to the CPUs in `list` (`taskset`'s
/// list form): the load generator, and what it starts from then on, keeps
/// off the servers' core. Returns the list it had, to restore.
pub(crate) fn pin_self(list: &str) -> Result<String> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let before = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .context("no Cpus_allowed_list in /proc/self/status")?
        .trim()
        .to_owned();
    let done = std::process::Command::new("taskset")
        .args(["--all-tasks", "--cpu-list", "--pid", list, &std::process::id().to_string()])
        .stdout(Stdio::null())
        .status()
        .context("running taskset (util-linux)")?;
    if !done.success() {
        bail!("taskset could not pin the driver to CPUs {list}");
    }
    Ok(before)
}
