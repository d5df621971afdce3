//! OAuth for a `--url` server that asks for it: a person approving in a
//! browser, which the authorization server sends back to a loopback port
//! of `mcp`'s, with the tokens kept in a file across runs; or a program
//! acting for itself with its client credentials, keeping none.

use std::io::IsTerminal as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::oauth::{ClientCredentials, FileTokenStore, OAuth, TokenStore as _};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;

/// How long a person has to approve in the browser.
const WAIT: Duration = Duration::from_secs(5 * 60);

/// The path the browser is sent back to.
const CALLBACK: &str = "/callback";

/// How long one connection to the loopback port may take to send its
/// request: a browser opens some it never sends on.
const READ: Duration = Duration::from_secs(30);

/// The most of a request's head that is read.
const MOST_HEAD: u64 = 16 * 1024;

/// What the environment says about authorizing.
#[derive(Debug, PartialEq)]
pub(crate) struct Environment {
    /// `$MCP_CLIENT_ID` and `$MCP_CLIENT_SECRET`, when both are set.
    credentials: Option<(String, String)>,
    /// Where a person's tokens are kept, when a place can be named.
    pub(crate) token_file: Option<PathBuf>,
}

impl Environment {
    /// This process's environment; a client id without a secret (or the
    /// reverse) is said, and left unused.
    pub(crate) fn read() -> Environment {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let environment = Environment::of(var);
        if environment.credentials.is_none() {
            match (var("MCP_CLIENT_ID"), var("MCP_CLIENT_SECRET")) {
                (Some(_), None) => eprintln!("mcp: $MCP_CLIENT_ID is set without $MCP_CLIENT_SECRET: not used"),
                (None, Some(_)) => eprintln!("mcp: $MCP_CLIENT_SECRET is set without $MCP_CLIENT_ID: not used"),
                _ => {}
            }
        }
        environment
    }

    /// The environment whose variables `var` gives (`None` for one unset
    /// or empty).
    fn of(var: impl Fn(&str) -> Option<String>) -> Environment {
        let credentials = var("MCP_CLIENT_ID").zip(var("MCP_CLIENT_SECRET"));
        Environment { credentials, token_file: token_file(var) }
    }

    /// How a client authorizes: with the client credentials, else as a
    /// person, at a loopback port bound now (the redirect URI is registered
    /// before the browser comes back to it), waited on [`WAIT`] at most.
    pub(crate) fn oauth(&self) -> std::io::Result<OAuth> {
        if let Some((id, secret)) = &self.credentials {
            return Ok(OAuth::client_credentials(ClientCredentials::secret(id, secret)));
        }
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0")?);
        let redirect_uri = format!("http://127.0.0.1:{}{CALLBACK}", listener.local_addr()?.port());
        let oauth = OAuth::new(redirect_uri).client_name("mcp").on_authorize(move |url| {
            let listener = Arc::clone(&listener);
            async move { authorize(&listener, &url, std::io::stderr().is_terminal(), WAIT).await }
        });
        Ok(match &self.token_file {
            Some(path) => oauth.token_store(FileTokenStore::new(path)),
            // The default: in memory, for this run.
            None => oauth,
        })
    }

    /// Whether a person's tokens would be kept nowhere but in memory.
    pub(crate) fn keeps_nothing(&self) -> bool {
        self.credentials.is_none() && self.token_file.is_none()
    }

    /// What `mcp login` says once the server answered.
    pub(crate) fn logged_in(&self, url: &str) -> String {
        match (&self.credentials, &self.token_file) {
            (Some(_), _) => format!(
                "{url} answered; with $MCP_CLIENT_ID and $MCP_CLIENT_SECRET set, each run gets its own token and \
                 none is kept"
            ),
            (None, Some(path)) => format!("{url} answered; its tokens, if it needed any, are in {}", path.display()),
            (None, None) => format!("{url} answered; its tokens, if it needed any, are kept for this run only"),
        }
    }
}

/// `$MCP_TOKEN_FILE`, else `mcp/tokens.json` in `$XDG_CONFIG_HOME`, else
/// in `$HOME/.config`.
fn token_file(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(file) = var("MCP_TOKEN_FILE") {
        return Some(PathBuf::from(file));
    }
    // A relative one is to be ignored, the XDG specification says.
    let config = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(config.join("mcp").join("tokens.json"))
}

