//! A Redis Cluster of a test's own: six `redis-server`s in cluster mode on
//! loopback (three masters, each with one replica), joined by
//! `redis-cli --cluster create`, ready once every node reports
//! `cluster_state:ok` and sees every slot served, and every replica has
//! synchronised with its master (before that it cannot take over). Nodes notice a lost peer
//! after one second (`cluster-node-timeout`), so that a failover takes a
//! few seconds, not fifteen. Killed when dropped.

use std::path::PathBuf;
use std::time::Duration;

use tokio::process::Command;

use crate::process::STARTUP;
use crate::redis::{RedisServer, free_port, try_start};

/// How long a failover may take: the node time-out, the election, and the
/// other nodes hearing of it, with room for a busy machine.
pub const FAILOVER: Duration = Duration::from_secs(60);

/// A running cluster.
pub struct Cluster {
    nodes: Vec<Option<RedisServer>>,
    /// The nodes' `nodes.conf` files, removed with the cluster.
    dir: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.nodes.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `redis-cli -p port args…`, its output; panics when it cannot run.
pub async fn cli(port: u16, args: &[&str]) -> String {
    let output = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .output()
        .await
        .unwrap_or_else(|e| panic!("cannot run redis-cli ({e}): apt-get install redis-tools"));
    String::from_utf8_lossy(&output.stdout).replace('\r', "")
}

impl Cluster {
    /// Starts six nodes and makes them one cluster.
    pub async fn start() -> Cluster {
        let dir = std::env::temp_dir().join(format!("mcp-cluster-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&dir).expect("a folder for nodes.conf");
        let mut nodes = Vec::new();
        while nodes.len() < 6 {
            let port = free_port();
            // The node's cluster bus listens 10000 ports higher.
            if port > 55535 {
                continue;
            }
            let extra = [
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                &format!("nodes-{port}.conf"),
                "--cluster-node-timeout",
                "1000",
                "--repl-diskless-sync-delay",
                "0",
                "--dir",
                dir.to_str().expect("a UTF-8 path"),
            ]
            .map(str::to_owned);
            // A port taken meanwhile: another one.
            if let Ok(node) = try_start(port, &extra).await {
                nodes.push(Some(node));
            }
        }
        let cluster = Cluster { nodes, dir };
        let addresses: Vec<String> = cluster.ports().iter().map(|port| format!("127.0.0.1:{port}")).collect();
        let mut create = Command::new("redis-cli");
        create.args(["--cluster", "create"]).args(&addresses).args(["--cluster-replicas", "1", "--cluster-yes"]);
        let output = create.output().await.expect("redis-cli --cluster create");
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed:\n{}",
            String::from_utf8_lossy(&output.stdout)
        );
        cluster.wait_until_healthy(None).await;
        cluster
    }

    /// The live nodes' ports.
    pub fn ports(&self) -> Vec<u16> {
        self.nodes.iter().flatten().map(|node| node.port).collect()
    }

    /// `redis+cluster://` with every live node.
    pub fn url(&self) -> String {
        let nodes: Vec<String> = self.ports().iter().map(|port| format!("127.0.0.1:{port}")).collect();
        format!("redis+cluster://{}/", nodes.join(","))
    }

    /// The ports of the masters serving slots, as a live node sees them.
    ///
    /// Only a master with slot ranges counts: just after the cluster is
    /// made, a node may still know a replica by the master flag it was
    /// started with, since roles travel by gossip.
    pub async fn masters(&self) -> Vec<u16> {
        let nodes = cli(self.ports()[0], &["cluster", "nodes"]).await;
        nodes
            .lines()
            .filter(|line| {
                let fields: Vec<&str> = line.split(' ').collect();
                let flags = fields.get(2).copied().unwrap_or_default();
                let serves_slots = fields.len() > 8;
                flags.split(',').any(|flag| flag == "master") && !flags.contains("fail") && serves_slots
            })
            .filter_map(|line| line.split(' ').nth(1)?.split(['@', ':']).nth(1)?.parse().ok())
            .collect()
    }

    /// Kills the node on `port` with SIGKILL, as a crash would.
    pub async fn kill(&mut self, port: u16) {
        let slot = self.nodes.iter_mut().find(|node| node.as_ref().is_some_and(|n| n.port == port));
        let node = slot.and_then(Option::take).unwrap_or_else(|| panic!("no live node on port {port}"));
        node.kill().await;
    }

    /// Waits until every live node reports `cluster_state:ok` and serves
    /// all 16384 slots from masters other than `lost` (a node killed, whose
    /// replica must have taken over), and every live replica is in sync.
    pub async fn wait_until_healthy(&self, lost: Option<u16>) {
        let healthy = async {
            loop {
                let mut ok = true;
                for port in self.ports() {
                    let info = cli(port, &["cluster", "info"]).await;
                    ok &= info.lines().any(|line| line == "cluster_state:ok");
                    ok &= info.lines().any(|line| line == "cluster_slots_ok:16384");
                    // A replica takes over only once it has had its master's
                    // data: every replica in sync.
                    let replication = cli(port, &["info", "replication"]).await;
                    if replication.lines().any(|line| line == "role:slave") {
                        ok &= replication.lines().any(|line| line == "master_link_status:up");
                    }
                    if let Some(lost) = lost {
                        let nodes = cli(port, &["cluster", "nodes"]).await;
                        ok &= nodes.lines().all(|line| {
                            let fields: Vec<&str> = line.split(' ').collect();
                            let at_lost = fields.get(1).is_some_and(|a| a.starts_with(&format!("127.0.0.1:{lost}@")));
                            // The lost node is known as failed and serves no slot.
                            !at_lost || (fields.get(2).is_some_and(|f| f.contains("fail")) && fields.len() <= 8)
                        });
                    }
                }
                if ok {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        };
        let limit = if lost.is_some() { FAILOVER } else { STARTUP };
        if tokio::time::timeout(limit, healthy).await.is_err() {
            let nodes = cli(self.ports()[0], &["cluster", "nodes"]).await;
            panic!("the cluster was not healthy within {limit:?}:\n{nodes}");
        }
    }
}
