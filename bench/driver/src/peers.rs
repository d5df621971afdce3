//! `bench-driver peers`: every peer framework side by side, on two
//! workloads. The echo `tools/call` (CPU-bound: the framework is all the
//! work) on each path a peer serves: the 2026-07-28 stateless call, the
//! 2025-era call in a session, and the 2025-era call without one (the
//! stateless mode of the official SDKs). And `lookup` (I/O-bound: a Redis
//! GET and an HTTP GET per call, see [`crate::backends`]) on the
//! 2026-07-28 call and in a 2025-era session, the servers pinned to one
//! core and the load generator, Redis and the endpoint to the other.
//! Rounds alternate the peers, as every phase does; a peer that cannot
//! serve a path is shown so, with the error it gave, never as a blank.
//!
//! The peers: ours, rmcp, tower-mcp and TurboMCP (built in this
//! workspace), the official TypeScript SDK on Node and the official Python
//! SDK under uvicorn with one worker and with four (installed by
//! `peers/install.sh` into `target/peers`), and the hyper floor.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::process::{Child, Command};

use crate::backends::{self, Backends};
use crate::http_load::{self, Processes};
use crate::procfs;
use crate::requests::Call;
use crate::servers::free_port;
use crate::stats::Sample;

/// The paths a peer may serve.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Route {
    /// 2026-07-28: every request self-describing, no session.
    Modern,
    /// 2025-11-25 in a session: `initialize` per connection, then calls
    /// with its `Mcp-Session-Id`.
    Sessions,
    /// 2025-11-25 without a session: each call alone, as the SDKs'
    /// stateless modes take it.
    Sessionless,
}

/// What each call asks of the server.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Workload {
    /// `echo`: the framework's own work and nothing else.
    Echo,
    /// `lookup`: a Redis GET and an HTTP GET per call.
    Io,
}

impl Workload {
    /// The routes it runs on: the I/O-bound one on each era's usual path
    /// (the session-less 2025 call is the echo workload's question).
    fn routes(self) -> &'static [Route] {
        match self {
            Workload::Echo => &[Route::Modern, Route::Sessions, Route::Sessionless],
            Workload::Io => &[Route::Modern, Route::Sessions],
        }
    }

    fn call(self, route: Route) -> Call {
        match (self, route) {
            (Workload::Echo, route) => route.call(),
            (Workload::Io, Route::Modern) => Call::lookup(),
            (Workload::Io, Route::Sessions) => Call::legacy_lookup(),
            (Workload::Io, Route::Sessionless) => Call { sessionless: true, ..Call::legacy_lookup() },
        }
    }
}

impl Route {
    fn title(self) -> &'static str {
        match self {
            Route::Modern => "2026-07-28, stateless",
            Route::Sessions => "2025-11-25, one session per connection",
            Route::Sessionless => "2025-11-25, no session (each call alone)",
        }
    }

    fn call(self) -> Call {
        match self {
            Route::Modern => Call::echo(),
            Route::Sessions => Call::legacy_echo(),
            Route::Sessionless => Call::sessionless_echo(),
        }
    }
}

/// Whether connections to `label` open a session on `route`: the floor
/// holds none, and gets the session's call with a fixed id instead.
fn opens_sessions(label: &str, route: Route) -> bool {
    route == Route::Sessions && label != "floor"
}

/// One peer: how it is started for a route.
struct Peer {
    label: &'static str,
    /// The program and its arguments for `route` on `addr`; `None` when
    /// the peer has no mode for it at all.
    command: fn(&Path, Route, SocketAddr) -> Launch,
}

fn release(bench: &Path, package: &str) -> PathBuf {
    bench.join("target/release").join(package)
}

