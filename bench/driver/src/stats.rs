//! Aggregating rounds: latencies, elapsed time, server CPU and call counts.

use std::time::Duration;

/// Everything measured for one server in one scenario, summed over rounds.
#[derive(Default, Clone)]
pub(crate) struct Sample {
    /// Calls in the timed parts of the rounds.
    pub(crate) calls: u64,
    /// Wall time of the timed parts.
    pub(crate) elapsed: Duration,
    /// Server CPU (user + system) during the timed parts, in clock ticks:
    /// every server-side process, a balancer included.
    pub(crate) cpu_ticks: u64,
    /// The balancer's share of `cpu_ticks` (none without one).
    pub(crate) proxy_ticks: u64,
    /// The driver's own CPU during the timed parts, in clock ticks.
    pub(crate) client_ticks: u64,
    /// The latency of every timed call, in nanoseconds.
    pub(crate) latencies: Vec<u64>,
    /// The size of the last response body, in bytes.
    pub(crate) response_bytes: usize,
}

impl Sample {
    /// Adds one round.
    pub(crate) fn add(&mut self, round: Sample) {
        self.calls += round.calls;
        self.elapsed += round.elapsed;
        self.cpu_ticks += round.cpu_ticks;
        self.proxy_ticks += round.proxy_ticks;
        self.client_ticks += round.client_ticks;
        self.latencies.extend(round.latencies);
        self.response_bytes = round.response_bytes;
    }

    /// Calls per second of wall time.
    pub(crate) fn rate(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Server CPU per call, in microseconds.
    pub(crate) fn cpu_us(&self) -> f64 {
        self.cpu_ticks as f64 * 1e6 / crate::procfs::ticks_per_second() as f64 / self.calls.max(1) as f64
    }

    /// The balancer's own CPU per call, in microseconds.
    pub(crate) fn proxy_cpu_us(&self) -> f64 {
        self.proxy_ticks as f64 * 1e6 / crate::procfs::ticks_per_second() as f64 / self.calls.max(1) as f64
    }

    /// The driver's CPU per call, in microseconds: the other half of what
    /// two cores spend on each call.
    pub(crate) fn client_cpu_us(&self) -> f64 {
        self.client_ticks as f64 * 1e6 / crate::procfs::ticks_per_second() as f64 / self.calls.max(1) as f64
    }

    /// The `p`th percentile latency (0 to 100), in microseconds.
    pub(crate) fn percentile_us(&mut self, p: f64) -> f64 {
        if self.latencies.is_empty() {
            return f64::NAN;
        }
        self.latencies.sort_unstable();
        let rank = ((p / 100.0) * (self.latencies.len() - 1) as f64).round() as usize;
        self.latencies[rank.min(self.latencies.len() - 1)] as f64 / 1000.0
    }
}
