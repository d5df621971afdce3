//! Newline-delimited JSON-RPC over stdin/stdout (or any byte stream).
//!
//! One message per line. stdout carries nothing but JSON-RPC: responses and
//! the notifications of requests in flight; diagnostics belong on stderr
//! (through `tracing`). Requests are served concurrently and answered as
//! they finish. A line that is not JSON gets `-32700` and the next line is
//! served. `notifications/cancelled` stops a request, which then gets no
//! response: its cancellation token fires, and its handler has the server's
//! [cancellation grace](crate::ServerBuilder::cancellation_grace) to clean
//! up before it is dropped. At end of input the server finishes the requests in flight
//! (bounded by [`StdioConfig::shutdown_grace`]) and returns.

// 2025-era sessions over stdio: one per process, opened by `initialize`.
#[cfg(feature = "session")]
mod session;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

#[cfg(feature = "session")]
use self::session::{StdioSession, Step};
use crate::dispatch::{Message, Method, RequestOptions, Response, Stage, parse_message};
use crate::handler::context::NotificationSink;
use crate::protocol::{CANCELLED, CancelledParams, ErrorObject, Notification, RequestId};
use crate::server::Server;
use crate::telemetry::Origin;

/// Limits of the stdio transport.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// The longest line accepted, in bytes (default 4 MiB). A longer line is
    /// skipped and answered with `-32600`.
    pub max_message_bytes: usize,
    /// How many requests may run at once (default 256). A request beyond
    /// the limit is answered at once with `-32603` ("too many requests in
    /// flight") rather than queued, so reading never stops and a
    /// `notifications/cancelled` can always get through.
    pub max_in_flight: usize,
    /// How long requests in flight may take to finish after end of input
    /// (default 10 s).
    pub shutdown_grace: Duration,
}

impl Default for StdioConfig {
    fn default() -> Self {
        StdioConfig { max_message_bytes: 4 * 1024 * 1024, max_in_flight: 256, shutdown_grace: Duration::from_secs(10) }
    }
}

/// Writes one request's notifications as lines, until its response is sent
/// or it is cancelled.
struct LineSink {
    out: mpsc::UnboundedSender<String>,
    open: AtomicBool,
    cancellation: CancellationToken,
}

impl NotificationSink for LineSink {
    fn send(&self, notification: Notification) {
        if self.open.load(Ordering::Acquire)
            && !self.cancellation.is_cancelled()
            && let Ok(line) = serde_json::to_string(&notification)
        {
            let _ = self.out.send(line);
        }
    }
}

/// The requests being served, with their cancellation and whether they are
/// listen streams (which only end when cancelled).
type InFlight = Arc<Mutex<HashMap<RequestId, (CancellationToken, bool)>>>;

