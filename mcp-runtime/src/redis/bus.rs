//! An [`EventBus`] over Redis pub/sub, so that a change announced on one
//! replica reaches the listen streams of every replica.
//!
//! Each event is delivered to this process's listeners at once and
//! published on a Redis channel, tagged with this bus's random origin id;
//! events arriving from Redis with another origin are delivered locally.
//! When Redis is unreachable, local delivery goes on and the failure is
//! logged; publishing connects again at the next event, and the subscriber
//! reconnects with a growing delay (at most 5 s). What other replicas
//! published meanwhile never arrives, so once subscribed again the bus
//! delivers [`ServerEvent::EventsMissed`] here: every listen stream then
//! announces everything it follows as changed.

use std::fmt;

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use super::commands::Commands;
use super::subscription::Subscription;
use crate::events::{EventBus, LocalBus, ReadyFuture, ServerEvent};

/// Events shared through a Redis channel.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::{Server, redis::RedisBus};
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
    /// The connection events are published and readiness is checked on,
    /// made again when it broke.
    commands: Commands,
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
        let commands = Commands::connect(url).await?;
        let subscription = Subscription::open(commands.address(), &[channel.to_owned()]).await?;

        let mut origin_bytes = [0u8; 16];
        let _ = getrandom::fill(&mut origin_bytes);
        let origin = origin_bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let local = LocalBus::default();
        let (outgoing, rx) = mpsc::unbounded_channel();
        tokio::spawn(publish_loop(commands.clone(), channel.to_owned(), rx));
        tokio::spawn(subscribe_loop(subscription, channel.to_owned(), origin.clone(), local.sender().downgrade()));
        Ok(RedisBus { local, outgoing, origin, channel: channel.to_owned(), commands })
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

    /// A `PING`, so that a Redis that comes back
    /// makes the replica ready again.
    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(async move { self.commands.ping().await.map_err(Into::into) })
    }
}

/// Publishes what `outgoing` brings, in order. An event that cannot be
/// published is dropped (listeners elsewhere hear of the loss when their
/// subscription comes back); the next one tries a new connection.
async fn publish_loop(commands: Commands, channel: String, mut outgoing: mpsc::UnboundedReceiver<String>) {
    while let Some(message) = outgoing.recv().await {
        if let Err(e) = commands.publish(&channel, &message).await {
            tracing::warn!(error = %e, "could not publish a change event to Redis");
        }
    }
}

async fn subscribe_loop(
    subscription: Subscription,
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
    // Back after an outage: what the other replicas published meanwhile is
    // lost, and every listener here is told so.
    let resumed = || {
        if let Some(local) = local.upgrade() {
            let _ = local.send(ServerEvent::EventsMissed);
        }
    };
    super::subscription::follow(subscription, vec![channel], "event bus", wanted, deliver, resumed).await;
}
