//! Builds the three echo servers (ours, rmcp, the hyper floor), measures
//! them side by side and prints the table.
//!
//! ```text
//! bench-driver [all | build | http | legacy | stdio | scale | balancer] [--quick] [--rebuild-cycles N]
//! bench-driver load ADDR PID [--concurrency C] [--calls N] [--list | --legacy] [--lookup]
//! ```
//!
//! `http` measures the stateless 2026-07-28 `tools/call`, `legacy` the same
//! call in a 2025-era session (one per connection), `balancer` ours behind
//! HAProxy (`.ci/haproxy.cfg`) with one and three replicas.
//!
//! `load` sends calls to a server started elsewhere (for profiling it under
//! `perf`; see `profile.sh`) and prints its rate and CPU per call; with
//! `--legacy`, 2025-era calls, each connection in a session of its own.
//!
//! Every phase alternates the servers round by round (ours, rmcp, floor,
//! ours, …) so that whatever else the machine does hits them alike. All
//! traffic stays on the loopback interface; every loop is bounded in count
//! and each call in time.

mod backends;
mod balancer;
mod compile;
mod http_load;
mod peers;
mod procfs;
mod report;
mod requests;
mod servers;
mod stats;
mod stdio_load;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use http_load::Processes;
use report::{Memory, Results, Scale};
use requests::Call;
use servers::Kind;
use stats::Sample;

/// How much work each phase does.
struct Plan {
    /// Rounds per HTTP concurrency level.
    http_rounds: usize,
    /// (concurrency, calls per round).
    http_levels: Vec<(usize, usize)>,
    /// stdio rounds and calls per round.
    stdio_rounds: usize,
    stdio_calls: usize,
    /// Requests in flight over stdio.
    stdio_window: usize,
    /// Rounds per scaling measurement.
    scale_rounds: usize,
    /// `tools/call` per scaling round.
    scale_calls: usize,
    /// (tools, `tools/list` per round).
    scale_lists: Vec<(usize, usize)>,
    /// Edit-and-restore pairs per server for the rebuild time.
    rebuild_cycles: usize,
}

impl Plan {
    fn full() -> Plan {
        Plan {
            http_rounds: 6,
            http_levels: vec![(1, 5_000), (16, 20_000), (64, 20_000)],
            stdio_rounds: 4,
            stdio_calls: 25_000,
            stdio_window: 32,
            scale_rounds: 4,
            scale_calls: 10_000,
            scale_lists: vec![(10, 6_000), (100, 3_000), (1000, 1_500)],
            rebuild_cycles: 2,
        }
    }

    /// A tenth of the work, to check that everything runs.
    fn quick() -> Plan {
        let full = Plan::full();
        Plan {
            http_rounds: 2,
            http_levels: full.http_levels.iter().map(|&(c, n)| (c, n / 10)).collect(),
            stdio_rounds: 2,
            stdio_calls: full.stdio_calls / 10,
            scale_rounds: 1,
            scale_calls: full.scale_calls / 10,
            scale_lists: full.scale_lists.iter().map(|&(t, n)| (t, n / 10)).collect(),
            rebuild_cycles: 1,
            ..full
        }
    }

    fn describe(&self) -> Vec<String> {
        vec![
            format!(
                "HTTP: {} rounds per level, each server in turn; calls per round: {}; 20 warm-up calls per connection before the timed part",
                self.http_rounds,
                self.http_levels.iter().map(|(c, n)| format!("{n} at c={c}")).collect::<Vec<_>>().join(", ")
            ),
            "2025-era session: the same levels and rounds; each connection first opens a session (`initialize`, `notifications/initialized`: untimed, before the warm-up) and ends it (DELETE) after the round's figures are taken; the floor holds no sessions and gets the same `tools/call` without the handshake".to_owned(),
            format!(
                "stdio: {} rounds of {} pipelined calls, at most {} in flight",
                self.stdio_rounds, self.stdio_calls, self.stdio_window
            ),
            format!(
                "scaling: all tool counts served at once, {} rounds through them of {} `tools/call` and of `tools/list` ({}) at c=16; every tool in one page",
                self.scale_rounds,
                self.scale_calls,
                self.scale_lists.iter().map(|(t, n)| format!("{n} with {t} tools")).collect::<Vec<_>>().join(", ")
            ),
            format!("rebuild: {} edit-and-restore pair(s) per server, median shown", self.rebuild_cycles),
            "server CPU: utime + stime of the server process from /proc/<pid>/stat over the timed part plus 100 ms after it".to_owned(),
        ]
    }
}

