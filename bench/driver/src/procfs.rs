//! What the kernel knows about a server process: CPU time and resident
//! memory, from `/proc`.

use std::sync::OnceLock;

use anyhow::{Context, Result, bail};

/// Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`).
pub(crate) fn ticks_per_second() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100)
    })
}

/// User plus system CPU time of the whole process (every thread), in ticks.
pub(crate) fn cpu_ticks(pid: u32) -> Result<u64> {
    let stat =
        std::fs::read_to_string(format!("/proc/{pid}/stat")).with_context(|| format!("reading /proc/{pid}/stat"))?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let rest = stat.rsplit_once(')').map(|(_, rest)| rest).context("malformed /proc stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3, utime 14 and stime 15 (1-based).
    if fields.len() < 13 {
        bail!("short /proc/{pid}/stat");
    }
    Ok(fields[11].parse::<u64>()? + fields[12].parse::<u64>()?)
}

/// Resident set size, in KiB.
pub(crate) fn rss_kib(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status"))?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).context("no VmRSS line")?;
    Ok(line.trim_start_matches("VmRSS:").trim().trim_end_matches("kB").trim().parse()?)
}

/// The 1-minute load average.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}
