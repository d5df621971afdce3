//! Which HTTP a connection speaks, decided once for the connection: over
//! TLS, what ALPN agreed; over plain TCP, its first bytes (HTTP/2 with
//! prior knowledge opens with the connection preface), looked at without
//! reading them. The connection then goes to hyper's HTTP/1.1 or HTTP/2
//! server as it is, so that an HTTP/1.1 request pays nothing for HTTP/2
//! being served beside it: hyper-util's automatic builder, which decides
//! the same, passes every read through a rewinding wrapper and polls one
//! layer more, about 160 instructions per `tools/call` (`bench/callgrind.sh`).

use std::io;
use std::time::Duration;

use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::time::Instant;

/// The two protocols the standalone server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    Http1,
    Http2,
}

/// What an HTTP/2 connection with prior knowledge opens with.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The longest wait for more bytes before looking again when the first
/// bytes are a prefix of the preface (rare: a client sends the preface in
/// one piece). Waits start at a millisecond and double up to this.
const PARTIAL_WAIT: Duration = Duration::from_millis(250);

/// What a plain connection speaks, from its first bytes, which stay
/// unread; `None` when it closes or says nothing within `limit`.
///
/// Bytes that leave it open (a lone `P`, the start of `POST` and of the
/// preface) are looked at again only when more arrive: the socket's read
/// readiness, cleared once it has been seen, is waited for, so that a
/// client that sends one byte and nothing more costs a few wake-ups, not
/// one a millisecond. A wake-up lost to a byte arriving just as the
/// readiness is cleared costs at most [`PARTIAL_WAIT`].
pub(crate) async fn sniff(stream: &TcpStream, limit: Duration) -> Option<Protocol> {
    let deadline = Instant::now() + limit;
    let mut first = [0u8; PREFACE.len()];
    let mut wait = Duration::from_millis(1);
    let mut seen = 0;
    loop {
        let peeked = tokio::time::timeout_at(deadline, stream.peek(&mut first)).await.ok()?.ok()?;
        if let Some(protocol) = decided(&first[..peeked]) {
            return protocol;
        }
        if peeked == seen {
            // Nothing new since the last look: closed, or wait for more.
            let ready = tokio::time::timeout_at(deadline, stream.ready(Interest::READABLE)).await.ok()?.ok()?;
            if ready.is_read_closed() {
                return None;
            }
            // Clears the readiness the bytes already seen left set.
            let _ = stream.try_io(Interest::READABLE, || Err::<(), _>(io::Error::from(io::ErrorKind::WouldBlock)));
            let _ = tokio::time::timeout_at(deadline, tokio::time::timeout(wait, stream.readable())).await.ok()?;
            wait = (wait * 2).min(PARTIAL_WAIT);
        }
        seen = peeked;
    }
}

/// What `first` bytes of a connection say: `Some(None)` closed before
/// saying anything, `None` not yet known.
fn decided(first: &[u8]) -> Option<Option<Protocol>> {
    if first.is_empty() {
        return Some(None);
    }
    if first != &PREFACE[..first.len()] {
        return Some(Some(Protocol::Http1));
    }
    (first.len() == PREFACE.len()).then_some(Some(Protocol::Http2))
}

/// What ALPN agreed on a TLS connection: HTTP/2 when it says `h2`,
/// HTTP/1.1 otherwise (a client that offered nothing speaks it).
#[cfg(feature = "tls")]
pub(crate) fn negotiated(alpn: Option<&[u8]>) -> Protocol {
    if alpn == Some(b"h2") { Protocol::Http2 } else { Protocol::Http1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bytes_tell_http2_from_http1_as_soon_as_they_can() {
        assert_eq!(decided(b""), Some(None), "closed");
        assert_eq!(decided(b"POST /mcp HTTP/1.1\r\n"), Some(Some(Protocol::Http1)));
        assert_eq!(decided(b"PO"), Some(Some(Protocol::Http1)), "two bytes suffice for POST");
        assert_eq!(decided(b"GET /"), Some(Some(Protocol::Http1)));
        assert_eq!(decided(b"P"), None, "PRI, POST, PUT or PATCH: wait");
        assert_eq!(decided(b"PRI * HTTP/2.0\r\n"), None, "the preface so far");
        assert_eq!(decided(PREFACE), Some(Some(Protocol::Http2)));
    }

    #[tokio::test]
    async fn a_connection_is_sniffed_without_reading_it() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("an address");
        let mut client = TcpStream::connect(addr).await.expect("connect");
        let (server, _) = listener.accept().await.expect("accepted");
        // The preface in two pieces: decided once it is whole.
        client.write_all(&PREFACE[..5]).await.expect("written");
        let sniffing = tokio::spawn(async move { (sniff(&server, Duration::from_secs(10)).await, server) });
        tokio::time::sleep(Duration::from_millis(20)).await;
        client.write_all(&PREFACE[5..]).await.expect("written");
        let (protocol, mut server) = sniffing.await.expect("sniffed");
        assert_eq!(protocol, Some(Protocol::Http2));
        let mut all = [0u8; PREFACE.len()];
        server.read_exact(&mut all).await.expect("still there to read");
        assert_eq!(&all[..], PREFACE);

        let silent = TcpStream::connect(addr).await.expect("connect");
        let (server, _) = listener.accept().await.expect("accepted");
        assert_eq!(sniff(&server, Duration::from_millis(50)).await, None, "nothing said in time");
        drop(silent);
    }

    /// A client that sends `P` and nothing more is waited for, not polled:
    /// over a second, the sniff wakes a handful of times, where it used to
    /// look every millisecond.
    #[tokio::test]
    async fn one_byte_and_silence_is_waited_for_not_polled() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use tokio::io::AsyncWriteExt;

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("an address");
        let mut client = TcpStream::connect(addr).await.expect("connect");
        let (server, _) = listener.accept().await.expect("accepted");
        client.write_all(b"P").await.expect("written");
        // Counts the sniff's polls.
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&polls);
        let sniffing = async move {
            let mut sniff = std::pin::pin!(sniff(&server, Duration::from_secs(1)));
            std::future::poll_fn(|cx| {
                counted.fetch_add(1, Ordering::Relaxed);
                sniff.as_mut().poll(cx)
            })
            .await
        };
        assert_eq!(sniffing.await, None, "undecided when the time is up");
        let polls = polls.load(Ordering::Relaxed);
        assert!(polls < 40, "polled {polls} times in a second");

        // And it is decided as soon as the rest comes.
        let mut client = TcpStream::connect(addr).await.expect("connect");
        let (server, _) = listener.accept().await.expect("accepted");
        client.write_all(b"P").await.expect("written");
        let sniffing = tokio::spawn(async move { sniff(&server, Duration::from_secs(10)).await });
        tokio::time::sleep(Duration::from_millis(100)).await;
        client.write_all(b"OST / HTTP/1.1\r\n").await.expect("written");
        let started = std::time::Instant::now();
        assert_eq!(sniffing.await.expect("sniffed"), Some(Protocol::Http1));
        assert!(started.elapsed() < Duration::from_millis(300), "decided when the bytes came");

        // A client that closes after `P` is done with at once.
        let mut client = TcpStream::connect(addr).await.expect("connect");
        let (server, _) = listener.accept().await.expect("accepted");
        client.write_all(b"P").await.expect("written");
        drop(client);
        let started = std::time::Instant::now();
        assert_eq!(sniff(&server, Duration::from_secs(10)).await, None);
        assert!(started.elapsed() < Duration::from_secs(1), "a closed connection is not waited on");
    }
}
