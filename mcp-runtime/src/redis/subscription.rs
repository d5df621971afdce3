//! A Redis pub/sub subscription that outlives lost connections: the one
//! reading loop behind the Redis event bus and the Redis session store.

use std::time::Duration;

use futures_util::StreamExt as _;

/// Reads the messages of `channels` from `first` and hands each payload to
/// `deliver`, until `deliver` says its receiver is gone. A connection that
/// ends is replaced (after 0.1 s, doubling up to 5 s) as long as `wanted`
/// says someone still listens; `what` names the subscriber in the logs.
/// Messages published while no connection was subscribed are lost:
/// `resumed` is called once subscribed again, so that the subscriber can
/// say so to its own listeners.
pub(crate) async fn follow(
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
