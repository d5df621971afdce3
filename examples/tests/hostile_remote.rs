//! The `gateway` in front of hostile remotes (`hostile_remote.py`: a tool
//! list that changes on every read and announces changes in a loop,
//! questions that never end, calls that never answer, a line and an event
//! that never end) and one well-behaved remote (`everything`), while a
//! well-behaved client calls the latter: the gateway's memory stays under
//! 64 MiB and that client's calls keep answering within a second at the
//! 99th percentile. Both are measured, and printed.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::client::Client;
use mcp_runtime::protocol::ElicitResult;
use mcp_tests::process::{announced, serve};
use serde_json::json;
use tokio::process::Command;

/// The most the gateway may hold in memory while it is attacked.
const RSS_AT_MOST_KIB: u64 = 64 * 1024;

/// How long the well-behaved client calls while the attacks go on.
const ATTACKED_FOR: Duration = Duration::from_secs(8);

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hostile_remote.py").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_remotes_neither_exhaust_the_gateway_nor_slow_another_mounts_calls() {
    // The remote over HTTP first: the gateway connects to it as it starts.
    let mut web = Command::new("python3");
    web.args([script().as_str(), "http", "-"]).stderr(Stdio::inherit());
    let (_web, web_addr) = announced(web).await;
    let remote = |name: &str, mode: &str| format!("{name}=python3 {} stdio {mode}", script());
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_gateway"));
    gateway
        .args([
            "--http",
            "127.0.0.1:0",
            &format!("good={} --stdio", env!("CARGO_BIN_EXE_everything")),
            &remote("flood", "flood"),
            &remote("asker", "asker"),
            &remote("big", "bigline"),
            &format!("web=http://{web_addr}/mcp"),
        ])
        .env("NO_COLOR", "1")
        .env("RUST_LOG", "warn,mcp_runtime::transport::http::serve=info");
    let served = serve(gateway).await;
    let pid = served.child.id().expect("the gateway runs");
    let url = format!("http://{}/mcp", served.addr);
    let started_kib = rss_kib(pid);

    // Memory, sampled until the end.
    let done = Arc::new(AtomicBool::new(false));
    let sampling = {
        let done = Arc::clone(&done);
        tokio::spawn(async move {
            let mut most = 0;
            while !done.load(Ordering::Relaxed) {
                most = most.max(rss_kib(pid));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            most
        })
    };

    // The attacks, for as long as the well-behaved client calls.
    let attacker = Client::http(&url)
        .timeout(Duration::from_secs(5))
        .on_elicitation(|_| async { ElicitResult::accept(json!({})) });
    let mut attacks = Vec::new();
    for tool in ["asker_ask", "asker_many"] {
        let (attacker, done) = (attacker.clone(), Arc::clone(&done));
        attacks.push(tokio::spawn(async move {
            while !done.load(Ordering::Relaxed) {
                let refused = attacker.call_tool(tool, json!({})).await;
                assert!(refused.is_err(), "`{tool}` was answered: {refused:?}");
            }
        }));
    }
    for _ in 0..32 {
        let (attacker, done) = (attacker.clone(), Arc::clone(&done));
        attacks.push(tokio::spawn(async move {
            while !done.load(Ordering::Relaxed) {
                let _ = attacker.call_tool("asker_hang", json!({})).await;
            }
        }));
    }
    {
        let attacker = attacker.clone();
        attacks.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let big = attacker.call_tool("big_big", json!({})).await;
            assert!(big.is_err(), "an endless line answered: {big:?}");
            tokio::time::sleep(Duration::from_secs(2)).await;
            let event = attacker.call_tool("web_bigevent", json!({})).await;
            assert!(event.is_err(), "an endless event answered: {event:?}");
        }));
    }

    // The well-behaved client, on another mount.
    let client = Client::http(&url).timeout(Duration::from_secs(30));
    let mut latencies = Vec::new();
    let until = Instant::now() + ATTACKED_FOR;
    while Instant::now() < until {
        let started = Instant::now();
        let called = client.call_tool("good_test_simple_text", json!({})).await;
        latencies.push(started.elapsed());
        let called = called.expect("the well-behaved mount answers");
        assert_ne!(called.is_error, Some(true), "{called:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done.store(true, Ordering::Relaxed);
    for attack in attacks {
        attack.await.expect("an attack ran");
    }
    let most_kib = sampling.await.expect("sampled");

    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1)];
    let (p50, p99) = (at(0.50), at(0.99));
    eprintln!(
        "hostile remotes: the gateway held {} KiB at most ({started_kib} KiB at start, at most {RSS_AT_MOST_KIB}); \
         {} calls of another mount, p50 {:.1} ms, p99 {:.1} ms (at most 1000 ms)",
        most_kib,
        latencies.len(),
        p50.as_secs_f64() * 1000.0,
        p99.as_secs_f64() * 1000.0
    );
    assert!(most_kib < RSS_AT_MOST_KIB, "the gateway held {most_kib} KiB");
    assert!(p99 < Duration::from_secs(1), "p99 of the well-behaved calls: {p99:?}");
}
