//! A Redis pub/sub subscription that outlives lost connections: the one
//! reading loop behind the Redis event bus and the Redis session store.
//!
//! On one server it is a `SUBSCRIBE` on a connection of its own, made again
//! (after 0.1 s, doubling up to 5 s) when it ends. On a cluster it is a
//! sharded `SSUBSCRIBE` on a RESP3 cluster connection, made again on
//! whichever node serves the channel's slot after a failover.

use std::time::Duration;

use futures_util::StreamExt as _;
use redis::cluster_async::ClusterConnection;
use redis::{PushInfo, PushKind, RedisResult};
use tokio::sync::mpsc;

use super::address::Address;

/// A subscription made when a store or bus connects, so that an unreachable
/// Redis fails there.
pub(crate) enum Subscription {
    /// One server: its client (to subscribe again) and the subscribed
    /// connection.
    Single { client: redis::Client, pubsub: redis::aio::PubSub },
    /// A cluster: the connection (subscribed, and kept to subscribe again)
    /// and the messages it pushes.
    Cluster { connection: ClusterConnection, pushes: mpsc::UnboundedReceiver<PushInfo> },
}

impl Subscription {
    /// Subscribes to every one of `channels` at `address`.
    pub(crate) async fn open(address: Address, channels: &[String]) -> RedisResult<Subscription> {
        match address {
            Address::Single(client) => {
                let mut pubsub = client.get_async_pubsub().await?;
                for channel in channels {
                    pubsub.subscribe(channel).await?;
                }
                Ok(Subscription::Single { client, pubsub })
            }
            Address::Cluster(nodes) => {
                let (sender, pushes) = mpsc::unbounded_channel();
                let mut connection = redis::cluster::ClusterClientBuilder::new(nodes)
                    .use_protocol(redis::ProtocolVersion::RESP3)
                    .push_sender(sender)
                    .build()?
                    .get_async_connection()
                    .await?;
                // One command per channel: the channels of one subscriber may
                // hash to different slots.
                for channel in channels {
                    connection.ssubscribe(channel).await?;
                }
                Ok(Subscription::Cluster { connection, pushes })
            }
        }
    }
}

/// Reads the messages of `channels` from `subscription` and hands each
/// payload to `deliver`, until `deliver` says its receiver is gone. A
/// connection that ends is replaced as long as `wanted` says someone still
/// listens; `what` names the subscriber in the logs. Messages published
/// while no connection was subscribed are lost: `resumed` is called once
/// subscribed again, so that the subscriber can say so to its own
/// listeners.
pub(crate) async fn follow(
    subscription: Subscription,
    channels: Vec<String>,
    what: &'static str,
    wanted: impl Fn() -> bool,
    deliver: impl FnMut(String) -> bool,
    resumed: impl FnMut(),
) {
    match subscription {
        Subscription::Single { client, pubsub } => {
            follow_single(client, pubsub, channels, what, wanted, deliver, resumed).await
        }
        Subscription::Cluster { connection, pushes } => {
            follow_cluster(connection, pushes, channels, what, wanted, deliver, resumed).await
        }
    }
}

async fn follow_single(
    client: redis::Client,
    first: redis::aio::PubSub,
    channels: Vec<String>,
    what: &'static str,
    wanted: impl Fn() -> bool,
    mut deliver: impl FnMut(String) -> bool,
    mut resumed: impl FnMut(),
) {
    let mut pubsub = Some(first);
    let mut delay = Duration::from_millis(100);
    loop {
        if let Some(mut connection) = pubsub.take() {
            let mut messages = connection.on_message();
            while let Some(message) = messages.next().await {
                if let Ok(payload) = message.get_payload::<String>()
                    && !deliver(payload)
                {
                    return;
                }
            }
            tracing::warn!("the Redis subscription of the {what} ended; reconnecting");
            delay = Duration::from_millis(100);
        }
        if !wanted() {
            return;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(5));
        match client.get_async_pubsub().await {
            Ok(mut connection) => {
                let mut subscribed = true;
                for channel in &channels {
                    if let Err(e) = connection.subscribe(channel).await {
                        tracing::warn!(error = %e, "the {what} could not resubscribe to Redis");
                        subscribed = false;
                    }
                }
                if subscribed {
                    tracing::info!("the Redis subscription of the {what} is back");
                    pubsub = Some(connection);
                    resumed();
                }
            }
            Err(e) => tracing::warn!(error = %e, "the {what} could not reconnect to Redis"),
        }
    }
}

/// The cluster connection says a node's connection was lost with a
/// `Disconnection` push. The loop then subscribes to every channel again
/// itself (with a growing delay between failed rounds): the command goes to
/// whichever node serves the channel's slot now, refreshing the topology on
/// the way, and succeeds once the cluster promoted a replica of a failed
/// master. Only then is the gap over and `resumed` called. (Subscribing to
/// a channel held already is harmless; the loss of a node that held none of
/// the channels costs the listeners one needless notice.)
async fn follow_cluster(
    mut connection: ClusterConnection,
    mut pushes: mpsc::UnboundedReceiver<PushInfo>,
    channels: Vec<String>,
    what: &'static str,
    wanted: impl Fn() -> bool,
    mut deliver: impl FnMut(String) -> bool,
    mut resumed: impl FnMut(),
) {
    let mut gap = false;
    let mut delay = Duration::from_millis(100);
    loop {
        let resubscribe = async {
            if gap { resubscribe(&mut connection, &channels, what).await } else { std::future::pending().await }
        };
        tokio::select! {
            push = pushes.recv() => {
                let Some(push) = push else { return };
                match push.kind {
                    PushKind::SMessage | PushKind::Message => {
                        let payload = push.data.into_iter().nth(1).and_then(|value| redis::from_redis_value(value).ok());
                        if let Some(payload) = payload
                            && !deliver(payload)
                        {
                            return;
                        }
                    }
                    PushKind::Disconnection => {
                        if !wanted() {
                            return;
                        }
                        if !gap {
                            tracing::warn!("a Redis node the {what} was connected to went away; subscribing again");
                            delay = Duration::from_millis(100);
                        }
                        gap = true;
                    }
                    _ => {}
                }
            }
            subscribed = resubscribe => {
                if subscribed {
                    gap = false;
                    tracing::info!("the Redis subscription of the {what} is back");
                    resumed();
                } else {
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        }
    }
}

/// `SSUBSCRIBE` to each of `channels` again; whether every one succeeded.
async fn resubscribe(connection: &mut ClusterConnection, channels: &[String], what: &str) -> bool {
    for channel in channels {
        if let Err(e) = connection.ssubscribe(channel).await {
            tracing::warn!(error = %e, "the {what} could not resubscribe to Redis");
            return false;
        }
    }
    true
}
