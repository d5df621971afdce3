//! The server's side of HTTP/1.1, read by hand: for tests that script
//! exactly what a server answers a client (its statuses, its headers, a
//! stream it ends), and check what the client sent.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt as _, AsyncReadExt as _};

/// One request as the client sent it.
#[derive(Debug, Clone)]
pub struct Received {
    /// The HTTP method.
    pub method: String,
    /// The path and query.
    pub path: String,
    /// By lowercase name.
    pub headers: BTreeMap<String, String>,
    /// As sent: JSON, a form, or nothing.
    pub body: String,
    /// When its last byte was read.
    pub at: Instant,
}

impl Received {
    /// The header `name` (lowercase), if it came.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// Whether it is a `method` request of `path`.
    pub fn is(&self, method: &str, path: &str) -> bool {
        self.method == method && self.path == path
    }

    /// The body read as JSON; `Null` when there is none.
    pub fn json(&self) -> Value {
        if self.body.is_empty() { Value::Null } else { serde_json::from_str(&self.body).expect("a JSON body") }
    }

    /// The body read as a form.
    pub fn form(&self) -> BTreeMap<String, String> {
        pairs(&self.body)
    }
}

/// The next request's head and body, or `None` once the client closed.
pub async fn read_request<R: AsyncBufRead + Unpin>(stream: &mut R) -> Option<Received> {
    let mut line = String::new();
    if stream.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let mut start = line.split_whitespace();
    let (method, path) = (start.next()?.to_owned(), start.next()?.to_owned());
    let mut headers = BTreeMap::new();
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.insert(name.to_ascii_lowercase(), value.trim().to_owned());
    }
    let length = headers.get("content-length").map_or(Some(0), |length| length.parse().ok())?;
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    let body = String::from_utf8(body).expect("a text body");
    Some(Received { method, path, headers, body, at: Instant::now() })
}

/// `name=value&...` (a form, a query), decoded, by name.
pub fn pairs(text: &str) -> BTreeMap<String, String> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decoded(name), decoded(value))
        })
        .collect()
}

/// The query of `url`, by name.
pub fn query_of(url: &str) -> BTreeMap<String, String> {
    pairs(url.split_once('?').map_or("", |(_, query)| query))
}

/// One form-encoded component, decoded.
fn decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = text.get(i + 1..i + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[i], escaped) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 2;
            }
            (other, _) => out.push(other),
        }
        i += 1;
    }
    String::from_utf8(out).expect("UTF-8 once decoded")
}

/// What a scripted server received, in the order it came.
pub type Log = std::sync::Arc<std::sync::Mutex<Vec<Received>>>;

/// Serves `listener`: each request is answered with what `answer` writes of
/// it (a whole HTTP/1.1 answer, [`http`]), and recorded before it is
/// answered in the log returned.
pub fn serve_on<A>(listener: tokio::net::TcpListener, answer: A) -> Log
where
    A: Fn(&Received) -> String + Send + Sync + 'static,
{
    use tokio::io::AsyncWriteExt as _;
    let (log, answer) = (Log::default(), std::sync::Arc::new(answer));
    let kept = std::sync::Arc::clone(&log);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (log, answer) = (std::sync::Arc::clone(&kept), std::sync::Arc::clone(&answer));
            tokio::spawn(async move {
                let mut stream = tokio::io::BufReader::new(stream);
                while let Some(request) = read_request(&mut stream).await {
                    log.lock().expect("the log").push(request.clone());
                    let answered = answer(&request);
                    // A client that went away is for the test's assertions to notice.
                    if stream.get_mut().write_all(answered.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    log
}

/// An HTTP/1.1 answer of `status` with `extra` header lines (each ending
/// in `\r\n`) and `body` (JSON, when there is one).
pub fn http(status: &str, extra: &str, body: &str) -> String {
    let kind = if body.is_empty() { "" } else { "content-type: application/json\r\n" };
    format!("HTTP/1.1 {status}\r\n{kind}{extra}content-length: {}\r\n\r\n{body}", body.len())
}

/// A `200 OK` answer of `document`.
pub fn ok(document: &Value) -> String {
    http("200 OK", "", &document.to_string())
}