/// What `mcp logout` did to the tokens of `url` in the file at `path`:
/// forgot them, or found none. Only the file changes: the server and its
/// authorization server are not told.
pub(crate) fn logout(url: &str, path: &Path) -> Result<String, String> {
    let store = FileTokenStore::new(path);
    if store.load(url).is_none() {
        // Not written, so that a mistyped URL makes no file.
        return Ok(format!("{url} had no tokens in {} (a URL is matched exactly as given)", path.display()));
    }
    store.forget(url);
    // The store only logs a write that failed: read again to know.
    match store.load(url) {
        None => Ok(format!("logged out of {url}")),
        Some(_) => Err(format!("{} could not be written: the tokens of {url} are still there", path.display())),
    }
}

/// The person's step: `url` shown (and opened in a browser when `open`),
/// then the URL the browser was sent back to, at `listener`, within `wait`.
async fn authorize(listener: &TcpListener, url: &str, open: bool, wait: Duration) -> Result<String, String> {
    eprintln!("mcp: to authorize, open this URL in a browser:\n  {url}");
    if open {
        open_in_browser(url);
    }
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    // A clone of it: the authorization may be asked for again.
    let listener = listener
        .try_clone()
        .and_then(|listener| {
            listener.set_nonblocking(true)?;
            tokio::net::TcpListener::from_std(listener)
        })
        .map_err(|e| format!("the loopback port {port} could not be listened on: {e}"))?;
    match tokio::time::timeout(wait, came_back(&listener)).await {
        Ok(Ok(target)) => Ok(format!("http://127.0.0.1:{port}{target}")),
        Ok(Err(e)) => Err(format!("the loopback port {port} failed: {e}")),
        Err(_) => Err(format!("no browser came back to http://127.0.0.1:{port}{CALLBACK} within {}", spoken(wait))),
    }
}

/// `wait` as a person reads it: whole minutes, else seconds.
fn spoken(wait: Duration) -> String {
    match wait.as_secs() {
        60 => "a minute".to_owned(),
        seconds if seconds % 60 == 0 && seconds > 0 => format!("{} minutes", seconds / 60),
        _ => format!("{} s", wait.as_secs_f64()),
    }
}

/// Opens `url` with `$BROWSER`, else the system's opener, not waiting for
/// it; a failure is no matter, the URL was printed.
fn open_in_browser(url: &str) {
    let system = if cfg!(target_os = "macos") { Some("open") } else { cfg!(unix).then_some("xdg-open") };
    let opener = std::env::var_os("BROWSER").filter(|b| !b.is_empty()).or_else(|| system.map(Into::into));
    if let Some(opener) = opener {
        let null = std::process::Stdio::null;
        let _ = std::process::Command::new(opener).arg(url).stdin(null()).stdout(null()).stderr(null()).spawn();
    }
}

/// The path and query of the first request to [`CALLBACK`] at `listener`;
/// others are answered 404. Connections are served side by side: a
/// browser opens some it sends nothing on.
async fn came_back(listener: &tokio::net::TcpListener) -> std::io::Result<String> {
    let mut answering = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                answering.spawn(answer(accepted?.0));
            }
            Some(answered) = answering.join_next() => {
                if let Ok(Some(target)) = answered {
                    return Ok(target);
                }
            }
        }
    }
}

/// Reads one request on `stream` and answers it: the redirect's path and
/// query when it is the redirect, which is told it is done.
async fn answer(mut stream: TcpStream) -> Option<String> {
    let target = tokio::time::timeout(READ, request_target(&mut stream)).await.ok()??;
    let redirect = is_callback(&target);
    let reply = if redirect { page(200, "OK", DONE) } else { page(404, "Not Found", "Not found.") };
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
    redirect.then_some(target)
}

/// What the browser shows once it came back.
const DONE: &str = "Authorization done: mcp carries on in the terminal. You can close this tab.";

/// An HTTP response with `text` as a small HTML page.
fn page(status: u16, reason: &str, text: &str) -> String {
    let body = format!("<!doctype html><meta charset=\"utf-8\"><title>mcp</title><p>{text}</p>\n");
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The target of the request on `stream` (its path and query), the rest
/// of its head read too (closing on unread bytes would reset the
/// connection before the browser read the answer).
async fn request_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = BufReader::new(stream).take(MOST_HEAD);
    let mut line = String::new();
    head.read_line(&mut line).await.ok()?;
    let target = target_of(&line)?.to_owned();
    loop {
        line.clear();
        match head.read_line(&mut line).await {
            Ok(read) if read > 0 && !line.trim().is_empty() => {}
            _ => return Some(target),
        }
    }
}

/// The target of a request line (`GET /callback?code=c HTTP/1.1`).
fn target_of(request_line: &str) -> Option<&str> {
    match request_line.split_whitespace().collect::<Vec<_>>()[..] {
        [_method, target, version] if target.starts_with('/') && version.starts_with("HTTP/") => Some(target),
        _ => None,
    }
}