#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
impl Server {
    /// Serves over the process's stdin and stdout until end of input.
    ///
    /// With `--dump-catalog` on the command line (or
    /// [`ServerBuilder::dump_catalog`](crate::ServerBuilder::dump_catalog)) it
    /// writes the catalog snapshot and returns at once instead, reading
    /// nothing ([`answer_catalog_dump`](Self::answer_catalog_dump);
    /// [`serve_io`](Self::serve_io) never dumps).
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        if self.answer_catalog_dump()? {
            return Ok(());
        }
        tracing::info!("serving MCP over stdio: the protocol on stdin and stdout, logs on stderr");
        let served = self.serve_io(tokio::io::stdin(), tokio::io::stdout(), StdioConfig::default()).await;
        tracing::debug!(error = served.as_ref().err().map(tracing::field::display), "stdin ended: no more requests");
        served
    }

    /// Serves newline-delimited JSON-RPC over any reader and writer until the
    /// reader ends. Errors only when reading or writing fails.
    pub async fn serve_io<R, W>(self, reader: R, writer: W, config: StdioConfig) -> std::io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out_tx, out_rx) = mpsc::unbounded_channel::<String>();
        let writer_task = tokio::spawn(write_lines(writer, out_rx));
        let in_flight: InFlight = Arc::default();
        let permits = Arc::new(Semaphore::new(config.max_in_flight.max(1)));
        let mut tasks = JoinSet::new();
        // Large reads: each read of tokio's stdin is a trip to its blocking thread.
        let mut reader = BufReader::with_capacity(64 * 1024, reader);
        let mut line = Vec::new();
        // The 2025-era session this process becomes on `initialize`.
        #[cfg(feature = "session")]
        let mut session = self.eras().serves_sessions().then(|| StdioSession::new(self.clone(), out_tx.clone().into()));

        let read_result = loop {
            line.clear();
            match read_line(&mut reader, &mut line, config.max_message_bytes).await {
                Ok(LineRead::Eof) => break Ok(()),
                Ok(LineRead::TooLong) => {
                    let e = ErrorObject::invalid_request(format!(
                        "Message too large: the limit is {} bytes",
                        config.max_message_bytes
                    ));
                    let _ = out_tx.send(Response::error(None, e, Stage::Envelope).to_json());
                    continue;
                }
                Ok(LineRead::Line) => {}
                Err(e) => break Err(e),
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            while tasks.try_join_next().is_some() {}
            #[cfg(feature = "session")]
            if let Some(session) = session.as_mut() {
                match session.step(&line) {
                    Step::Stateless => {}
                    Step::Done => continue,
                    Step::Spawn(work) => {
                        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
                            let e = ErrorObject::internal("Too many requests in flight; retry when some have finished");
                            let _ = out_tx.send(Response::error(None, e, Stage::Handler).to_json());
                            continue;
                        };
                        tasks.spawn(async move {
                            work.await;
                            drop(permit);
                        });
                        continue;
                    }
                }
            }
            match parse_message(&line) {
                Err(response) => {
                    let _ = out_tx.send(response.into_json());
                }
                Ok(Message::Notification(n)) => {
                    if n.method == CANCELLED {
                        cancel(&in_flight, n.params.as_deref());
                    }
                }
                // (A build without the `session` feature serves the stateless era only.)
                #[cfg(feature = "session")]
                Ok(Message::Request(request)) if !self.eras().serves_stateless() => {
                    let refusal = crate::session::refuse_stateless(request.method());
                    let _ = out_tx.send(Response::error(Some(request.id().clone()), refusal, Stage::Version).to_json());
                }
                Ok(Message::Request(request)) => {
                    let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
                        let e = ErrorObject::internal("Too many requests in flight; retry when some have finished");
                        let _ = out_tx.send(Response::error(Some(request.id().clone()), e, Stage::Handler).to_json());
                        continue;
                    };
                    let token = CancellationToken::new();
                    let listen = Method::parse(request.method()).is_some_and(Method::streams);
                    in_flight
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(request.id().clone(), (token.clone(), listen));
                    let sink = Arc::new(LineSink {
                        out: out_tx.clone(),
                        open: AtomicBool::new(true),
                        cancellation: token.clone(),
                    });
                    let options = RequestOptions { sink: sink.clone(), cancellation: Some(token.clone()) };
                    let server = self.clone();
                    let out = out_tx.clone();
                    let in_flight = Arc::clone(&in_flight);
                    tasks.spawn(async move {
                        let id = request.id().clone();
                        let response = tokio::select! {
                            response = server.handle_from(request, None, options, Origin::stdio()) => Some(response),
                            () = token.cancelled() => None,
                        };
                        sink.open.store(false, Ordering::Release);
                        crate::sync::lock(&in_flight).remove(&id);
                        if let Some(response) = response.filter(|_| !token.is_cancelled()) {
                            let _ = out.send(response.into_json());
                        }
                        drop(permit);
                    });
                }
            }
        };

        // The session holds a sender of the output: ended and dropped, so
        // that the writer sees the output close.
        #[cfg(feature = "session")]
        if let Some(session) = session.take() {
            session.end();
        }
        // Without input there is nobody to listen: end the listen streams
        // rather than wait out the grace period for them.
        for (token, listen) in crate::sync::lock(&in_flight).values() {
            if *listen {
                token.cancel();
            }
        }
        let drained =
            tokio::time::timeout(config.shutdown_grace, async { while tasks.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            tracing::warn!("requests still running at shutdown were abandoned");
            tasks.abort_all();
        }
        drop(out_tx);
        let write_result = writer_task.await.unwrap_or(Ok(()));
        read_result.and(write_result)
    }
}

fn cancel(in_flight: &InFlight, params: Option<&serde_json::value::RawValue>) {
    // Unknown ids, finished requests and malformed notices are ignored.
    let Some(params) = params else { return };
    if let Ok(notice) = serde_json::from_str::<CancelledParams>(params.get())
        && let Some((token, _)) = crate::sync::lock(in_flight).remove(&notice.request_id)
    {
        token.cancel();
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::UnboundedReceiver<String>,
) -> std::io::Result<()> {
    // Every line ready at once goes out in one write: tokio's stdout hands
    // each write to its blocking thread, which costs far more than copying.
    let mut batch = Vec::new();
    while let Some(line) = lines.recv().await {
        batch.clear();
        batch.extend_from_slice(line.as_bytes());
        batch.push(b'\n');
        while let Ok(more) = lines.try_recv() {
            batch.extend_from_slice(more.as_bytes());
            batch.push(b'\n');
        }
        writer.write_all(&batch).await?;
        writer.flush().await?;
    }
    writer.flush().await
}

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Reads up to and excluding the next `\n`, keeping at most `limit` bytes;
/// a longer line is consumed and reported as `TooLong`.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<LineRead> {
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if too_long {
                LineRead::TooLong
            } else if read_any {
                LineRead::Line
            } else {
                LineRead::Eof
            });
        }
        read_any = true;
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > limit {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = found.map_or(buf.len(), |i| i + 1);
        reader.consume(consumed);
        if found.is_some() {
            return Ok(if too_long { LineRead::TooLong } else { LineRead::Line });
        }
    }
}
