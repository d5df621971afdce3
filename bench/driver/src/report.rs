//! The printed table and the verdict on each target.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

use crate::balancer::Setup;
use crate::compile::BuildFigures;
use crate::servers::Kind;
use crate::stats::Sample;

/// Resident memory of one HTTP server over the run.
#[derive(Default, Clone)]
pub(crate) struct Memory {
    /// VmRSS after start-up, before any call (KiB).
    pub(crate) idle_kib: u64,
    /// VmRSS at the first round boundary past 100 000 calls (KiB).
    pub(crate) after_kib: u64,
    /// How many calls it had answered then.
    pub(crate) after_calls: u64,
}

/// The scaling runs for one tool count.
#[derive(Default)]
pub(crate) struct Scale {
    /// How many tools each server registered.
    pub(crate) tools: usize,
    /// `tools/call` of `echo`.
    pub(crate) call: HashMap<Kind, Sample>,
    /// `tools/list`, everything in one page.
    pub(crate) list: HashMap<Kind, Sample>,
}

/// Everything one run measured.
#[derive(Default)]
pub(crate) struct Results {
    /// Machine, toolchain and load, as lines.
    pub(crate) machine: Vec<String>,
    /// How the run was configured, as lines.
    pub(crate) settings: Vec<String>,
    /// Build-side figures.
    pub(crate) builds: HashMap<Kind, BuildFigures>,
    /// HTTP `tools/call`, by concurrency.
    pub(crate) http: Vec<(usize, HashMap<Kind, Sample>)>,
    /// HTTP `tools/call` in 2025-era sessions, by concurrency.
    pub(crate) legacy: Vec<(usize, HashMap<Kind, Sample>)>,
    /// Memory of the HTTP servers.
    pub(crate) memory: HashMap<Kind, Memory>,
    /// stdio `tools/call`.
    pub(crate) stdio: HashMap<Kind, Sample>,
    /// Scaling runs.
    pub(crate) scale: Vec<Scale>,
    /// HTTP `tools/call` of ours directly and behind HAProxy, by concurrency.
    pub(crate) balancer: Vec<(usize, HashMap<Setup, Sample>)>,
}

fn ratio(a: f64, b: f64) -> String {
    if a.is_finite() && b.is_finite() && b > 0.0 { format!("{:.2}", a / b) } else { "—".to_owned() }
}

fn num(x: f64, decimals: usize) -> String {
    if x.is_finite() { format!("{x:.decimals$}") } else { "—".to_owned() }
}