/// Whether `target` is the redirect URI's path.
fn is_callback(target: &str) -> bool {
    target.split('?').next() == Some(CALLBACK)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::io::{Read as _, Write as _};

    use super::*;

    fn environment(vars: &[(&str, &str)]) -> Environment {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Environment::of(|name| vars.get(name).cloned())
    }

    #[test]
    fn the_token_file_is_named_by_the_environment_in_order() {
        let all = [("MCP_TOKEN_FILE", "/t.json"), ("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(environment(&all).token_file, Some(PathBuf::from("/t.json")));
        assert_eq!(environment(&all[1..]).token_file, Some(PathBuf::from("/x/mcp/tokens.json")));
        assert_eq!(environment(&all[2..]).token_file, Some(PathBuf::from("/h/.config/mcp/tokens.json")));
        let relative = environment(&[("XDG_CONFIG_HOME", "x"), ("HOME", "/h")]);
        assert_eq!(relative.token_file, Some(PathBuf::from("/h/.config/mcp/tokens.json")), "a relative one is ignored");
        assert_eq!(environment(&[]).token_file, None);
    }

    #[test]
    fn client_credentials_take_both_variables() {
        let both = environment(&[("MCP_CLIENT_ID", "job"), ("MCP_CLIENT_SECRET", "s"), ("HOME", "/h")]);
        assert_eq!(both.credentials, Some(("job".to_owned(), "s".to_owned())));
        assert!(both.logged_in("http://h/mcp").contains("none is kept"));
        let half = environment(&[("MCP_CLIENT_ID", "job"), ("HOME", "/h")]);
        assert_eq!(half.credentials, None);
        assert_eq!(
            half.logged_in("http://h/mcp"),
            "http://h/mcp answered; its tokens, if it needed any, are in /h/.config/mcp/tokens.json"
        );
    }

    #[test]
    fn a_request_line_gives_its_target() {
        assert_eq!(target_of("GET /callback?code=c&state=s HTTP/1.1\r\n"), Some("/callback?code=c&state=s"));
        assert_eq!(target_of("GET http://elsewhere/ HTTP/1.1\r\n"), None);
        assert_eq!(target_of("hello\r\n"), None);
        assert!(is_callback("/callback?code=c") && is_callback("/callback"));
        assert!(!is_callback("/favicon.ico") && !is_callback("/callbacks?code=c"));
    }

    /// Sends `request` to `port`, and returns the answer.
    fn ask(port: u16, request: &str) -> String {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connected");
        stream.write_all(request.as_bytes()).expect("sent");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("answered");
        answer
    }

    #[tokio::test]
    async fn the_browser_is_awaited_past_other_requests_and_told_it_is_done() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bound");
        let port = listener.local_addr().expect("an address").port();
        let browser = std::thread::spawn(move || {
            // One that sends nothing, as a browser's spare connection.
            let idle = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connected");
            let missing = ask(port, "GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n");
            let done = ask(port, "GET /callback?code=c&state=s HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
            drop(idle);
            (missing, done)
        });
        let came_back = authorize(&listener, "https://login.example.com/authorize", false, WAIT).await;
        assert_eq!(came_back, Ok(format!("http://127.0.0.1:{port}/callback?code=c&state=s")));
        let (missing, done) = browser.join().expect("the browser");
        assert!(missing.starts_with("HTTP/1.1 404 "), "{missing}");
        assert!(done.starts_with("HTTP/1.1 200 OK\r\n") && done.contains("You can close this tab."), "{done}");
    }

    #[tokio::test]
    async fn a_browser_that_does_not_come_back_in_time_is_said() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bound");
        let port = listener.local_addr().expect("an address").port();
        let said = authorize(&listener, "https://login.example.com/a", false, Duration::from_millis(50)).await;
        assert_eq!(said, Err(format!("no browser came back to http://127.0.0.1:{port}/callback within 0.05 s")));
        assert_eq!((spoken(WAIT), spoken(Duration::from_secs(60))), ("5 minutes".to_owned(), "a minute".to_owned()));
    }

    #[test]
    fn logout_forgets_the_urls_tokens_alone_and_writes_nothing_when_it_has_none() {
        let path = std::env::temp_dir().join(format!("mcp-cli-logout-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let said = logout("http://h/mcp", &path).expect("nothing to forget");
        assert!(said.contains("had no tokens"), "{said}");
        assert!(!path.exists(), "no file made");
    }
}
