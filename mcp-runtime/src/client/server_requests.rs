//! What the client answers the requests a 2025-era server sends it: a
//! `ping` is answered; anything else (elicitation, sampling, roots) is
//! refused with `-32601`, so that the server's request ends at once instead
//! of waiting for an answer that would never come.

use serde_json::{Value, json};

use crate::protocol::ErrorObject;

/// The answer to `message` when it is a request from the server; `None`
/// for a notification, which needs none.
pub(super) fn answer(message: &Value) -> Option<Value> {
    let id = message.get("id")?;
    let method = message.get("method")?.as_str().unwrap_or_default();
    Some(match method {
        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        _ => {
            let error = ErrorObject::method_not_found(method);
            json!({"jsonrpc": "2.0", "id": id, "error": error})
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ping_is_answered_anything_else_refused_and_a_notification_left_alone() {
        let ping = answer(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).expect("answered");
        assert_eq!(ping, json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
        let ask = answer(&json!({"jsonrpc": "2.0", "id": "a", "method": "elicitation/create", "params": {}}))
            .expect("answered");
        assert_eq!(ask["id"], "a");
        assert_eq!(ask["error"]["code"], -32601, "{ask}");
        assert!(answer(&json!({"jsonrpc": "2.0", "method": "notifications/progress"})).is_none());
    }
}