fn median(times: &[Duration]) -> f64 {
    let mut secs: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
    secs.sort_by(f64::total_cmp);
    match secs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => secs[n / 2],
        n => (secs[n / 2 - 1] + secs[n / 2]) / 2.0,
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// One table row: ours, rmcp and floor, then ours/rmcp and ours/floor.
fn row(out: &mut String, label: &str, values: [f64; 3], decimals: usize) {
    let [o, r, f] = values;
    let _ = writeln!(
        out,
        "| {label} | {} | {} | {} | {} | {} |",
        num(o, decimals),
        num(r, decimals),
        num(f, decimals),
        ratio(o, r),
        ratio(o, f)
    );
}

/// The rows of one HTTP scenario, level by level: rate, latencies, server
/// and driver CPU.
fn http_table(out: &mut String, levels: &mut [(usize, HashMap<Kind, Sample>)]) {
    let _ = writeln!(out, "| concurrency / metric | ours | rmcp | floor | ours/rmcp | ours/floor |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for (concurrency, samples) in levels {
        let mut get = |k: Kind, f: &dyn Fn(&mut Sample) -> f64| samples.get_mut(&k).map_or(f64::NAN, f);
        let rate = [Kind::Ours, Kind::Rmcp, Kind::Floor].map(|k| get(k, &|s| s.rate()));
        let p50 = [Kind::Ours, Kind::Rmcp, Kind::Floor].map(|k| get(k, &|s| s.percentile_us(50.0)));
        let p99 = [Kind::Ours, Kind::Rmcp, Kind::Floor].map(|k| get(k, &|s| s.percentile_us(99.0)));
        let cpu = [Kind::Ours, Kind::Rmcp, Kind::Floor].map(|k| get(k, &|s| s.cpu_us()));
        let client = [Kind::Ours, Kind::Rmcp, Kind::Floor].map(|k| get(k, &|s| s.client_cpu_us()));
        row(out, &format!("c={concurrency} requests/s"), rate, 0);
        row(out, &format!("c={concurrency} p50 latency (µs)"), p50, 1);
        row(out, &format!("c={concurrency} p99 latency (µs)"), p99, 1);
        row(out, &format!("c={concurrency} server CPU per call (µs)"), cpu, 1);
        row(out, &format!("c={concurrency} driver CPU per call (µs)"), client, 1);
    }
}

/// One row of the balancer table: direct, HAProxy + 1, HAProxy + 3, then
/// each balanced setup against direct.
fn balancer_row(out: &mut String, label: &str, values: [f64; 3], decimals: usize) {
    let [d, one, three] = values;
    let _ = writeln!(
        out,
        "| {label} | {} | {} | {} | {} | {} |",
        num(d, decimals),
        num(one, decimals),
        num(three, decimals),
        ratio(one, d),
        ratio(three, d)
    );
}

/// The balancer table, level by level, then what HAProxy itself costs: its
/// CPU per call and the median latency it adds in front of one replica.
fn balancer_table(out: &mut String, levels: &mut [(usize, HashMap<Setup, Sample>)]) {
    let _ = writeln!(out, "| concurrency / metric | direct | HAProxy + 1 | HAProxy + 3 | +1/direct | +3/direct |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    let mut costs = Vec::new();
    for (concurrency, samples) in levels.iter_mut() {
        let mut get = |s: Setup, f: &dyn Fn(&mut Sample) -> f64| samples.get_mut(&s).map_or(f64::NAN, f);
        let rate = Setup::ALL.map(|s| get(s, &|x| x.rate()));
        let p50 = Setup::ALL.map(|s| get(s, &|x| x.percentile_us(50.0)));
        let p99 = Setup::ALL.map(|s| get(s, &|x| x.percentile_us(99.0)));
        let cpu = Setup::ALL.map(|s| get(s, &|x| x.cpu_us()));
        // Direct has no balancer: a dash, not a zero.
        let proxy = Setup::ALL.map(|s| if s == Setup::Direct { f64::NAN } else { get(s, &|x| x.proxy_cpu_us()) });
        let client = Setup::ALL.map(|s| get(s, &|x| x.client_cpu_us()));
        balancer_row(out, &format!("c={concurrency} requests/s"), rate, 0);
        balancer_row(out, &format!("c={concurrency} p50 latency (µs)"), p50, 1);
        balancer_row(out, &format!("c={concurrency} p99 latency (µs)"), p99, 1);
        balancer_row(out, &format!("c={concurrency} server-side CPU per call (µs)"), cpu, 1);
        balancer_row(out, &format!("c={concurrency} of which HAProxy (µs)"), proxy, 1);
        balancer_row(out, &format!("c={concurrency} driver CPU per call (µs)"), client, 1);
        costs.push(format!(
            "c={concurrency}: {} µs of CPU per call, p50 {} µs",
            num(proxy[1], 1),
            signed(p50[1] - p50[0])
        ));
    }
    let _ = writeln!(out, "\nHAProxy's own cost in front of one replica (against direct): {}.", costs.join("; "));
}

fn signed(x: f64) -> String {
    if x.is_finite() { format!("{x:+.1}") } else { "—".to_owned() }
}

struct Verdict {
    target: &'static str,
    measured: String,
    /// `None` when the figures alone cannot decide; BENCHMARKS.md says why.
    met: Option<bool>,
}

impl Results {
    fn sample(&self, concurrency: usize, kind: Kind) -> Option<&Sample> {
        self.http.iter().find(|(c, _)| *c == concurrency).and_then(|(_, m)| m.get(&kind))
    }

    fn rebuild(&self, kind: Kind) -> f64 {
        self.builds.get(&kind).map_or(f64::NAN, |b| median(&b.rebuilds))
    }

    /// The run as Markdown.
    pub(crate) fn render(&mut self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "### Machine\n");
        for line in &self.machine {
            let _ = writeln!(out, "- {line}");
        }
        let _ = writeln!(out, "\n### Settings\n");
        for line in &self.settings {
            let _ = writeln!(out, "- {line}");
        }

        if !self.http.is_empty() || (self.legacy.is_empty() && self.balancer.is_empty()) {
            let _ = writeln!(out, "\n### HTTP `tools/call` (keep-alive connections)\n");
            http_table(&mut out, &mut self.http);
        }
        if !self.legacy.is_empty() {
            let _ = writeln!(
                out,
                "\n### 2025-era session `tools/call` over HTTP (keep-alive connections, one session each)\n"
            );
            http_table(&mut out, &mut self.legacy);
        }

        if !self.balancer.is_empty() {
            let _ = writeln!(
                out,
                "\n### Ours behind HAProxy: `tools/call` over HTTP (keep-alive connections, `.ci/haproxy.cfg`)\n"
            );
            balancer_table(&mut out, &mut self.balancer);
        }

        let _ = writeln!(out, "\n### Memory, size and build\n");
        let _ = writeln!(out, "| metric | ours | rmcp | floor | ours/rmcp | ours/floor |");
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
        let memory = |k: Kind| self.memory.get(&k).cloned().unwrap_or_default();
        if !self.memory.is_empty() {
            row(&mut out, "idle RSS (MiB)", Kind::ALL.map(|k| mib(memory(k).idle_kib)), 2);
            let after_calls = memory(Kind::Ours).after_calls;
            if after_calls > 0 {
                let label = format!("RSS after {after_calls} calls (MiB)");
                row(&mut out, &label, Kind::ALL.map(|k| mib(memory(k).after_kib)), 2);
            }
        }
        let build = |k: Kind| self.builds.get(&k).cloned().unwrap_or_default();
        row(&mut out, "stripped binary (MiB)", Kind::ALL.map(|k| build(k).stripped_bytes as f64 / 1048576.0), 2);
        row(&mut out, "crates compiled", Kind::ALL.map(|k| build(k).crates as f64), 0);
        if !build(Kind::Ours).rebuilds.is_empty() {
            row(&mut out, "release rebuild after editing the tool body (s)", Kind::ALL.map(|k| self.rebuild(k)), 1);
            let samples = |k: Kind| {
                build(k).rebuilds.iter().map(|d| format!("{:.1}", d.as_secs_f64())).collect::<Vec<_>>().join(", ")
            };
            let _ = writeln!(
                out,
                "\nRebuild samples (s), edit then restore: ours {}; rmcp {}.",
                samples(Kind::Ours),
                samples(Kind::Rmcp)
            );
        }
        if !self.stdio.is_empty() {
            let _ = writeln!(out, "\n### stdio `tools/call` (pipelined)\n");
            let _ = writeln!(out, "| metric | ours | rmcp | ours/rmcp |");
            let _ = writeln!(out, "|---|---:|---:|---:|");
            let mut stdio_row = |label: &str, f: &dyn Fn(&mut Sample) -> f64, decimals: usize| {
                let o = self.stdio.get_mut(&Kind::Ours).map_or(f64::NAN, f);
                let r = self.stdio.get_mut(&Kind::Rmcp).map_or(f64::NAN, f);
                let _ = writeln!(out, "| {label} | {} | {} | {} |", num(o, decimals), num(r, decimals), ratio(o, r));
            };
            stdio_row("requests/s", &|s| s.rate(), 0);
            stdio_row("p50 latency (µs)", &|s| s.percentile_us(50.0), 1);
            stdio_row("p99 latency (µs)", &|s| s.percentile_us(99.0), 1);
            stdio_row("server CPU per call (µs)", &|s| s.cpu_us(), 1);
        }

        if !self.scale.is_empty() {
            let _ = writeln!(out, "\n### Scaling with the number of registered tools (HTTP, c=16)\n");
            let _ = writeln!(
                out,
                "| tools | call CPU µs ours | call CPU µs rmcp | call req/s ours | call req/s rmcp | list CPU µs ours | list CPU µs rmcp | list bytes ours | list bytes rmcp |"
            );
            let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for scale in &self.scale {
                let c = |k: Kind, f: &dyn Fn(&Sample) -> f64| scale.call.get(&k).map_or(f64::NAN, f);
                let l = |k: Kind, f: &dyn Fn(&Sample) -> f64| scale.list.get(&k).map_or(f64::NAN, f);
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    scale.tools,
                    num(c(Kind::Ours, &Sample::cpu_us), 1),
                    num(c(Kind::Rmcp, &Sample::cpu_us), 1),
                    num(c(Kind::Ours, &Sample::rate), 0),
                    num(c(Kind::Rmcp, &Sample::rate), 0),
                    num(l(Kind::Ours, &Sample::cpu_us), 1),
                    num(l(Kind::Rmcp, &Sample::cpu_us), 1),
                    num(l(Kind::Ours, &|s| s.response_bytes as f64), 0),
                    num(l(Kind::Rmcp, &|s| s.response_bytes as f64), 0),
                );
            }
        }

        let verdicts = self.verdicts();
        if !verdicts.is_empty() {
            let _ = writeln!(out, "\n### Targets\n");
            let _ = writeln!(out, "| target | measured | met |");
            let _ = writeln!(out, "|---|---|---|");
            for v in verdicts {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    v.target,
                    v.measured,
                    match v.met {
                        Some(true) => "yes",
                        Some(false) => "**no**",
                        None => "see notes",
                    }
                );
            }
        }
        out
    }

    fn verdicts(&self) -> Vec<Verdict> {
        let mut verdicts = Vec::new();
        let cpu = |c: usize, k: Kind| self.sample(c, k).map_or(f64::NAN, Sample::cpu_us);
        let levels: Vec<usize> = self.http.iter().map(|(c, _)| *c).collect();
        if !levels.is_empty() {
            let per_level = |bound: &dyn Fn(usize) -> f64| -> (String, bool) {
                let mut text = Vec::new();
                let mut met = true;
                for &c in &levels {
                    let (ours, limit) = (cpu(c, Kind::Ours), bound(c));
                    let level_met = ours <= limit;
                    met &= level_met;
                    let verdict = if level_met { "met" } else { "not met" };
                    text.push(format!("c={c}: {} µs vs ≤ {} ({verdict})", num(ours, 1), num(limit, 1)));
                }
                (text.join("; "), met)
            };
            let (measured, met) = per_level(&|c| cpu(c, Kind::Rmcp) / 4.0);
            verdicts.push(Verdict {
                target: "server CPU per HTTP `tools/call` ≤ 1/4 of rmcp's",
                measured,
                met: Some(met),
            });
            let (measured, met) = per_level(&|c| cpu(c, Kind::Floor) * 2.0);
            verdicts.push(Verdict {
                target: "server CPU per HTTP `tools/call` ≤ 2× the floor's",
                measured,
                met: Some(met),
            });
            let rate = |k: Kind| self.sample(16, k).map_or(f64::NAN, Sample::rate);
            let r = rate(Kind::Ours) / rate(Kind::Floor);
            verdicts.push(Verdict {
                target: "throughput at concurrency 16 ≥ 0.8× the floor's",
                measured: format!("{} × the floor", num(r, 2)),
                met: Some(r >= 0.8),
            });
        }
        if let (Some(o), Some(r)) = (self.memory.get(&Kind::Ours), self.memory.get(&Kind::Rmcp)) {
            verdicts.push(Verdict {
                target: "idle RSS no larger than rmcp's",
                measured: format!("{} vs {} MiB", num(mib(o.idle_kib), 2), num(mib(r.idle_kib), 2)),
                met: Some(o.idle_kib <= r.idle_kib),
            });
            if o.after_calls > 0 {
                let grown = o.after_kib as f64 / o.idle_kib.max(1) as f64;
                verdicts.push(Verdict {
                    target: "RSS after 100 000 calls within 1.5× of idle",
                    measured: format!("{} × idle after {} calls", num(grown, 2), o.after_calls),
                    met: Some(grown <= 1.5),
                });
            }
        }
        if let (Some(o), Some(r)) = (self.builds.get(&Kind::Ours), self.builds.get(&Kind::Rmcp)) {
            verdicts.push(Verdict {
                target: "stripped binary no larger than rmcp's",
                measured: format!("{} vs {} bytes", o.stripped_bytes, r.stripped_bytes),
                met: Some(o.stripped_bytes <= r.stripped_bytes),
            });
            verdicts.push(Verdict {
                target: "crates compiled ≤ rmcp's",
                measured: format!("{} vs {}", o.crates, r.crates),
                met: Some(o.crates <= r.crates),
            });
            if !o.rebuilds.is_empty() && !r.rebuilds.is_empty() {
                let (ours, theirs) = (self.rebuild(Kind::Ours), self.rebuild(Kind::Rmcp));
                verdicts.push(Verdict {
                    target: "release rebuild after editing one tool ≤ 1/2 of rmcp's",
                    measured: format!("{} s vs {} s ({} × rmcp)", num(ours, 1), num(theirs, 1), ratio(ours, theirs)),
                    met: Some(ours <= theirs / 2.0),
                });
            }
        }
        let scale_cpu = |tools: usize, list: bool| {
            self.scale
                .iter()
                .find(|s| s.tools == tools)
                .and_then(|s| if list { s.list.get(&Kind::Ours) } else { s.call.get(&Kind::Ours) })
                .map_or(f64::NAN, Sample::cpu_us)
        };
        let (small, large) = (scale_cpu(10, false), scale_cpu(1000, false));
        if small.is_finite() && large.is_finite() {
            verdicts.push(Verdict {
                target: "`tools/call` with 1000 tools within 10% of 10 tools",
                measured: format!("{} µs vs {} µs ({} ×)", num(large, 1), num(small, 1), ratio(large, small)),
                met: Some(large <= small * 1.1),
            });
            let per_tool = |tools: usize| scale_cpu(tools, true) / tools as f64;
            let (p100, p1000) = (per_tool(100), per_tool(1000));
            // Whether schemas are re-serialised shows in a profile, not in a
            // rate: the figures here only show how the cost grows.
            verdicts.push(Verdict {
                target: "`tools/list` without re-serialising schemas (definitions serialized once at build)",
                measured: format!(
                    "{} µs per listed tool at 100 tools, {} at 1000; rmcp {} at 1000",
                    num(p100, 2),
                    num(p1000, 2),
                    num(
                        self.scale
                            .iter()
                            .find(|s| s.tools == 1000)
                            .and_then(|s| s.list.get(&Kind::Rmcp))
                            .map_or(f64::NAN, |s| s.cpu_us() / 1000.0),
                        2
                    )
                ),
                met: None,
            });
        }
        verdicts
    }
}
