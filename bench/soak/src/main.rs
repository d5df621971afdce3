//! Mixed load against a running MCP server (the `everything` example) for
//! a fixed time, with the server's resident memory and open files sampled
//! every second.
//!
//! ```text
//! bench-soak URL PID [--seconds T] [--concurrency C] [--out DIR] [--title TEXT]
//! ```
//!
//! `C` workers (default 16) each go round the mix of `mix.rs` (a call, a
//! list, a listen stream opened, told of a change and closed, a round trip
//! asking for input, a 2025-era session from `initialize` to `DELETE`)
//! until `T` seconds (default 60) have passed. Every second the server
//! process `PID` is measured through `/proc`. The run writes `soak.csv` and
//! `soak.svg` to `DIR` (default `.`) and prints a summary.
//!
//! It exits non-zero when any step failed, the server could not be
//! measured, or the resident memory or the open files grew from the second
//! ten seconds to the last ten beyond [`record::Tolerance`].

mod client;
mod mix;
mod record;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use client::Endpoint;
use mix::{Step, Worker};
use record::Sample;

/// What the command line asks for.
struct Options {
    endpoint: Endpoint,
    pid: u32,
    seconds: u64,
    concurrency: usize,
    out: PathBuf,
    title: Option<String>,
}

fn options(args: &[String]) -> Result<Options> {
    const USAGE: &str = "usage: bench-soak URL PID [--seconds T] [--concurrency C] [--out DIR] [--title TEXT]";
    let value = |name: &str| args.iter().position(|a| a == name).map(|i| args.get(i + 1).context(USAGE)).transpose();
    let (Some(url), Some(pid)) = (args.first(), args.get(1)) else { bail!(USAGE) };
    let options = Options {
        endpoint: Endpoint::parse(url)?,
        pid: pid.parse().context(USAGE)?,
        seconds: value("--seconds")?.map_or(Ok(60), |v| v.parse()).context("--seconds")?,
        concurrency: value("--concurrency")?.map_or(Ok(16), |v| v.parse()).context("--concurrency")?,
        out: value("--out")?.map_or_else(|| PathBuf::from("."), PathBuf::from),
        title: value("--title")?.cloned(),
    };
    if options.seconds < 30 {
        bail!("--seconds must be at least 30: the check compares the second ten seconds with the last ten");
    }
    if options.concurrency == 0 {
        bail!("--concurrency must be at least 1");
    }
    Ok(options)
}

/// Counts shared by the workers and the sampler.
#[derive(Default)]
struct Counts {
    requests: AtomicU64,
    errors: AtomicU64,
    /// Steps completed, per step of [`Step::ALL`].
    steps: [AtomicU64; 5],
    /// The first failures, for the report.
    first_errors: Mutex<Vec<String>>,
}

/// How many failures the report quotes.
const QUOTED_ERRORS: usize = 10;

