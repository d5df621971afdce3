//! The questions a 2025-era remote asks on its session within a forwarded
//! request (an elicitation, a sampling or a roots request), asked of this
//! server's client as this server's own would be: in a 2025-era session
//! as a request on it, in 2026-07-28 as an `input_required` round (the
//! request then forwarded again from the start, the remote asking again,
//! and the answer found under the same key), inside a task by the task.
//!
//! Each question's key is its method and its place among the questions of
//! the forwarded request (`elicitation/create#1`): the same on every round,
//! whatever else the remote's request carries (an elicitation's id differs
//! each time).
//!
//! Over HTTP a question comes on the forwarded request's own stream; over a
//! pipe it names no request, and reaches a forwarded one only when that is
//! the one request relaying questions on the pipe at the time (else the
//! client refuses it: better than asking the wrong user).

use std::future::Future;

use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::client::notices::Question;
use crate::input::Input;
use crate::protocol::{ErrorObject, InputRequest};

/// Runs `request` to its end, meanwhile asking this server's client each
/// question that comes on `questions` and handing its answer back.
pub(super) async fn answering<T>(
    request: impl Future<Output = T>,
    questions: &mut UnboundedReceiver<Question>,
    input: &Input,
) -> T {
    let mut asking = FuturesUnordered::new();
    let mut asked = 0_usize;
    let request = std::pin::pin!(request);
    let mut request = request;
    loop {
        tokio::select! {
            done = &mut request => return done,
            Some(question) = questions.recv() => {
                asked += 1;
                asking.push(ask(input, question, asked));
            }
            Some(()) = asking.next(), if !asking.is_empty() => {}
        }
    }
}

/// Asks this server's client `question`, the `number`th of its request, and
/// hands the answer (or why there is none) back.
async fn ask(input: &Input, question: Question, number: usize) {
    let Question { request, answer } = question;
    let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
    let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
    let asked = match serde_json::from_value::<InputRequest>(json!({"method": method, "params": params})) {
        Ok(asked) => Ok(input.relay(&format!("{method}#{number}"), asked).await),
        Err(e) => Err(ErrorObject::invalid_params(format!("A `{method}` that this server cannot relay: {e}"))),
    };
    let _ = answer.send(asked);
}
