//! The HTTP client's connections to its server: kept between requests,
//! replaced when the server closes them, and no answer longer than the
//! client takes read into memory. The server is scripted on a socket, so
//! that how it keeps or closes connections is the test's to say.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::client::{Client, Error, Revision};
use mcp_tests::http_wire::STUCK;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpListener;

/// How the scripted server answers.
#[derive(Clone, Copy)]
enum Answers {
    /// Every request on a connection, each with a result; kept open.
    Kept,
    /// One request per connection, then the connection closed (without
    /// saying so first: no `Connection: close`).
    OneThenClosed,
    /// A result of `n` bytes, its length told.
    Long(usize),
    /// A result of `n` bytes, in chunks, its length not told.
    LongChunked(usize),
}

/// A server answering as `answers` says on loopback: its URL, and how many
/// connections it accepted.
async fn scripted(answers: Answers) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let accepted = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(serve(stream, answers));
        }
    });
    (url, accepted)
}

async fn serve(stream: tokio::net::TcpStream, answers: Answers) {
    let mut stream = BufReader::new(stream);
    loop {
        // The request's head, then its body.
        let mut length = 0;
        loop {
            let mut line = String::new();
            if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a length");
            }
        }
        let mut body = vec![0; length];
        stream.read_exact(&mut body).await.expect("the body");
        let request: Value = serde_json::from_slice(&body).expect("JSON");
        let id = &request["id"];
        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";
        let answer = match answers {
            Answers::Kept | Answers::OneThenClosed => {
                let body = json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string();
                format!("{head}content-length: {}\r\n\r\n{body}", body.len())
            }
            Answers::Long(n) => {
                let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"a":"{}"}}}}"#, "x".repeat(n));
                format!("{head}content-length: {}\r\n\r\n{body}", body.len())
            }
            Answers::LongChunked(n) => {
                let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"a":"{}"}}}}"#, "x".repeat(n));
                let chunks: String = body
                    .as_bytes()
                    .chunks(1000)
                    .map(|c| format!("{:x}\r\n{}\r\n", c.len(), String::from_utf8_lossy(c)))
                    .collect();
                format!("{head}transfer-encoding: chunked\r\n\r\n{chunks}0\r\n\r\n")
            }
        };
        if stream.get_mut().write_all(answer.as_bytes()).await.is_err() {
            return;
        }
        if matches!(answers, Answers::OneThenClosed) {
            return;
        }
    }
}

fn client(url: &str) -> Client {
    Client::http(url).revision(Revision::Stateless).timeout(STUCK)
}

#[tokio::test]
async fn a_connection_is_kept_for_the_requests_that_follow() {
    let (url, accepted) = scripted(Answers::Kept).await;
    let client = client(&url);
    for _ in 0..5 {
        client.request("ping", json!({})).await.expect("answered");
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 1, "one connection for five requests, one after the other");
}

#[tokio::test]
async fn a_connection_the_server_closed_is_replaced_without_failing_a_request() {
    let (url, accepted) = scripted(Answers::OneThenClosed).await;
    let client = client(&url);
    for round in 0..5 {
        client.request("ping", json!({})).await.unwrap_or_else(|e| panic!("request {round}: {e}"));
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn an_answer_longer_than_the_client_takes_is_refused_told_or_not_its_length() {
    for answers in [Answers::Long(64 * 1024), Answers::LongChunked(64 * 1024)] {
        let (url, _) = scripted(answers).await;
        let refused = client(&url).max_message_bytes(4096).request("ping", json!({})).await;
        match refused {
            Err(Error::Transport(why)) => assert!(why.contains("longer than 4096 bytes"), "{why}"),
            other => panic!("{other:?}"),
        }
        // Within the limit, the same answer reads.
        let (url, _) = scripted(answers).await;
        client(&url).max_message_bytes(1 << 20).request("ping", json!({})).await.expect("answered");
    }
}
