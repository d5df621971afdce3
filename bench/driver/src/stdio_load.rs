//! The stdio load: requests pipelined into the server's stdin, at most a
//! fixed number in flight, answers matched to requests by id.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::Semaphore;

use crate::procfs;
use crate::requests::Call;
use crate::servers::Running;
use crate::stats::Sample;

/// How long a round may take before it is declared stuck.
const ROUND_TIMEOUT: Duration = Duration::from_secs(120);

/// The numeric id of a response line (`"id":123`), without parsing the rest.
fn response_id(line: &[u8]) -> Option<u64> {
    let at = line.windows(5).position(|w| w == b"\"id\":")? + 5;
    let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&line[at..at + digits]).ok()?.parse().ok()
}

/// One round: `calls` requests with ids `first_id..`, at most `window` in
/// flight. The server's stdin and stdout stay open for the next round.
pub(crate) async fn round(server: &mut Running, first_id: u64, calls: usize, window: usize) -> Result<Sample> {
    let stdin = server.child.stdin.take().context("stdin already taken")?;
    let stdout = server.child.stdout.take().context("stdout already taken")?;
    let lines: Vec<String> = (0..calls as u64).map(|i| Call::echo_line(first_id + i) + "\n").collect();
    let expect = Call::echo().expect;
    let permits = Arc::new(Semaphore::new(window));
    let base = Instant::now();
    let sent: Arc<Vec<std::sync::atomic::AtomicU64>> =
        Arc::new((0..calls).map(|_| std::sync::atomic::AtomicU64::new(0)).collect());

    let cpu_before = procfs::cpu_ticks(server.pid)?;
    let start = Instant::now();
    let writer = {
        let permits = Arc::clone(&permits);
        let sent = Arc::clone(&sent);
        tokio::spawn(async move {
            let mut out = BufWriter::new(stdin);
            let mut i = 0;
            while i < lines.len() {
                permits.acquire().await?.forget();
                loop {
                    sent[i].store(base.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
                    out.write_all(lines[i].as_bytes()).await?;
                    i += 1;
                    // Keep writing while the window allows, then flush once.
                    if i == lines.len() {
                        break;
                    }
                    match permits.try_acquire() {
                        Ok(permit) => permit.forget(),
                        Err(_) => break,
                    }
                }
                out.flush().await?;
            }
            anyhow::Ok(out.into_inner())
        })
    };
    let reader = {
        let permits = Arc::clone(&permits);
        let sent = Arc::clone(&sent);
        tokio::spawn(async move {
            let mut input = BufReader::with_capacity(1 << 16, stdout);
            let mut line = Vec::with_capacity(512);
            let mut latencies = Vec::with_capacity(calls);
            let mut bytes = 0;
            while latencies.len() < calls {
                line.clear();
                if input.read_until(b'\n', &mut line).await? == 0 {
                    bail!("the server closed stdout after {} answers", latencies.len());
                }
                let Some(id) = response_id(&line) else { continue };
                let Some(index) = id.checked_sub(first_id).map(|i| i as usize).filter(|&i| i < calls) else {
                    bail!("an answer with an unknown id: {}", String::from_utf8_lossy(&line));
                };
                if !line.windows(expect.len()).any(|w| w == expect) {
                    bail!("unexpected answer: {}", String::from_utf8_lossy(&line));
                }
                let at = base.elapsed().as_nanos() as u64;
                latencies.push(at.saturating_sub(sent[index].load(std::sync::atomic::Ordering::Relaxed)));
                bytes = line.len();
                permits.add_permits(1);
            }
            anyhow::Ok((latencies, bytes, input.into_inner()))
        })
    };
    let joined = tokio::time::timeout(ROUND_TIMEOUT, async { (writer.await, reader.await) })
        .await
        .context("a stdio round took longer than 120 s")?;
    let elapsed = start.elapsed();
    let (stdin, (latencies, bytes, stdout)) = match joined {
        (Ok(w), Ok(r)) => (w?, r?),
        (Err(e), _) | (_, Err(e)) => return Err(e.into()),
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cpu_ticks = procfs::cpu_ticks(server.pid)? - cpu_before;
    server.child.stdin = Some(stdin);
    server.child.stdout = Some(stdout);
    Ok(Sample { calls: calls as u64, elapsed, cpu_ticks, latencies, response_bytes: bytes, ..Sample::default() })
}

#[cfg(test)]
mod tests {
    use super::response_id;

    #[test]
    fn finds_the_id() {
        assert_eq!(response_id(br#"{"jsonrpc":"2.0","id":42,"result":{}}"#), Some(42));
        assert_eq!(response_id(br#"{"jsonrpc":"2.0","method":"x"}"#), None);
    }
}