fn command_output(program: &str, args: &[&str]) -> String {
    std::process::Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "?".to_owned())
}

fn machine() -> Vec<String> {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "?".to_owned());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| s.lines().next().map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_owned()))
        .and_then(|kib| kib.parse::<u64>().ok())
        .map_or_else(|| "?".to_owned(), |kib| format!("{:.1} GiB", kib as f64 / 1048576.0));
    vec![
        format!("CPU: {cpu}, {} cores (nproc), {memory} memory", command_output("nproc", &[])),
        format!("kernel: {}", command_output("uname", &["-sr"])),
        format!("toolchain: {}", command_output("rustc", &["--version"])),
        format!("load average (1 min) at start: {}", procfs::load_average()),
    ]
}

async fn phase_build(bench: &Path, plan: &Plan, results: &mut Results, rebuild: bool) -> Result<()> {
    for kind in Kind::ALL {
        eprintln!("build: {}", kind.package());
        let crates = compile::build_and_count(bench, kind)?;
        let figures = results.builds.entry(kind).or_default();
        figures.crates = crates;
    }
    if rebuild {
        for kind in Kind::MCP {
            eprintln!("rebuild after editing the tool body: {}", kind.package());
            let times = compile::rebuild_times(bench, kind, plan.rebuild_cycles)?;
            results.builds.entry(kind).or_default().rebuilds = times;
        }
    }
    for kind in Kind::ALL {
        results.builds.entry(kind).or_default().stripped_bytes = compile::stripped_size(bench, kind)?;
    }
    Ok(())
}

/// The HTTP levels of the plan against servers already running, rounds
/// alternating them; `after_round` sees each round's server and how many
/// calls it answered in it.
async fn http_levels(
    plan: &Plan,
    running: &[servers::Running],
    call: &Call,
    scenario: &str,
    mut after_round: impl FnMut(&servers::Running, u64) -> Result<()>,
) -> Result<Vec<(usize, HashMap<Kind, Sample>)>> {
    let mut levels = Vec::new();
    for &(concurrency, calls) in &plan.http_levels {
        let mut samples: HashMap<Kind, Sample> = HashMap::new();
        for r in 0..plan.http_rounds {
            for server in running {
                let addr = server.addr.context("an HTTP server without an address")?;
                let sessions = server.kind != Kind::Floor;
                let (sample, answered) =
                    http_load::round(addr, &Processes::server(server.pid), call, concurrency, calls, sessions).await?;
                eprintln!(
                    "{scenario} c={concurrency} round {}/{}: {:5} {:>8.0} req/s {:>6.1} µs CPU/call",
                    r + 1,
                    plan.http_rounds,
                    server.kind.label(),
                    sample.rate(),
                    sample.cpu_us()
                );
                samples.entry(server.kind).or_default().add(sample);
                after_round(server, answered)?;
            }
        }
        levels.push((concurrency, samples));
    }
    Ok(levels)
}

