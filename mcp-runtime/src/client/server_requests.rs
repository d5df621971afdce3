//! What the client answers the requests a 2025-era server sends it: a
//! `ping` at once; an elicitation, a sampling request or a roots request
//! with the client's callback for it; anything else, or one without a
//! callback, is refused with `-32601`, so that the server's request ends at
//! once instead of waiting for an answer that would never come.

use std::sync::{Arc, RwLock};

use serde_json::{Value, json};

use crate::answering::{Callbacks, Unanswered};
use crate::protocol::ErrorObject;

/// The callbacks a client's transports answer with, set after they start.
pub(super) type SharedCallbacks = Arc<RwLock<Callbacks>>;

/// The callbacks as they are now.
pub(super) fn current(callbacks: &SharedCallbacks) -> Callbacks {
    callbacks.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The answer to `message` when it is a request from the server; `None`
/// for a notification, which needs none.
pub(super) async fn answer(callbacks: &SharedCallbacks, message: &Value) -> Option<Value> {
    let id = message.get("id")?;
    let method = message.get("method")?.as_str().unwrap_or_default();
    if method == "ping" {
        return Some(json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }
    let callbacks = current(callbacks);
    let mut request = message.clone();
    // A 2025-era form elicitation may leave its mode out: form is what it means.
    if method == "elicitation/create"
        && let Some(params) = request.get_mut("params").and_then(Value::as_object_mut)
    {
        params.entry("mode").or_insert_with(|| Value::from("form"));
    }
    Some(match callbacks.answer(method, &request).await {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(Unanswered::NoCallback { callback, .. }) => {
            let mut error = ErrorObject::method_not_found(method);
            error.message = format!("This client answers no `{method}` (it has no `{callback}` callback)");
            json!({"jsonrpc": "2.0", "id": id, "error": error})
        }
        Err(Unanswered::UnknownMethod { .. }) => {
            json!({"jsonrpc": "2.0", "id": id, "error": ErrorObject::method_not_found(method)})
        }
        Err(Unanswered::Malformed(why)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": ErrorObject::invalid_params(why)})
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ElicitResult;

    #[tokio::test]
    async fn a_ping_is_answered_a_request_with_a_callback_too_anything_else_refused() {
        let none = SharedCallbacks::default();
        let ping = answer(&none, &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).await.expect("answered");
        assert_eq!(ping, json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
        // A 2025-era form elicitation, without `mode`.
        let ask = json!({"jsonrpc": "2.0", "id": "a", "method": "elicitation/create",
                         "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}});
        let refused = answer(&none, &ask).await.expect("answered");
        assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (json!("a"), json!(-32601)), "{refused}");
        assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains("on_elicitation")), "{refused}");
        assert!(answer(&none, &json!({"jsonrpc": "2.0", "method": "notifications/progress"})).await.is_none());

        let with: SharedCallbacks = Arc::default();
        with.write().expect("lock").elicitation =
            Some(Arc::new(|_| Box::pin(async { ElicitResult::accept(json!({"name": "Ada"})) })));
        let accepted = answer(&with, &ask).await.expect("answered");
        assert_eq!(accepted["result"]["action"], "accept", "{accepted}");
        assert_eq!(accepted["result"]["content"]["name"], "Ada");
        let other = answer(&with, &json!({"jsonrpc": "2.0", "id": 1, "method": "frobnicate"})).await.expect("answered");
        assert_eq!(other["error"]["code"], -32601, "{other}");
    }
}
