//! Change events behind `subscriptions/listen`, and the pluggable bus that
//! carries them between replicas.
//!
//! The application announces changes through [`Server`](crate::Server)
//! (`notify_*`, or implicitly by adding and removing entries at run time).
//! Every change goes through the server's [`EventBus`]: in-process by
//! default, or an external engine so that a change on one replica reaches
//! listeners on every replica. Each listen stream filters the events down to
//! the kinds it asked for.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

/// A change a listen stream may be told about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ServerEvent {
    /// The set of tools changed.
    ToolsListChanged,
    /// The set of prompts changed.
    PromptsListChanged,
    /// The set of resources or templates changed.
    ResourcesListChanged,
    /// The resource at `uri` changed.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// The task `task_id` changed (status, input requests, outcome): listen
    /// streams following it read it and send it whole.
    TaskStatus {
        /// The task.
        task_id: String,
    },
    /// Events may have been lost on their way here (a distributed bus lost
    /// its connection to the engine for a while, say): every stream treats
    /// everything it follows as changed, as when it falls behind, since it
    /// cannot know which changes it missed. `RedisBus` (`redis` feature) delivers it to
    /// this process's listeners once it is subscribed again.
    EventsMissed,
}

/// Carries [`ServerEvent`]s to every listen stream, possibly across processes.
///
/// `publish` hands an event to the bus; `subscribe` returns a receiver of
/// every event published anywhere on the bus (this process included). A
/// distributed implementation publishes to its engine and feeds what it
/// receives into a local [`broadcast`] channel; when it may have lost
/// events on the way (its connection to the engine broke for a while), it
/// feeds [`ServerEvent::EventsMissed`] there too, so that no listener
/// misses a change without being told.
pub trait EventBus: Send + Sync + 'static {
    /// Publishes an event to every subscriber, here and on other replicas.
    fn publish(&self, event: ServerEvent);
    /// A receiver of events published from now on.
    fn subscribe(&self) -> broadcast::Receiver<ServerEvent>;

    /// Whether the engine behind the bus answers now: the readiness probe
    /// of the HTTP transport
    /// ([`HttpConfig::health_endpoints`]) answers 503 while it fails. The
    /// default, for a bus inside this process, is always ready; a
    /// distributed bus asks its engine (a Redis `PING`, say), without
    /// waiting long: the probe gives up after a second.
    #[cfg_attr(
        feature = "http",
        doc = "\n\n[`HttpConfig::health_endpoints`]: crate::transport::http::HttpConfig::health_endpoints"
    )]
    #[cfg_attr(not(feature = "http"), doc = "\n\n[`HttpConfig::health_endpoints`]: crate::transport")]
    fn ready(&self) -> ReadyFuture<'_> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// What [`EventBus::ready`] returns: `Err` with the reason the bus cannot
/// serve now.
pub type ReadyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<(), Box<dyn std::error::Error + Send + Sync>>> + Send + 'a>>;

/// The default bus: a broadcast channel inside this process.
#[derive(Clone)]
pub struct LocalBus {
    sender: broadcast::Sender<ServerEvent>,
}

impl LocalBus {
    /// A bus that keeps up to `capacity` undelivered events per slow listener
    /// (a listener that falls further behind loses the oldest ones, and its
    /// listen stream then announces every kind it follows as changed).
    pub fn new(capacity: usize) -> Self {
        LocalBus { sender: broadcast::channel(capacity.max(1)).0 }
    }

    /// The sender side, for bridges that feed events from elsewhere.
    pub fn sender(&self) -> broadcast::Sender<ServerEvent> {
        self.sender.clone()
    }
}

impl Default for LocalBus {
    fn default() -> Self {
        LocalBus::new(256)
    }
}

impl fmt::Debug for LocalBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalBus").field("receivers", &self.sender.receiver_count()).finish()
    }
}

impl EventBus for LocalBus {
    fn publish(&self, event: ServerEvent) {
        // No receivers simply means no open listen stream.
        let _ = self.sender.send(event);
    }

    fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.sender.subscribe()
    }
}

pub(crate) type SharedBus = Arc<dyn EventBus>;