/// A program, its arguments and its environment.
type Launch = Option<(PathBuf, Vec<String>, Vec<(&'static str, String)>)>;

fn rust_peer(bench: &Path, package: &str, route: Route, addr: SocketAddr, sessions_flag: bool) -> Launch {
    let mut args = vec!["http".to_owned(), addr.to_string()];
    if sessions_flag && route == Route::Sessions {
        args.push("--sessions".to_owned());
    }
    Some((release(bench, package), args, Vec::new()))
}

fn node_peer(bench: &Path, route: Route, addr: SocketAddr, sdk: &str) -> Launch {
    // The copy beside its installed modules (`peers/install.sh`): an ES
    // module finds its imports from where it lies.
    let script = bench.join("target/peers/node/server.mjs");
    let mut args = vec![script.display().to_string(), "http".to_owned(), addr.to_string()];
    if route == Route::Sessions {
        args.push("--sessions".to_owned());
    }
    args.extend(["--sdk".to_owned(), sdk.to_owned()]);
    Some((PathBuf::from("node"), args, Vec::new()))
}

fn python_peer(bench: &Path, route: Route, addr: SocketAddr, workers: usize) -> Launch {
    let python = bench.join("target/peers/python/venv/bin/python");
    let args = vec![
        "-m".to_owned(),
        "uvicorn".to_owned(),
        "server:app".to_owned(),
        "--app-dir".to_owned(),
        bench.join("peers/python").display().to_string(),
        "--host".to_owned(),
        addr.ip().to_string(),
        "--port".to_owned(),
        addr.port().to_string(),
        "--workers".to_owned(),
        workers.to_string(),
        "--log-level".to_owned(),
        "warning".to_owned(),
        // One line per request on a pipe nobody reads is not the SDK's work.
        "--no-access-log".to_owned(),
    ];
    // Compiled modules go under target/, not beside the sources.
    let cache = bench.join("target/peers/python/pycache").display().to_string();
    let mut env = vec![("PYTHONPYCACHEPREFIX", cache)];
    if route == Route::Sessions {
        env.push(("BENCH_SESSIONS", "1".to_owned()));
    }
    Some((python, args, env))
}

const PEERS: [Peer; 9] = [
    Peer { label: "ours", command: |b, r, a| rust_peer(b, "bench-ours", r, a, false) },
    Peer { label: "rmcp", command: |b, r, a| rust_peer(b, "bench-rmcp", r, a, true) },
    Peer { label: "tower-mcp", command: |b, r, a| rust_peer(b, "bench-tower-mcp", r, a, true) },
    Peer { label: "TurboMCP", command: |b, r, a| rust_peer(b, "bench-turbomcp", r, a, true) },
    Peer { label: "TypeScript SDK 2", command: |b, r, a| node_peer(b, r, a, "v2") },
    Peer { label: "TypeScript SDK 1", command: |b, r, a| node_peer(b, r, a, "v1") },
    Peer { label: "Python SDK ×1", command: |b, r, a| python_peer(b, r, a, 1) },
    Peer { label: "Python SDK ×4", command: |b, r, a| python_peer(b, r, a, 4) },
    Peer { label: "floor", command: |b, r, a| rust_peer(b, "bench-floor", r, a, false) },
];

/// A peer running for one route.
struct Started {
    label: &'static str,
    addr: SocketAddr,
    child: Child,
    /// The process and its children (uvicorn's workers), whose CPU counts.
    pids: Vec<u32>,
    idle_kib: u64,
}

/// What one peer did on one route.
#[derive(Default)]
struct Outcome {
    /// (concurrency, every round's sample together, each round's req/s).
    levels: Vec<(usize, Sample, Vec<f64>)>,
    idle_kib: u64,
    loaded_kib: u64,
    /// Why it could not serve the route, if it could not.
    failed: Option<String>,
}

/// Every descendant of `pid`, itself first.
fn family(pid: u32) -> Vec<u32> {
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        let parent = all[i];
        let tasks = std::fs::read_dir(format!("/proc/{parent}/task")).into_iter().flatten().flatten();
        for task in tasks {
            let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            all.extend(children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()));
        }
        i += 1;
    }
    all
}

fn rss(pids: &[u32]) -> u64 {
    pids.iter().filter_map(|&pid| procfs::rss_kib(pid).ok()).sum()
}

/// How the peers of one workload are run.
struct Setting<'a> {
    workload: Workload,
    /// Variables every peer gets (the backends' addresses).
    env: &'a [(&'static str, String)],
    /// The CPUs the peers are pinned to (`taskset --cpu-list`), if any.
    cpus: Option<&'a str>,
}

