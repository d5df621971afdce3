//! Which HTTP a connection speaks, decided once for the connection: over
//! TLS, what ALPN agreed; over plain TCP, its first bytes (HTTP/2 with
//! prior knowledge opens with the connection preface), looked at without
//! reading them. The connection then goes to hyper's HTTP/1.1 or HTTP/2
//! server as it is, so that an HTTP/1.1 request pays nothing for HTTP/2
//! being served beside it: hyper-util's automatic builder, which decides
//! the same, passes every read through a rewinding wrapper and polls one
//! layer more, about 160 instructions per `tools/call` (`bench/callgrind.sh`).

use std::time::Duration;

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

/// How long to wait before looking again when the first bytes are a
/// prefix of the preface and more are on their way (rare: a client sends
/// the preface in one piece).
const PARTIAL_WAIT: Duration = Duration::from_millis(1);

/// What a plain connection speaks, from its first bytes, which stay
/// unread; `None` when it closes or says nothing within `limit`.
pub(crate) async fn sniff(stream: &TcpStream, limit: Duration) -> Option<Protocol> {
    let deadline = Instant::now() + limit;
    let mut first = [0u8; PREFACE.len()];
    loop {
        let seen = tokio::time::timeout_at(deadline, stream.peek(&mut first)).await.ok()?.ok()?;
        if let Some(protocol) = decided(&first[..seen]) {
            return protocol;
        }
        tokio::time::timeout_at(deadline, tokio::time::sleep(PARTIAL_WAIT)).await.ok()?;
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
}