async fn work(mut worker: Worker, offset: usize, deadline: Instant, counts: Arc<Counts>) {
    let mut turn = offset;
    while Instant::now() < deadline {
        let index = turn % Step::ALL.len();
        turn += 1;
        match worker.run(Step::ALL[index]).await {
            Ok(requests) => {
                counts.requests.fetch_add(requests, Ordering::Relaxed);
                counts.steps[index].fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                {
                    let mut quoted = counts.first_errors.lock().unwrap_or_else(|e| e.into_inner());
                    if quoted.len() < QUOTED_ERRORS {
                        quoted.push(format!("{e:#}"));
                    }
                }
                // A failing server is not hammered in a tight loop.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Measures the server every second until `deadline`; stops early (with
/// the reason) if it cannot.
async fn sample(pid: u32, start: Instant, deadline: Instant, counts: Arc<Counts>) -> (Vec<Sample>, Option<String>) {
    let mut samples = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let (rss_kib, fds) = match record::measure(pid) {
            Ok(measured) => measured,
            Err(e) => return (samples, Some(format!("{e:#}"))),
        };
        samples.push(Sample {
            seconds: start.elapsed().as_secs_f64(),
            rss_kib,
            fds,
            requests: counts.requests.load(Ordering::Relaxed),
            errors: counts.errors.load(Ordering::Relaxed),
        });
        if Instant::now() >= deadline {
            return (samples, None);
        }
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = options(&args)?;
    std::fs::create_dir_all(&options.out).with_context(|| format!("creating {}", options.out.display()))?;
    record::measure(options.pid).context("the server process")?;
    let counts = Arc::new(Counts::default());
    let start = Instant::now();
    let deadline = start + Duration::from_secs(options.seconds);
    let sampler = tokio::spawn(sample(options.pid, start, deadline, Arc::clone(&counts)));
    let mut workers = tokio::task::JoinSet::new();
    for n in 0..options.concurrency {
        let worker = Worker::new(options.endpoint.clone(), n as u64 * 1_000_000_000);
        workers.spawn(work(worker, n, deadline, Arc::clone(&counts)));
    }
    while let Some(done) = workers.join_next().await {
        done.context("a worker panicked")?;
    }
    let (samples, unmeasured) = sampler.await.context("the sampler panicked")?;
    let elapsed = start.elapsed().as_secs_f64();

    let end = samples.last().map_or(0.0, |s| s.seconds);
    let second = record::window(&samples, 10.0, 20.0);
    let last = record::window(&samples, end - 10.0, end + 1.0);
    let windows: Vec<record::Window> = second.iter().chain(last.iter()).copied().collect();
    let title = options.title.clone().unwrap_or_else(|| {
        format!("bench-soak: {} s at concurrency {} against {}", options.seconds, options.concurrency, args[0])
    });
    let csv_path = options.out.join("soak.csv");
    let svg_path = options.out.join("soak.svg");
    std::fs::write(&csv_path, record::csv(&samples)).with_context(|| format!("writing {}", csv_path.display()))?;
    std::fs::write(&svg_path, record::svg(&samples, &windows, &title))
        .with_context(|| format!("writing {}", svg_path.display()))?;

    let requests = counts.requests.load(Ordering::Relaxed);
    let errors = counts.errors.load(Ordering::Relaxed);
    println!("{title}");
    println!("wrote {} and {}", csv_path.display(), svg_path.display());
    println!("{requests} requests answered in {elapsed:.0} s ({:.0}/s), {errors} errors", requests as f64 / elapsed);
    for (step, done) in Step::ALL.iter().zip(&counts.steps) {
        println!("  {:<18} {}", step.name(), done.load(Ordering::Relaxed));
    }
    let mut failures = Vec::new();
    for quoted in counts.first_errors.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        println!("  error: {quoted}");
    }
    if errors > 0 {
        failures.push(format!("{errors} steps failed"));
    }
    if let Some(reason) = unmeasured {
        failures.push(format!("the server could not be measured: {reason}"));
    }
    match (second, last) {
        (Some(second), Some(last)) => {
            let allowed = record::Tolerance::over(&second, options.concurrency);
            println!(
                "resident memory: {} KiB (median of 10-20 s), {} KiB (median of the last 10 s), {} KiB allowed",
                second.rss_kib,
                last.rss_kib,
                second.rss_kib + allowed.rss_kib
            );
            println!(
                "open files: {} (median of 10-20 s), {} (median of the last 10 s), {} allowed",
                second.fds,
                last.fds,
                second.fds + allowed.fds
            );
            if last.rss_kib > second.rss_kib + allowed.rss_kib {
                failures.push("the resident memory grew".to_owned());
            }
            if last.fds > second.fds + allowed.fds {
                failures.push("the open files grew".to_owned());
            }
        }
        _ => failures.push("too few samples to compare the windows".to_owned()),
    }
    if let (Some(first), Some(final_)) = (samples.first(), samples.last()) {
        println!(
            "| start | {} KiB | {} fds |\n| end | {} KiB | {} fds |",
            first.rss_kib, first.fds, final_.rss_kib, final_.fds
        );
    }
    if failures.is_empty() {
        println!("soak passed");
        Ok(())
    } else {
        bail!("soak failed: {}", failures.join("; "))
    }
}
