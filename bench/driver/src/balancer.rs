//! The `balancer` phase: ours behind HAProxy, with the repository's own
//! configuration (`.ci/haproxy.cfg`, the one CI and the README's deployment
//! guide use), in front of one replica and of three, beside one replica
//! reached directly.
//!
//! The committed configuration names three servers. For the one-replica
//! setup all three point at the same replica, so that the file measured is
//! the file committed, byte for byte: HAProxy then keeps three connection
//! pools and runs three health checks a second against that one process,
//! which a round of thousands of calls does not notice.
//!
//! Every replica, the direct one included, is started with `--health`, so
//! that the setups differ by the balancer alone.

use std::collections::HashMap;
use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::process::{Child, Command};

use crate::Plan;
use crate::http_load::{self, Processes};
use crate::report::Results;
use crate::requests::Call;
use crate::servers::{self, Kind, Running};
use crate::stats::Sample;

/// One way of reaching ours.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Setup {
    /// One replica, no balancer.
    Direct,
    /// HAProxy in front of one replica.
    One,
    /// HAProxy in front of three replicas.
    Three,
}

impl Setup {
    /// Every setup, in the order rounds alternate them.
    pub(crate) const ALL: [Setup; 3] = [Setup::Direct, Setup::One, Setup::Three];

    /// The label used in progress lines.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Setup::Direct => "direct",
            Setup::One => "haproxy+1",
            Setup::Three => "haproxy+3",
        }
    }
}

/// The replica names `.ci/haproxy.cfg` gives its servers.
const REPLICA_NAMES: [&str; 3] = ["replica1", "replica2", "replica3"];

/// How long HAProxy gets before it must be routing to every replica; it
/// checks each one every second and marks it down after two failures, so
/// by then a replica whose checks fail is out of the rotation.
const CHECK_WAIT: Duration = Duration::from_millis(2500);

/// The HAProxy to run: `$HAPROXY`, else `haproxy` on the `PATH`, else
/// Debian's `/usr/sbin/haproxy` (`/usr/sbin` is not on every user's `PATH`).
fn haproxy_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("HAPROXY") {
        return PathBuf::from(path);
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("haproxy"))
        .find(|path| path.is_file());
    on_path.unwrap_or_else(|| PathBuf::from("/usr/sbin/haproxy"))
}