async fn phase_http(bench: &Path, plan: &Plan, results: &mut Results) -> Result<()> {
    let mut running = Vec::new();
    for kind in Kind::ALL {
        running.push(servers::start_http(bench, kind, &[]).await?);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut served: HashMap<Kind, u64> = HashMap::new();
    for server in &running {
        let memory = Memory { idle_kib: procfs::rss_kib(server.pid)?, ..Memory::default() };
        results.memory.insert(server.kind, memory);
    }
    let memory = &mut results.memory;
    results.http = http_levels(plan, &running, &Call::echo(), "http", |server, answered| {
        let total = served.entry(server.kind).or_default();
        *total += answered;
        let memory = memory.entry(server.kind).or_default();
        if memory.after_calls == 0 && *total >= 100_000 {
            memory.after_kib = procfs::rss_kib(server.pid)?;
            memory.after_calls = *total;
        }
        Ok(())
    })
    .await?;
    for server in running {
        server.stop().await;
    }
    Ok(())
}

/// The same `tools/call` from 2025-era clients, each connection in a
/// session of its own: ours as it is (it serves both eras on one
/// endpoint), rmcp with its session mode on.
async fn phase_legacy(bench: &Path, plan: &Plan, results: &mut Results) -> Result<()> {
    let mut running = Vec::new();
    for kind in Kind::ALL {
        let args = if kind == Kind::Rmcp { vec!["--sessions".to_owned()] } else { Vec::new() };
        running.push(servers::start_http(bench, kind, &args).await?);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    results.legacy = http_levels(plan, &running, &Call::legacy_echo(), "legacy", |_, _| Ok(())).await?;
    for server in running {
        server.stop().await;
    }
    Ok(())
}

async fn phase_stdio(bench: &Path, plan: &Plan, results: &mut Results) -> Result<()> {
    let mut running = Vec::new();
    for kind in Kind::MCP {
        running.push(servers::start_stdio(bench, kind)?);
    }
    let mut next_id = 1;
    for r in 0..plan.stdio_rounds {
        for server in &mut running {
            let sample = stdio_load::round(server, next_id, plan.stdio_calls, plan.stdio_window).await?;
            eprintln!(
                "stdio round {}/{}: {:5} {:>8.0} req/s {:>6.1} µs CPU/call",
                r + 1,
                plan.stdio_rounds,
                server.kind.label(),
                sample.rate(),
                sample.cpu_us()
            );
            results.stdio.entry(server.kind).or_default().add(sample);
        }
        next_id += plan.stdio_calls as u64;
    }
    for server in running {
        server.stop().await;
    }
    Ok(())
}

async fn phase_scale(bench: &Path, plan: &Plan, results: &mut Results) -> Result<()> {
    // Every tool count runs at once, and rounds go through all of them in
    // turn, so the comparison across tool counts sees the same drift.
    let mut running = Vec::new();
    for &(tools, lists) in &plan.scale_lists {
        for kind in Kind::MCP {
            let mut args = vec!["--tools".to_owned(), tools.to_string()];
            if kind == Kind::Ours {
                // One page holds every tool, as rmcp's single page does.
                args.extend(["--page-size".to_owned(), tools.to_string()]);
            }
            running.push((tools, lists, servers::start_http(bench, kind, &args).await?));
        }
        results.scale.push(Scale { tools, ..Scale::default() });
    }
    for list in [false, true] {
        let call = if list { Call::list() } else { Call::echo() };
        for _ in 0..plan.scale_rounds {
            for (tools, lists, server) in &running {
                let addr = server.addr.context("an HTTP server without an address")?;
                let calls = if list { *lists } else { plan.scale_calls };
                let (sample, _) =
                    http_load::round(addr, &Processes::server(server.pid), &call, 16, calls, false).await?;
                eprintln!(
                    "scale {tools} tools {}: {:5} {:>8.0} req/s {:>7.1} µs CPU/req",
                    call.method,
                    server.kind.label(),
                    sample.rate(),
                    sample.cpu_us()
                );
                let scale = results.scale.iter_mut().find(|s| s.tools == *tools).context("a scaling entry")?;
                let map = if list { &mut scale.list } else { &mut scale.call };
                map.entry(server.kind).or_default().add(sample);
            }
        }
    }
    for (_, _, server) in running {
        server.stop().await;
    }
    Ok(())
}

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// `load ADDR PID [--behind PID] [--concurrency C] [--calls N] [--list | --legacy] [--lookup]`:
/// with `--behind`, PID is a front (a gateway) and the other the server
/// behind it, each one's CPU reported.
async fn load_only(args: &[String]) -> Result<()> {
    let option = |name: &str, default: usize| -> Result<usize> {
        match args.iter().position(|a| a == name) {
            Some(i) => Ok(args.get(i + 1).context("an option without its number")?.parse()?),
            None => Ok(default),
        }
    };
    let addr = args.get(1).context("load needs ADDR")?.parse()?;
    let pid = args.get(2).context("load needs PID")?.parse()?;
    let flag = |name: &str| args.iter().any(|a| a == name);
    let call = if flag("--list") {
        Call::list()
    } else if flag("--lookup") {
        // Against backends of one's own: only Redis's value is known.
        let call = if flag("--legacy") { Call::legacy_lookup() } else { Call::lookup() };
        Call { expect: br#""text":"from-redis "#, ..call }
    } else if flag("--legacy") {
        Call::legacy_echo()
    } else {
        Call::echo()
    };
    let behind: Option<u32> = match args.iter().position(|a| a == "--behind") {
        Some(i) => Some(args.get(i + 1).context("--behind without its PID")?.parse()?),
        None => None,
    };
    let processes = match behind {
        Some(behind) => Processes { servers: vec![behind], proxy: Some(pid) },
        None => Processes::server(pid),
    };
    let (mut sample, _) =
        http_load::round(addr, &processes, &call, option("--concurrency", 16)?, option("--calls", 100_000)?, true)
            .await?;
    println!(
        "{}: {:.0} req/s, p50 {:.1} µs, p99 {:.1} µs, server CPU {:.1} µs per call",
        call.method,
        sample.rate(),
        sample.percentile_us(50.0),
        sample.percentile_us(99.0),
        sample.cpu_us()
    );
    if behind.is_some() {
        println!(
            "front CPU {:.1} µs per call, behind it {:.1} µs per call",
            sample.proxy_cpu_us(),
            sample.cpu_us() - sample.proxy_cpu_us()
        );
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "load") {
        return load_only(&args).await;
    }
    if args.first().is_some_and(|a| a == "peers") {
        let quick = args.iter().any(|a| a == "--quick");
        let workloads = match args.iter().position(|a| a == "--workload").map(|i| args.get(i + 1).map(String::as_str)) {
            None | Some(Some("both")) => vec![peers::Workload::Echo, peers::Workload::Io],
            Some(Some("echo")) => vec![peers::Workload::Echo],
            Some(Some("io")) => vec![peers::Workload::Io],
            Some(_) => bail!("usage: bench-driver peers [--workload echo|io|both] [--quick]"),
        };
        let bench = bench_dir();
        for workload in workloads {
            // The I/O-bound calls wait on two round trips each: fewer of
            // them take as long as the echo rounds.
            let plan = match (workload, quick) {
                (peers::Workload::Echo, true) => {
                    peers::Plan { warmup: 1_000, rounds: 1, levels: vec![(1, 500), (16, 2_000), (64, 2_000)] }
                }
                (peers::Workload::Echo, false) => {
                    peers::Plan { warmup: 10_000, rounds: 4, levels: vec![(1, 3_000), (16, 10_000), (64, 10_000)] }
                }
                (peers::Workload::Io, true) => {
                    peers::Plan { warmup: 500, rounds: 1, levels: vec![(1, 200), (16, 1_000), (64, 1_000)] }
                }
                (peers::Workload::Io, false) => {
                    peers::Plan { warmup: 2_000, rounds: 3, levels: vec![(1, 1_000), (16, 4_000), (64, 4_000)] }
                }
            };
            let mut table = format!(
                "Machine: {}

",
                machine().join("; ")
            );
            table.push_str(&peers::run(&bench, &plan, workload).await?);
            println!("{table}");
            let name = match workload {
                peers::Workload::Echo => "target/peers.md",
                peers::Workload::Io => "target/peers-io.md",
            };
            let latest = bench.join(name);
            std::fs::write(&latest, &table).with_context(|| format!("writing {}", latest.display()))?;
            eprintln!("written to {}", latest.display());
        }
        return Ok(());
    }
    let mut plan = if args.iter().any(|a| a == "--quick") { Plan::quick() } else { Plan::full() };
    if let Some(i) = args.iter().position(|a| a == "--rebuild-cycles") {
        plan.rebuild_cycles = args.get(i + 1).context("--rebuild-cycles needs a number")?.parse()?;
    }
    let phase = args.iter().find(|a| !a.starts_with("--") && a.parse::<usize>().is_err()).map_or("all", String::as_str);
    if !matches!(phase, "all" | "build" | "http" | "legacy" | "stdio" | "scale" | "balancer") {
        bail!(
            "usage: bench-driver [all | build | http | legacy | stdio | scale | balancer] [--quick] [--rebuild-cycles N]"
        );
    }
    let bench = bench_dir();
    compile::repair(&bench)?;
    let mut results = Results { machine: machine(), settings: plan.describe(), ..Results::default() };
    let everything = phase == "all";
    if everything || phase == "balancer" {
        balancer::haproxy_version()?;
    }
    phase_build(&bench, &plan, &mut results, everything || phase == "build").await?;
    if everything || phase == "http" {
        phase_http(&bench, &plan, &mut results).await?;
    }
    if everything || phase == "legacy" {
        phase_legacy(&bench, &plan, &mut results).await?;
    }
    if everything || phase == "stdio" {
        phase_stdio(&bench, &plan, &mut results).await?;
    }
    if everything || phase == "scale" {
        phase_scale(&bench, &plan, &mut results).await?;
    }
    if everything || phase == "balancer" {
        balancer::phase(&bench, &plan, &mut results).await?;
    }
    results.machine.push(format!("load average (1 min) at the end: {}", procfs::load_average()));
    let table = results.render();
    println!("{table}");
    let latest = bench.join("target/latest.md");
    std::fs::write(&latest, &table).with_context(|| format!("writing {}", latest.display()))?;
    eprintln!("written to {}", latest.display());
    Ok(())
}
