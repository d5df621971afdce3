//! The client hears a request's progress, and cancels a request it stops
//! waiting for, in either era and over either transport: over a pipe and
//! in a 2025-era session with `notifications/cancelled`, over HTTP in
//! 2026-07-28 by closing the request's connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::client::{Client, Error, Revision};
use mcp_runtime::entry::ToolEntry;
use mcp_runtime::server::Eras;
use mcp_runtime::transport::http::HttpConfig;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{CancellationToken, Server};
use serde_json::json;

/// A server whose `wait` tool counts the calls that were cancelled.
fn server(cancelled: Arc<AtomicUsize>) -> Server {
    Server::builder("progress-test", "1.0.0")
        .eras(Eras::Dual)
        .tool(ToolEntry::new("count", |progress: mcp_runtime::extract::Progress| async move {
            for step in 1..=3 {
                progress.report_with_message(f64::from(step), Some(3.0), format!("step {step}"));
                // Each step its own event, not one write of three.
                tokio::task::yield_now().await;
            }
            "counted"
        }))
        .tool(ToolEntry::new("wait", move |cancel: CancellationToken| {
            let cancelled = Arc::clone(&cancelled);
            async move {
                cancel.cancelled().await;
                cancelled.fetch_add(1, Ordering::SeqCst);
                "cancelled"
            }
        }))
        .build()
        .expect("a server")
}

async fn over_http(cancelled: Arc<AtomicUsize>) -> Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(server(cancelled).serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    Client::http(url)
}

fn over_pipe(cancelled: Arc<AtomicUsize>) -> Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(server(cancelled).serve_io(their_read, their_write, StdioConfig::default()));
    let (read, write) = tokio::io::split(ours);
    Client::stdio(read, write)
}

#[tokio::test]
async fn progress_is_heard_and_a_request_given_up_is_cancelled_in_either_era_and_transport() {
    for revision in [Revision::Stateless, Revision::Session] {
        for transport in ["http", "pipe"] {
            let cancelled = Arc::new(AtomicUsize::new(0));
            let client = match transport {
                "http" => over_http(Arc::clone(&cancelled)).await,
                _ => over_pipe(Arc::clone(&cancelled)),
            }
            .revision(revision);
            let case = format!("{revision:?} over {transport}");

            let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
            let log = Arc::clone(&heard);
            let result = client
                .call_tool_with_progress("count", json!({}), move |p| {
                    log.lock().expect("lock").push((p.progress, p.total, p.message.unwrap_or_default()));
                })
                .await
                .expect("answered");
            assert_eq!(serde_json::to_value(&result.content).expect("JSON")[0]["text"], "counted", "{case}");
            let heard = heard.lock().expect("lock").clone();
            let steps: Vec<f64> = heard.iter().map(|(p, _, _)| *p).collect();
            assert_eq!(steps, [1.0, 2.0, 3.0], "{case}: {heard:?}");
            assert_eq!(heard[2], (3.0, Some(3.0), "step 3".to_owned()), "{case}");

            let impatient = client.clone().timeout(Duration::from_millis(200));
            match impatient.call_tool("wait", json!({})).await {
                Err(Error::Timeout(_)) => {}
                other => panic!("{case}: no answer in time, not {other:?}"),
            }
            // The server hears of it: its handler sees the cancellation.
            let heard_of = tokio::time::timeout(Duration::from_secs(10), async {
                while cancelled.load(Ordering::SeqCst) == 0 {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            })
            .await;
            assert!(heard_of.is_ok(), "{case}: the request given up was never cancelled at the server");
        }
    }
}

#[tokio::test]
async fn a_gateway_passes_a_remotes_progress_on_and_cancels_what_its_client_gives_up() {
    let cancelled = Arc::new(AtomicUsize::new(0));
    let remote = mcp_runtime::client::Remote::connect(over_pipe(Arc::clone(&cancelled))).await.expect("connected");
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("far", remote).build().expect("a gateway");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(gateway.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    for revision in [Revision::Stateless, Revision::Session] {
        let client = Client::http(&url).revision(revision);
        let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&heard);
        client
            .call_tool_with_progress("far_count", json!({}), move |p| log.lock().expect("lock").push(p.progress))
            .await
            .expect("answered");
        assert_eq!(*heard.lock().expect("lock"), [1.0, 2.0, 3.0], "{revision:?}");

        let before = cancelled.load(Ordering::SeqCst);
        let impatient = client.clone().timeout(Duration::from_millis(200));
        assert!(matches!(impatient.call_tool("far_wait", json!({})).await, Err(Error::Timeout(_))), "{revision:?}");
        let heard_of = tokio::time::timeout(Duration::from_secs(10), async {
            while cancelled.load(Ordering::SeqCst) == before {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(heard_of.is_ok(), "{revision:?}: the remote never heard that the call was given up");
    }
}