/// HAProxy's version line, or why it cannot run; checked before any phase
/// so that a full run does not fail after its other phases.
pub(crate) fn haproxy_version() -> Result<String> {
    let binary = haproxy_binary();
    let output = std::process::Command::new(&binary).arg("-v").output().with_context(|| {
        format!(
            "running {} (the balancer phase needs HAProxy: the `haproxy` package, or HAPROXY=path)",
            binary.display()
        )
    })?;
    if !output.status.success() {
        bail!("{} -v failed: {}", binary.display(), output.status);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Ok(text.lines().next().unwrap_or("HAProxy, version unknown").trim().to_owned())
}

/// A running HAProxy, killed when dropped.
struct Haproxy {
    pid: u32,
    addr: SocketAddr,
    /// Where its warnings go (a replica marked down, say).
    log: PathBuf,
    child: Child,
}

impl Haproxy {
    /// Starts HAProxy with `.ci/haproxy.cfg` in front of `replicas` (the
    /// three server lines of the configuration, in order).
    async fn start(bench: &Path, name: &str, replicas: [SocketAddr; 3]) -> Result<Haproxy> {
        let config = bench.parent().context("the bench directory has no parent")?.join(".ci/haproxy.cfg");
        let addr: SocketAddr = ([127, 0, 0, 1], servers::free_port()?).into();
        let log = bench.join(format!("target/haproxy-{name}.log"));
        let output = File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let mut command = Command::new(haproxy_binary());
        command
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .env("MCP_BALANCER_ADDR", addr.to_string())
            .stdin(Stdio::null())
            .stdout(output.try_clone()?)
            .stderr(output)
            .kill_on_drop(true);
        for (i, replica) in replicas.iter().enumerate() {
            command.env(format!("MCP_REPLICA_{}", i + 1), replica.to_string());
        }
        let mut child = command.spawn().context("starting haproxy")?;
        let pid = child.id().context("no pid")?;
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            if let Some(status) = child.try_wait()? {
                bail!("haproxy exited before listening: {status}; {}", log_text(&log));
            }
            if Instant::now() > deadline {
                bail!("haproxy did not listen on {addr} within 20 s; {}", log_text(&log));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(Haproxy { pid, addr, log, child })
    }

    /// Waits until HAProxy's health checks have had time to run and it
    /// routes calls to every one of its servers, each answering.
    async fn wait_ready(&self, started: Instant) -> Result<()> {
        let call = Call::echo();
        let deadline = started + Duration::from_secs(20);
        loop {
            let mut seen = Vec::new();
            // Round robin: consecutive calls go to consecutive servers.
            for _ in 0..2 * REPLICA_NAMES.len() {
                match http_load::answered_by(self.addr, &call).await {
                    Ok(Some(name)) => seen.push(name),
                    Ok(None) => bail!("haproxy answered without X-Mcp-Replica"),
                    Err(_) => break,
                }
            }
            let all = REPLICA_NAMES.iter().all(|name| seen.iter().any(|s| s == name));
            if all && started.elapsed() >= CHECK_WAIT {
                return self.healthy();
            }
            if Instant::now() > deadline {
                bail!("haproxy did not route to all of {REPLICA_NAMES:?} within 20 s; {}", log_text(&self.log));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Fails if HAProxy ever marked a server down or had none left.
    fn healthy(&self) -> Result<()> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        if text.contains(" is DOWN") || text.contains("ALERT") {
            bail!("haproxy lost a replica: {}", text.trim());
        }
        Ok(())
    }

    /// Stops HAProxy and reaps it.
    async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }
}

fn log_text(log: &Path) -> String {
    match std::fs::read_to_string(log) {
        Ok(text) if !text.trim().is_empty() => format!("its output: {}", text.trim()),
        _ => "no output".to_owned(),
    }
}

/// One setup, ready to take calls.
struct Target {
    setup: Setup,
    addr: SocketAddr,
    processes: Processes,
    replicas: Vec<Running>,
    proxy: Option<Haproxy>,
}

async fn replica(bench: &Path) -> Result<Running> {
    servers::start_http(bench, Kind::Ours, &["--health".to_owned()]).await
}

fn addr_of(running: &Running) -> Result<SocketAddr> {
    running.addr.context("an HTTP server without an address")
}

/// Starts the three setups: five replicas and two HAProxy processes, all
/// running throughout so that rounds can alternate them.
async fn start(bench: &Path) -> Result<Vec<Target>> {
    let direct = replica(bench).await?;
    let single = replica(bench).await?;
    let three = [replica(bench).await?, replica(bench).await?, replica(bench).await?];
    let started = Instant::now();
    let one_proxy = Haproxy::start(bench, "one", [addr_of(&single)?; 3]).await?;
    let three_proxy =
        Haproxy::start(bench, "three", [addr_of(&three[0])?, addr_of(&three[1])?, addr_of(&three[2])?]).await?;
    for proxy in [&one_proxy, &three_proxy] {
        proxy.wait_ready(started).await?;
    }
    Ok(vec![
        Target {
            setup: Setup::Direct,
            addr: addr_of(&direct)?,
            processes: Processes::server(direct.pid),
            replicas: vec![direct],
            proxy: None,
        },
        Target {
            setup: Setup::One,
            addr: one_proxy.addr,
            processes: Processes { servers: vec![single.pid], proxy: Some(one_proxy.pid) },
            replicas: vec![single],
            proxy: Some(one_proxy),
        },
        Target {
            setup: Setup::Three,
            addr: three_proxy.addr,
            processes: Processes { servers: three.iter().map(|r| r.pid).collect(), proxy: Some(three_proxy.pid) },
            replicas: three.into(),
            proxy: Some(three_proxy),
        },
    ])
}

/// The HTTP levels and rounds of the plan against the three setups, rounds
/// alternating them.
pub(crate) async fn phase(bench: &Path, plan: &Plan, results: &mut Results) -> Result<()> {
    let version = haproxy_version()?;
    results.settings.push(format!(
        "balancer: {version} with `.ci/haproxy.cfg` as committed, in front of one replica of ours (all three server lines pointing at it) or three; direct: one replica, no balancer; every replica started with `--health` (`/healthz`, `/readyz`); the HTTP levels and rounds, setups alternating; server-side CPU: every replica plus HAProxy"
    ));
    let targets = start(bench).await?;
    let call = Call::echo();
    for &(concurrency, calls) in &plan.http_levels {
        let mut samples: HashMap<Setup, Sample> = HashMap::new();
        for r in 0..plan.http_rounds {
            for target in &targets {
                let (sample, _) =
                    http_load::round(target.addr, &target.processes, &call, concurrency, calls, false).await?;
                eprintln!(
                    "balancer c={concurrency} round {}/{}: {:9} {:>8.0} req/s {:>6.1} µs CPU/call, {:>5.1} of it HAProxy's",
                    r + 1,
                    plan.http_rounds,
                    target.setup.label(),
                    sample.rate(),
                    sample.cpu_us(),
                    sample.proxy_cpu_us()
                );
                samples.entry(target.setup).or_default().add(sample);
            }
        }
        results.balancer.push((concurrency, samples));
    }
    for target in targets {
        if let Some(proxy) = target.proxy {
            // A replica marked down mid-run would have skewed the rounds.
            proxy.healthy()?;
            proxy.stop().await;
        }
        for replica in target.replicas {
            replica.stop().await;
        }
    }
    Ok(())
}
