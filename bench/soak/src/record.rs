//! What the run records of the server every second (resident memory and
//! open files, from `/proc`, beside the driver's own counts), the CSV and
//! SVG it writes, and the growth check between two windows of it.

use std::fmt::Write as _;

use anyhow::{Context, Result};

/// One second of the run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    /// Seconds since the load began.
    pub(crate) seconds: f64,
    /// The server's resident set, in KiB.
    pub(crate) rss_kib: u64,
    /// The server's open file descriptors (sockets included).
    pub(crate) fds: u64,
    /// HTTP requests answered as expected so far.
    pub(crate) requests: u64,
    /// Steps failed so far.
    pub(crate) errors: u64,
}

/// The server's resident set (KiB) and open descriptors, or why they cannot
/// be read (the process is gone, say).
pub(crate) fn measure(pid: u32) -> Result<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status (has the server exited?)"))?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).context("no VmRSS line")?;
    let rss = line.trim_start_matches("VmRSS:").trim().trim_end_matches("kB").trim().parse()?;
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).with_context(|| format!("listing /proc/{pid}/fd"))?.count();
    Ok((rss, fds as u64))
}

/// `seconds,rss_kib,fds,requests,errors`, one line a second.
pub(crate) fn csv(samples: &[Sample]) -> String {
    let mut out = String::from("seconds,rss_kib,fds,requests,errors\n");
    for s in samples {
        let _ = writeln!(out, "{:.1},{},{},{},{}", s.seconds, s.rss_kib, s.fds, s.requests, s.errors);
    }
    out
}

/// The medians of one window of the run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    pub(crate) from: f64,
    pub(crate) to: f64,
    pub(crate) rss_kib: u64,
    pub(crate) fds: u64,
}

fn median(mut values: Vec<u64>) -> Option<u64> {
    values.sort_unstable();
    values.get(values.len() / 2).copied()
}

/// The medians of the samples taken in `[from, to)`; `None` when it holds none.
pub(crate) fn window(samples: &[Sample], from: f64, to: f64) -> Option<Window> {
    let inside: Vec<&Sample> = samples.iter().filter(|s| s.seconds >= from && s.seconds < to).collect();
    Some(Window {
        from,
        to,
        rss_kib: median(inside.iter().map(|s| s.rss_kib).collect())?,
        fds: median(inside.iter().map(|s| s.fds).collect())?,
    })
}

/// How much the last window may exceed the second ten seconds before the
/// run counts as growing. The second ten seconds, not the first: by then
/// every kind of step has run many times, thread stacks and pools are at
/// their size and the allocator holds its working set.
///
/// - Memory: 10 % plus 4 MiB. The allocator neither returns every freed
///   page nor reuses them in order, so a steady server's resident set
///   wanders by a few MiB from second to second; a median over ten
///   seconds damps that, and the 10 % covers the arenas a busy thread
///   may add late. A leak of 100 bytes per request at the rates seen
///   here outgrows it within minutes, and the 30-minute soak shows it.
/// - Open files: a quarter of the concurrency plus 8. Each worker holds
///   one to two connections at any instant (its keep-alive one, and a
///   listen stream or a session being opened or closed), so the count
///   moves within a band as wide as the concurrency; medians of that band
///   agree within a quarter of it. A descriptor leaked per thousand
///   requests passes that within a minute.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tolerance {
    pub(crate) rss_kib: u64,
    pub(crate) fds: u64,
}

impl Tolerance {
    /// The allowance over `base` at `concurrency`.
    pub(crate) fn over(base: &Window, concurrency: usize) -> Tolerance {
        Tolerance { rss_kib: base.rss_kib / 10 + 4 * 1024, fds: concurrency as u64 / 4 + 8 }
    }
}

/// One panel of the plot: its label, its colour, what it shows of a sample.
type Panel = (&'static str, &'static str, fn(&Sample) -> f64);

/// A hand-written SVG: resident memory and open files over the run, one
/// panel each, with the two compared windows shaded.
pub(crate) fn svg(samples: &[Sample], windows: &[Window], title: &str) -> String {
    const WIDTH: f64 = 860.0;
    const LEFT: f64 = 70.0;
    const PLOT_WIDTH: f64 = WIDTH - LEFT - 20.0;
    const PANEL: f64 = 180.0;
    let end = samples.last().map_or(1.0, |s| s.seconds.max(1.0));
    let mut out = String::new();
    let height = 60.0 + 2.0 * (PANEL + 60.0);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(out, r#"<text x="{LEFT}" y="24" font-size="15">{}</text>"#, escape(title));
    let panels: [Panel; 2] = [
        ("resident memory (MiB)", "#1f77b4", |s| s.rss_kib as f64 / 1024.0),
        ("open file descriptors", "#d62728", |s| s.fds as f64),
    ];
    for (index, (label, colour, value)) in panels.into_iter().enumerate() {
        let top = 50.0 + index as f64 * (PANEL + 60.0);
        let max = samples.iter().map(value).fold(0.0_f64, f64::max).max(1.0) * 1.15;
        let x = |seconds: f64| LEFT + PLOT_WIDTH * seconds / end;
        let y = |v: f64| top + PANEL - PANEL * v / max;
        for w in windows {
            let _ = writeln!(
                out,
                r##"<rect x="{:.1}" y="{top}" width="{:.1}" height="{PANEL}" fill="#eeeeee"/>"##,
                x(w.from),
                (x(w.to.min(end)) - x(w.from)).max(1.0)
            );
        }
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="black" points="{LEFT},{top} {LEFT},{bottom} {right},{bottom}"/>"#,
            bottom = top + PANEL,
            right = LEFT + PLOT_WIDTH
        );
        let points: Vec<String> = samples.iter().map(|s| format!("{:.1},{:.1}", x(s.seconds), y(value(s)))).collect();
        let _ = writeln!(
            out,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"#,
            points.join(" ")
        );
        let _ = writeln!(out, r#"<text x="{LEFT}" y="{:.1}">{label}</text>"#, top - 8.0);
        for fraction in [0.0, 0.5, 1.0] {
            let v = max * fraction;
            let _ =
                writeln!(out, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{v:.0}</text>"#, LEFT - 6.0, y(v) + 4.0);
            let seconds = end * fraction;
            let _ = writeln!(
                out,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{seconds:.0} s</text>"#,
                x(seconds),
                top + PANEL + 16.0
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seconds: f64, rss_kib: u64, fds: u64) -> Sample {
        Sample { seconds, rss_kib, fds, requests: 0, errors: 0 }
    }

    #[test]
    fn windows_take_medians_of_their_samples() {
        let samples: Vec<Sample> = (0..30).map(|s| sample(s as f64, 1000 + s, 10 + s % 3)).collect();
        let second = window(&samples, 10.0, 20.0).expect("samples");
        assert_eq!((second.rss_kib, second.fds), (1015, 11));
        assert!(window(&samples, 40.0, 50.0).is_none());
    }

    #[test]
    fn the_plot_has_a_line_per_measure() {
        let samples: Vec<Sample> = (0..5).map(|s| sample(s as f64, 2048, 12)).collect();
        let plot = svg(&samples, &[], "a <run>");
        assert_eq!(plot.matches(r#"stroke-width="1.5""#).count(), 2);
        assert!(plot.contains("a &lt;run&gt;"));
    }
}