async fn start(bench: &Path, peer: &Peer, route: Route, setting: &Setting<'_>) -> Result<Option<Started>> {
    let addr: SocketAddr = ([127, 0, 0, 1], free_port()?).into();
    let Some((program, args, env)) = (peer.command)(bench, route, addr) else { return Ok(None) };
    // taskset execs the program: the pid is the peer's.
    let mut command = match setting.cpus {
        Some(cpus) => {
            let mut command = Command::new("taskset");
            command.args(["--cpu-list", cpus]).arg(&program);
            command
        }
        None => Command::new(&program),
    };
    command
        .args(&args)
        .envs(env)
        .envs(setting.env.iter().cloned())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().with_context(|| format!("starting {} ({})", peer.label, program.display()))?;
    let pid = child.id().context("no pid")?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(addr).await.is_err() {
        if let Some(status) = child.try_wait()? {
            bail!("{} exited before listening: {status}", peer.label);
        }
        if Instant::now() > deadline {
            bail!("{} did not listen within 30 s", peer.label);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Ready when it answers the route's call: a listening socket is not
    // enough for uvicorn, whose workers start after it binds. A wrong
    // answer a few seconds after that is the peer's answer to this route.
    let (processes, call) = (Processes::server(pid), setting.workload.call(route));
    let listening = Instant::now();
    loop {
        let probe = http_load::round(addr, &processes, &call, 1, 1, opens_sessions(peer.label, route));
        match tokio::time::timeout(Duration::from_secs(10), probe).await {
            Ok(Ok(_)) => break,
            Ok(Err(_)) if listening.elapsed() < Duration::from_secs(3) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Ok(Err(error)) => return Err(error),
            Err(_) => bail!("no answer within 10 s"),
        }
    }
    // Workers settle after the first answers.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pids = family(pid);
    let idle_kib = rss(&pids);
    Ok(Some(Started { label: peer.label, addr, child, pids, idle_kib }))
}

/// The levels and rounds of the run.
pub(crate) struct Plan {
    /// Calls of the untimed round at c=16 each peer gets first.
    pub(crate) warmup: usize,
    pub(crate) rounds: usize,
    pub(crate) levels: Vec<(usize, usize)>,
}

/// Runs `workload` on each of its routes for every peer and renders the
/// tables. The I/O-bound workload starts its backends, and (on a machine
/// of two CPUs or more) pins the peers to the first CPU and this driver,
/// with what it starts, to the others.
pub(crate) async fn run(bench: &Path, plan: &Plan, workload: Workload) -> Result<String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "An untimed round of {} calls at c=16 first, then {} rounds per level, peers in turn; calls per round: {}. req/s: over every round, ± half the spread between the slowest and the fastest round. Server CPU: utime + stime of the server and every process it started (uvicorn's workers), over the timed part plus 100 ms. RSS: the same processes, idle after the first answers, and after the route's load. Errors: none in any row; a wrong or failed answer ends the peer's row with the error.\n",
        plan.warmup,
        plan.rounds,
        plan.levels.iter().map(|(c, n)| format!("{n} at c={c}")).collect::<Vec<_>>().join(", ")
    );
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let (backends, restore) = match workload {
        Workload::Echo => (None, None),
        Workload::Io => {
            let restore = match cpus {
                1 => None,
                n => Some(backends::pin_self(&format!("1-{}", n - 1))?),
            };
            // Started after the pinning: Redis and the endpoint share the
            // driver's CPUs.
            let started = Backends::start().await?;
            let _ = writeln!(
                out,
                "Each call: `GET {}` on a local redis-server {}, then an HTTP GET of a local hyper endpoint answering `{}`; the answer's text is both. {}\n",
                backends::KEY,
                redis_version(),
                backends::BODY,
                if cpus > 1 {
                    format!(
                        "The peers run on CPU 0 alone (`taskset`); the load generator, Redis and the endpoint on CPU 1-{}.",
                        cpus - 1
                    )
                } else {
                    "One CPU only: nothing is pinned.".to_owned()
                }
            );
            (Some(started), restore)
        }
    };
    let env = backends.as_ref().map(Backends::env).unwrap_or_default();
    let pinned = (workload == Workload::Io && cpus > 1).then_some("0");
    let setting = Setting { workload, env: &env, cpus: pinned };
    for &route in workload.routes() {
        eprintln!("peers: {:?}, {}", workload, route.title());
        let mut outcomes: Vec<(&'static str, Outcome)> = Vec::new();
        let mut running = Vec::new();
        for peer in &PEERS {
            match start(bench, peer, route, &setting).await {
                Ok(Some(started)) => {
                    outcomes.push((peer.label, Outcome { idle_kib: started.idle_kib, ..Outcome::default() }));
                    running.push(started);
                }
                Ok(None) => {
                    outcomes.push((peer.label, Outcome { failed: Some("no such mode".into()), ..Outcome::default() }))
                }
                Err(error) => {
                    eprintln!("  {}: cannot serve: {error:#}", peer.label);
                    outcomes.push((
                        peer.label,
                        Outcome { failed: Some(short(&format!("{error:#}"))), ..Outcome::default() },
                    ));
                }
            }
        }
        // An untimed round first: a JIT (V8) is not warm after the
        // connections' own warm-up calls, and a cold start is not what a
        // served peer costs.
        for server in &running {
            let sessions = opens_sessions(server.label, route);
            let processes = Processes { servers: server.pids.clone(), proxy: None };
            if let Err(error) =
                http_load::round(server.addr, &processes, &workload.call(route), 16, plan.warmup, sessions).await
            {
                let outcome = &mut outcomes.iter_mut().find(|(l, _)| *l == server.label).context("an outcome")?.1;
                outcome.failed = Some(format!("failed warming up: {}", short(&format!("{error:#}"))));
            }
        }
        for &(concurrency, calls) in &plan.levels {
            for round in 0..plan.rounds {
                for server in &running {
                    let outcome = &mut outcomes.iter_mut().find(|(l, _)| *l == server.label).context("an outcome")?.1;
                    if outcome.failed.is_some() {
                        continue;
                    }
                    let processes = Processes { servers: server.pids.clone(), proxy: None };
                    let sessions = opens_sessions(server.label, route);
                    let call = workload.call(route);
                    match http_load::round(server.addr, &processes, &call, concurrency, calls, sessions).await {
                        Ok((sample, _)) => {
                            eprintln!(
                                "  c={concurrency} round {}/{}: {:16} {:>8.0} req/s {:>7.1} µs CPU/call",
                                round + 1,
                                plan.rounds,
                                server.label,
                                sample.rate(),
                                sample.cpu_us()
                            );
                            let rate = sample.rate();
                            match outcome.levels.iter_mut().find(|(c, _, _)| *c == concurrency) {
                                Some((_, total, rates)) => {
                                    total.add(sample);
                                    rates.push(rate);
                                }
                                None => outcome.levels.push((concurrency, sample, vec![rate])),
                            }
                        }
                        Err(error) => {
                            eprintln!("  {}: failed at c={concurrency}: {error:#}", server.label);
                            outcome.failed =
                                Some(format!("failed at c={concurrency}: {}", short(&format!("{error:#}"))));
                        }
                    }
                }
            }
        }
        for server in running {
            if let Some((_, outcome)) = outcomes.iter_mut().find(|(l, _)| *l == server.label) {
                outcome.loaded_kib = rss(&family(server.pids[0]));
            }
            let mut child = server.child;
            let _ = child.start_kill();
            let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
        }
        render(&mut out, route, &plan.levels, &mut outcomes);
    }
    drop(backends);
    if let Some(before) = restore {
        backends::pin_self(&before)?;
    }
    Ok(out)
}

/// `redis-server --version`'s version, for the method.
fn redis_version() -> String {
    let output = std::process::Command::new("redis-server").arg("--version").output();
    let text = output.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    text.split_whitespace().find_map(|word| word.strip_prefix("v=")).map_or(String::new(), |v| v.to_owned())
}

/// Half the spread of the rounds' rates, in percent of their mean; `None`
/// for a single round.
fn spread(rates: &[f64]) -> Option<f64> {
    if rates.len() < 2 {
        return None;
    }
    let (min, max) = rates.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    Some((max - min) / 2.0 / mean * 100.0)
}

fn short(text: &str) -> String {
    let line = text.replace(['\n', '|'], " ");
    match line.char_indices().nth(160) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

fn render(out: &mut String, route: Route, levels: &[(usize, usize)], outcomes: &mut [(&'static str, Outcome)]) {
    let _ = writeln!(out, "### {}\n", route.title());
    let mut header = String::from("| peer |");
    let mut rule = String::from("|---|");
    for (c, _) in levels {
        let _ = write!(header, " c={c} req/s | c={c} CPU µs/call | c={c} p50 / p99 µs |");
        rule.push_str("---:|---:|---:|");
    }
    header.push_str(" RSS idle / loaded MiB |");
    rule.push_str("---:|");
    let _ = writeln!(out, "{header}\n{rule}");
    for (label, outcome) in outcomes.iter_mut() {
        let mut row = format!("| {label} |");
        if let Some(why) = &outcome.failed
            && outcome.levels.is_empty()
        {
            let span = levels.len() * 3 + 1;
            let _ = write!(row, " cannot serve this path: {} |", short(why));
            row.push_str(&" |".repeat(span - 1));
            let _ = writeln!(out, "{row}");
            continue;
        }
        for (c, _) in levels {
            match outcome.levels.iter_mut().find(|(level, _, _)| level == c) {
                Some((_, sample, rates)) => {
                    let rate = match spread(rates) {
                        Some(spread) => format!("{:.0} ±{spread:.0}%", sample.rate()),
                        None => format!("{:.0}", sample.rate()),
                    };
                    let _ = write!(
                        row,
                        " {rate} | {:.1} | {:.0} / {:.0} |",
                        sample.cpu_us(),
                        sample.percentile_us(50.0),
                        sample.percentile_us(99.0)
                    );
                }
                None => row.push_str(" — | — | — |"),
            }
        }
        let _ = write!(row, " {:.1} / {:.1}", outcome.idle_kib as f64 / 1024.0, outcome.loaded_kib as f64 / 1024.0);
        // A peer that failed after some levels: why, in the last cell.
        if let Some(why) = &outcome.failed {
            let _ = write!(row, " ({})", short(why));
        }
        row.push_str(" |");
        let _ = writeln!(out, "{row}");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_a_peer_cannot_serve_is_a_full_row_naming_why() {
        let levels = [(1, 10), (16, 10)];
        let mut outcomes = vec![
            ("served", Outcome { idle_kib: 2048, loaded_kib: 4096, ..Outcome::default() }),
            ("refused", Outcome { failed: Some("400 | Bad\nRequest".into()), ..Outcome::default() }),
        ];
        let mut out = String::new();
        render(&mut out, Route::Sessionless, &levels, &mut outcomes);
        let rows: Vec<&str> = out.lines().filter(|l| l.starts_with('|')).collect();
        let cells = |row: &str| row.matches('|').count();
        assert_eq!(rows.len(), 4, "{out}");
        assert!(rows.iter().all(|row| cells(row) == cells(rows[0])), "every row as wide as the header:\n{out}");
        assert!(rows[2].contains("| served | — | — | — | — | — | — | 2.0 / 4.0 |"), "{out}");
        assert!(
            rows[3].contains("cannot serve this path: 400   Bad Request"),
            "no pipe or line break of the error: {out}"
        );
    }

    #[test]
    fn the_spread_is_half_the_range_of_the_rounds_in_percent_of_their_mean() {
        assert_eq!(spread(&[100.0]), None);
        let spread = spread(&[90.0, 100.0, 110.0]).expect("three rounds");
        assert!((spread - 10.0).abs() < 1e-9, "{spread}");
    }

    #[test]
    fn the_floor_never_opens_a_session() {
        assert!(opens_sessions("rmcp", Route::Sessions));
        assert!(!opens_sessions("floor", Route::Sessions));
        assert!(!opens_sessions("rmcp", Route::Sessionless));
    }
}
