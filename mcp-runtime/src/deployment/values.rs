//! The values of deployment settings, read from text: each reader says
//! what it expected, and the caller says which flag or variable held it.

use std::net::SocketAddr;
use std::time::Duration;

use crate::server::Eras;

/// An address to listen on, such as `127.0.0.1:3000`.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(super) fn address(text: &str) -> Result<SocketAddr, String> {
    text.trim().parse().map_err(|_| format!("`{text}` is not an address such as 127.0.0.1:3000"))
}

/// A Redis URL, one node's or a cluster's, as the `redis` module connects.
pub(super) fn redis(text: &str) -> Result<String, String> {
    let text = text.trim();
    let cluster = ["redis+cluster://", "rediss+cluster://"].iter().any(|scheme| text.starts_with(scheme));
    let nodes = text
        .split(',')
        .all(|node| ["redis://", "rediss://", "unix://"].iter().any(|scheme| node.trim().starts_with(scheme)));
    if cluster || nodes {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "`{text}` is not a Redis URL (redis://HOST:PORT/, rediss:// or unix://; for a cluster \
             redis+cluster://HOST:PORT,HOST:PORT/)"
        ))
    }
}

/// A URL clients reach the server by: `http(s)://name[:port][/path]`,
/// without credentials, kept without its trailing slash.
pub(super) fn public_url(text: &str) -> Result<String, String> {
    let text = text.trim();
    let invalid = || format!("`{text}` is not a base URL such as https://mcp.example.com");
    let (scheme, rest) = text.split_once("://").ok_or_else(invalid)?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(invalid());
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() || authority.contains('@') {
        return Err(invalid());
    }
    Ok(text.trim_end_matches('/').to_owned())
}

/// A number of proxies, 0 for none.
pub(super) fn hops(text: &str) -> Result<usize, String> {
    text.trim().parse().map_err(|_| format!("`{text}` is not a number of proxies such as 1"))
}

/// A duration in seconds, fractions allowed.
pub(super) fn seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("`{text}` is not a number of seconds such as 5 or 0.5"))
}

/// On or off.
pub(super) fn switch(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(format!("`{text}` is not 1 or 0")),
    }
}

/// Which clients to serve; a former word (`modern`, `legacy`) still
/// reads, with a warning.
pub(super) fn eras(text: &str) -> Result<Eras, String> {
    Eras::read(text, "--eras or MCP_ERAS")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_value_reads_or_says_what_it_expected() {
        assert_eq!(address(" 0.0.0.0:80 "), Ok(([0, 0, 0, 0], 80).into()));
        assert!(address("localhost").unwrap_err().contains("127.0.0.1:3000"));
        assert!(redis("redis+cluster://a:1,b:2/").is_ok() && redis("redis://a:1/,redis://b:2/").is_ok());
        assert!(redis("127.0.0.1:6379").unwrap_err().contains("not a Redis URL"));
        assert_eq!(public_url("https://mcp.example.com/"), Ok("https://mcp.example.com".into()));
        for bad in ["mcp.example.com", "ftp://x", "https://", "https://user@host"] {
            assert!(public_url(bad).is_err(), "{bad}");
        }
        assert_eq!(hops("2"), Ok(2));
        assert_eq!(seconds("2.5"), Ok(Duration::from_millis(2500)));
        assert!(seconds("-1").is_err() && seconds("soon").is_err());
        assert_eq!((switch("on"), switch("0")), (Ok(true), Ok(false)));
        assert!(switch("yes please").unwrap_err().contains("not 1 or 0"));
        assert_eq!(eras("stateless"), Ok(Eras::Stateless));
        assert!(eras("both").is_err());
    }
}
