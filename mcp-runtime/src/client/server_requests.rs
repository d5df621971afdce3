//! What the client answers the requests a 2025-era server sends it: a
//! `ping` at once; an elicitation, a sampling request or a roots request
//! with the client's callback for it; anything else, or one without a
//! callback, is refused with `-32601`, so that the server's request ends at
//! once instead of waiting for an answer that would never come.

use serde_json::{Value, json};

use tokio::sync::oneshot;

use super::callbacks::SharedCallbacks;
use super::notices::{Asks, Question};
use crate::answering::Unanswered;
use crate::protocol::ErrorObject;

/// The requests a server asks a client's user or host through: what a
/// request that relays questions takes.
const QUESTIONS: [&str; 3] = ["elicitation/create", "sampling/createMessage", "roots/list"];

/// The refusal of a request of the server met while the client answers as
/// many as it takes at once; `None` for a notification.
pub(super) fn too_many(message: &Value) -> Option<Value> {
    let id = message.get("id")?;
    let error = ErrorObject::internal("The client is answering as many of the server's requests as it takes at once");
    Some(json!({"jsonrpc": "2.0", "id": id, "error": error}))
}

/// The answer to `message` when it is a request from the server; `None`
/// for a notification, which needs none. A question (an elicitation, a
/// sampling or a roots request) goes to `asks` when the request it came
/// within relays them, to the callbacks otherwise.
pub(super) async fn answer(callbacks: &SharedCallbacks, asks: Option<&Asks>, message: &Value) -> Option<Value> {
    let id = message.get("id")?;
    let method = message.get("method")?.as_str().unwrap_or_default();
    if method == "ping" {
        return Some(json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }
    let mut request = message.clone();
    // A 2025-era form elicitation may leave its mode out: form is what it means.
    if method == "elicitation/create"
        && let Some(params) = request.get_mut("params").and_then(Value::as_object_mut)
    {
        params.entry("mode").or_insert_with(|| Value::from("form"));
    }
    if let Some(asks) = asks.filter(|_| QUESTIONS.contains(&method)) {
        let (answer, answered) = oneshot::channel();
        match asks.send(Question { request, answer }) {
            Ok(()) => {
                return Some(match answered.await {
                    Ok(Ok(result)) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Ok(Err(error)) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                    Err(_) => json!({"jsonrpc": "2.0", "id": id,
                                     "error": ErrorObject::internal("The request this was asked within has ended")}),
                });
            }
            // The request it came within has ended: the callbacks answer.
            Err(unsent) => request = unsent.0.request,
        }
    }
    let callbacks = super::callbacks::current(callbacks);
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
        Err(Unanswered::Undeclared { why, .. }) => {
            let why = format!("This client refuses this `{method}`: {why}");
            json!({"jsonrpc": "2.0", "id": id, "error": ErrorObject::invalid_params(why)})
        }
        Err(Unanswered::Malformed(why)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": ErrorObject::invalid_params(why)})
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::protocol::ElicitResult;

    #[tokio::test]
    async fn a_ping_is_answered_a_request_with_a_callback_too_anything_else_refused() {
        let none = SharedCallbacks::default();
        let ping = answer(&none, None, &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).await.expect("answered");
        assert_eq!(ping, json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
        // A 2025-era form elicitation, without `mode`.
        let ask = json!({"jsonrpc": "2.0", "id": "a", "method": "elicitation/create",
                         "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}});
        let refused = answer(&none, None, &ask).await.expect("answered");
        assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (json!("a"), json!(-32601)), "{refused}");
        assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains("on_elicitation")), "{refused}");
        assert!(answer(&none, None, &json!({"jsonrpc": "2.0", "method": "notifications/progress"})).await.is_none());

        let with: SharedCallbacks = Arc::default();
        with.write().expect("lock").elicitation =
            Some(Arc::new(|_| Box::pin(async { ElicitResult::accept(json!({"name": "Ada"})) })));
        let accepted = answer(&with, None, &ask).await.expect("answered");
        assert_eq!(accepted["result"]["action"], "accept", "{accepted}");
        assert_eq!(accepted["result"]["content"]["name"], "Ada");
        let other =
            answer(&with, None, &json!({"jsonrpc": "2.0", "id": 1, "method": "frobnicate"})).await.expect("answered");
        assert_eq!(other["error"]["code"], -32601, "{other}");
    }

    #[tokio::test]
    async fn a_url_elicitation_to_a_client_of_forms_only_is_refused_and_each_refusal_heard() {
        let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
        let callbacks: SharedCallbacks = Arc::default();
        {
            let mut set = callbacks.write().expect("lock");
            set.elicitation = Some(Arc::new(|_| Box::pin(async { ElicitResult::accept(json!({})) })));
            set.forms_only = true;
            let hears = Arc::clone(&heard);
            set.refused = Some(Arc::new(move |method, params| {
                hears.lock().expect("lock").push((method.to_owned(), params.clone()));
            }));
        }
        let url = json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
                         "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/in"}});
        let refused = answer(&callbacks, None, &url).await.expect("answered");
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains("not URL mode")), "{refused}");
        let sampling = json!({"jsonrpc": "2.0", "id": 2, "method": "sampling/createMessage", "params": {}});
        assert_eq!(answer(&callbacks, None, &sampling).await.expect("answered")["error"]["code"], -32601);
        let form = json!({"jsonrpc": "2.0", "id": 3, "method": "elicitation/create",
                          "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}});
        assert_eq!(answer(&callbacks, None, &form).await.expect("answered")["result"]["action"], "accept");
        let heard = heard.lock().expect("lock");
        let methods: Vec<&str> = heard.iter().map(|(method, _)| method.as_str()).collect();
        assert_eq!(methods, ["elicitation/create", "sampling/createMessage"], "the form was not refused");
        assert_eq!(heard[0].1["url"], "https://example.com/in");
    }
}
