//! Where Redis is: one server, or a Redis Cluster (or Valkey cluster) known
//! by a few of its nodes, read from the URL every Redis-backed part takes.
//!
//! - `redis://host:port/` (or `rediss://`, `unix://`): one server, as
//!   before.
//! - `redis+cluster://host:port,host:port/` (or `rediss+cluster://`): a
//!   cluster, with the nodes to ask for its topology first; user, password
//!   and query apply to every node. One node is enough: the others are
//!   learnt from it.
//! - `redis://host:port,redis://host:port`: the same cluster as a list of
//!   plain URLs, one per node.

use redis::{ConnectionInfo, IntoConnectionInfo as _, RedisResult};

/// A parsed Redis URL.
pub(crate) enum Address {
    /// One server.
    Single(redis::Client),
    /// A cluster, by the nodes to start from.
    Cluster(Vec<ConnectionInfo>),
}

impl Address {
    /// Reads `url` in one of the forms above.
    pub(crate) fn parse(url: &str) -> RedisResult<Address> {
        let url = url.trim();
        for (scheme, plain) in [("redis+cluster://", "redis://"), ("rediss+cluster://", "rediss://")] {
            if let Some(rest) = strip_prefix_ignore_case(url, scheme) {
                return cluster(plain, rest);
            }
        }
        if url.contains(',') {
            let nodes = url.split(',').map(|node| node.trim().into_connection_info()).collect::<RedisResult<_>>()?;
            return Ok(Address::Cluster(nodes));
        }
        Ok(Address::Single(redis::Client::open(url)?))
    }
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

/// `[user:password@]host:port,host:port[/db][?query]` after the scheme: one
/// plain URL per host, each with the shared credentials and tail.
fn cluster(plain: &str, rest: &str) -> RedisResult<Address> {
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (credentials, hosts) = match authority.rsplit_once('@') {
        Some((credentials, hosts)) => (format!("{credentials}@"), hosts),
        None => (String::new(), authority),
    };
    let nodes = hosts
        .split(',')
        .map(|host| format!("{plain}{credentials}{}{tail}", host.trim()).into_connection_info())
        .collect::<RedisResult<Vec<_>>>()?;
    if nodes.is_empty() || hosts.trim().is_empty() {
        return Err((redis::ErrorKind::InvalidClientConfig, "a cluster URL names no node").into());
    }
    Ok(Address::Cluster(nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(url: &str) -> Vec<String> {
        match Address::parse(url).expect("a valid URL") {
            Address::Cluster(nodes) => nodes.iter().map(|node| node.addr().to_string()).collect(),
            Address::Single(_) => panic!("{url} read as one server"),
        }
    }

    #[test]
    fn one_url_is_one_server() {
        assert!(matches!(Address::parse("redis://127.0.0.1:6379/").unwrap(), Address::Single(_)));
        assert!(matches!(Address::parse(" redis://h:1/2 ").unwrap(), Address::Single(_)));
    }

    #[test]
    fn the_cluster_scheme_lists_nodes() {
        assert_eq!(nodes("redis+cluster://a:7000,b:7001/"), ["a:7000", "b:7001"]);
        assert_eq!(nodes("REDIS+CLUSTER://a:7000"), ["a:7000"]);
        assert_eq!(nodes("redis://a:7000,redis://b:7001/"), ["a:7000", "b:7001"]);
    }

    #[test]
    fn credentials_reach_every_node() {
        let Address::Cluster(nodes) = Address::parse("redis+cluster://u:p@a:7000,b:7001/?protocol=2").unwrap() else {
            panic!("one server")
        };
        for node in &nodes {
            assert_eq!(node.redis_settings().username(), Some("u"));
            assert_eq!(node.redis_settings().password(), Some("p"));
        }
    }

    #[test]
    fn a_cluster_url_without_nodes_is_refused() {
        assert!(Address::parse("redis+cluster:///").is_err());
        assert!(Address::parse("redis://a:1,not a url").is_err());
    }
}
