//! The whole dispatcher: bytes in, response out. Never a panic outside a
//! handler (a handler's panic is the request's `-32603`), a notification
//! is never answered, and every response is valid against the committed
//! wire schema for the method the bytes name.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::dispatch::RequestOptions;
use mcp_runtime::protocol::{Completion, ElicitRequest, InputRequest, InputRequiredResult};
use mcp_runtime::{
    Args, Server,
    entry::{PromptEntry, ResourceEntry, ToolEntry},
    extract::CompleteCall,
    outcome::NotFound,
};
use mcp_runtime_fuzz::wire_schema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ExplodeArgs {
    explode: bool,
}

#[derive(Deserialize)]
struct Greeting {
    name: String,
}

#[derive(Deserialize)]
struct NoteId {
    id: u32,
}

/// What the `explode` tool panics with: the one panic that is no failure.
const HANDLER_PANIC: &str = "the handler was asked to panic";

/// A few tools, prompts and resources, two to a page so that cursors are read.
fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        // libFuzzer's panic hook aborts on any panic, even one the runtime catches: the
        // handler's own is let through, to be turned into the request's error.
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info.payload().downcast_ref::<String>().map(String::as_str);
            if !message.is_some_and(|m| m.contains(HANDLER_PANIC)) {
                abort(info);
            }
        }));
        Server::builder("fuzz", "0.0.0")
            .page_size(2)
            .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a.wrapping_add(x.b) }))
            .tool(ToolEntry::new("explode", |Args(x): Args<ExplodeArgs>| async move {
                assert!(!x.explode, "{HANDLER_PANIC}");
                "intact"
            }))
            .tool(ToolEntry::new("fail", || async { Err::<String, _>("refused") }))
            .tool(ToolEntry::new("confirm", || async {
                let ask = InputRequest::Elicit(ElicitRequest::Form {
                    message: "Sure?".into(),
                    requested_schema: json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                });
                let mut requests = Map::new();
                requests.insert("confirm".into(), ask.to_value());
                InputRequiredResult::default().with_input_requests(requests).with_request_state("state-1")
            }))
            .prompt(
                PromptEntry::new("greet", |Args(g): Args<Greeting>| async move { format!("Hello, {}!", g.name) })
                    .argument("name", "Who to greet", true)
                    .completer(|call: CompleteCall| async move {
                        Ok(Completion::from_values((0..3).map(|i| format!("{}{i}", call.value()))))
                    }),
            )
            .prompt(PromptEntry::new("apology", || async { "Sorry." }))
            .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Hello" }))
            .resource(ResourceEntry::fixed("docs://logo", "logo", || async { vec![0_u8, 159, 146] }))
            .resource(ResourceEntry::template("notes://{id}", "note", |Args(n): Args<NoteId>| async move {
                if n.id == 0 { Err(NotFound) } else { Ok(format!("note {}", n.id)) }
            }))
            .resource(ResourceEntry::template("files://{+path}", "file", || async { "a file" }))
            .build()
            .expect("the fuzzed server builds")
    })
}

/// A paused clock: time moves on as soon as every task waits, so a stream
/// that would last an hour ends the run at once.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().expect("a runtime")
    })
}

/// The method the bytes name, when they read as an object with a string `method`.
fn method_of(bytes: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Head {
        method: Option<Value>,
        id: Option<Value>,
    }
    let head: Head = serde_json::from_slice(bytes).ok()?;
    let _ = head.id;
    head.method.and_then(|m| m.as_str().map(str::to_owned))
}

fuzz_target!(|bytes: &[u8]| {
    let handled = server().handle_bytes(bytes, RequestOptions::default());
    let method = method_of(bytes).unwrap_or_default();
    let Ok(response) = runtime().block_on(async { tokio::time::timeout(Duration::from_secs(3600), handled).await })
    else {
        // Only a stream lasts as long as its client wants.
        assert_eq!(method, "subscriptions/listen", "no answer within an hour to {:?}", String::from_utf8_lossy(bytes));
        return;
    };
    let Some(response) = response else { return };
    let text = response.to_json();
    if let Err(report) = wire_schema::check_text(&method, &text) {
        panic!("an invalid response to {:?}: {report}", String::from_utf8_lossy(bytes));
    }
});
