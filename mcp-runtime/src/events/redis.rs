//! An [`EventBus`] over Redis pub/sub, so that a change announced on one
//! replica reaches the listen streams of every replica.
//!
//! Each event is delivered to this process's listeners at once and
//! published on a Redis channel, tagged with this bus's random origin id;
//! events arriving from Redis with another origin are delivered locally.
//! When Redis is unreachable, local delivery goes on, the failure is logged,
//! and the subscriber reconnects with a growing delay (at most 5 s).

use std::fmt;

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use std::sync::{Arc, Mutex, MutexGuard};

use redis::aio::MultiplexedConnection;

use super::{EventBus, LocalBus, ReadyFuture, ServerEvent};

/// Events shared through a Redis channel.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::{Server, events::RedisBus};
/// let bus = RedisBus::connect("redis://127.0.0.1:6379/", "mcp:notes:events").await?;
/// let server = Server::builder("notes", "1.0.0").event_bus(bus).build()?;
/// # let _ = server; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisBus {
    local: LocalBus,
    outgoing: mpsc::UnboundedSender<String>,
    origin: String,
    channel: String,
    client: redis::Client,
    /// The connection readiness checks `PING` on, replaced when it broke.
    probe: Arc<Mutex<MultiplexedConnection>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    origin: String,
    event: ServerEvent,
}

impl RedisBus {
    /// Connects to Redis at `url` and shares events on `channel`. Fails when
    /// the first connection cannot be made; later outages are retried.
    pub async fn connect(url: &str, channel: &str) -> redis::RedisResult<Self> {
        let client = redis::Client::open(url)?;
        let publisher = client.get_multiplexed_async_connection().await?;
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(channel).await?;

        let mut origin_bytes = [0u8; 16];
        let _ = getrandom::fill(&mut origin_bytes);
        let origin = origin_bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let local = LocalBus::default();
        let (outgoing, rx) = mpsc::unbounded_channel();
        let probe = Arc::new(Mutex::new(publisher.clone()));
        tokio::spawn(publish_loop(publisher, channel.to_owned(), rx));
        let subscriber = client.clone();
        tokio::spawn(subscribe_loop(
            subscriber,
            pubsub,
            channel.to_owned(),
            origin.clone(),
            local.sender().downgrade(),
        ));
        Ok(RedisBus { local, outgoing, origin, channel: channel.to_owned(), client, probe })
    }
}

impl fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisBus").field("channel", &self.channel).field("origin", &self.origin).finish()
    }
}

impl EventBus for RedisBus {
    fn publish(&self, event: ServerEvent) {
        let envelope = Envelope { origin: self.origin.clone(), event: event.clone() };
        if let Ok(json) = serde_json::to_string(&envelope) {
            let _ = self.outgoing.send(json);
        }
        self.local.publish(event);
    }

    fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.local.subscribe()
    }

    /// A `PING`, on a fresh connection when the last one broke, so that a
    /// Redis that comes back makes the replica ready again.
    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(async move {
            let mut connection = lock(&self.probe).clone();
            let ping = redis::cmd("PING");
            match ping.query_async::<String>(&mut connection).await {
                Err(e) if e.is_connection_dropped() || e.is_unrecoverable_error() || e.is_io_error() => {
                    let mut fresh = self.client.get_multiplexed_async_connection().await?;
                    *lock(&self.probe) = fresh.clone();
                    ping.query_async::<String>(&mut fresh).await?;
                    Ok(())
                }
                result => result.map(drop).map_err(Into::into),
            }
        })
    }
}

async fn publish_loop(
    mut connection: redis::aio::MultiplexedConnection,
    channel: String,
    mut outgoing: mpsc::UnboundedReceiver<String>,
) {
    while let Some(message) = outgoing.recv().await {
        let sent: redis::RedisResult<i64> =
            redis::cmd("PUBLISH").arg(&channel).arg(&message).query_async(&mut connection).await;
        if let Err(e) = sent {
            tracing::warn!(error = %e, "could not publish a change event to Redis");
        }
    }
}

async fn subscribe_loop(
    client: redis::Client,
    first: redis::aio::PubSub,
    channel: String,
    origin: String,
    local: broadcast::WeakSender<ServerEvent>,
) {
    let wanted = || local.upgrade().is_some();
    let deliver = |payload: String| match serde_json::from_str::<Envelope>(&payload) {
        Ok(envelope) if envelope.origin != origin => match local.upgrade() {
            Some(local) => {
                let _ = local.send(envelope.event);
                true
            }
            // The bus is gone once its last handle is dropped.
            None => false,
        },
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(error = %e, "ignored a malformed change event from Redis");
            true
        }
    };
    crate::redis_subscription::follow(client, first, vec![channel], "event bus", wanted, deliver).await;
}
