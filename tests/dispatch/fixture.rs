//! The servers the dispatcher tests talk to, built with the registry API.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::dispatch::{CalledTool, HeaderCheck};
use mcp_runtime::protocol::CacheHints;
use mcp_runtime::protocol::{
    CallToolResult, Completion, ElicitRequest, ErrorObject, InputRequest, InputRequiredResult, LoggingLevel,
};
use mcp_runtime::{
    Args, Json, RequestContext, RpcError, Server, ServerBuilder, State,
    entry::{PromptEntry, ResourceEntry, ToolEntry},
    extract::CompleteCall,
    outcome::NotFound,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, json};
use std::sync::Mutex;

#[derive(Deserialize, schemars::JsonSchema)]
pub(crate) struct AddArgs {
    /// The first addend.
    pub(crate) a: i64,
    /// The second addend.
    pub(crate) b: i64,
}

#[derive(Deserialize, schemars::JsonSchema)]
pub(crate) struct ExplodeArgs {
    explode: bool,
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct Point {
    x: i64,
    y: i64,
}

#[derive(Deserialize)]
pub(crate) struct Greeting {
    name: String,
}

#[derive(Deserialize)]
pub(crate) struct NoteId {
    id: u32,
}

/// Counts calls, to prove that state reaches handlers and is shared.
#[derive(Clone, Default)]
pub(crate) struct Counter(pub(crate) Arc<AtomicUsize>);

/// The tools every full server has, in no particular order.
pub(crate) fn tools() -> Vec<ToolEntry> {
    vec![
        ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b }).description("Adds two numbers."),
        ToolEntry::new("explode", |Args(x): Args<ExplodeArgs>| async move {
            assert!(!x.explode, "the handler was asked to panic");
            "intact"
        }),
        ToolEntry::new("count", |State(c): State<Counter>| async move { c.0.fetch_add(1, Ordering::SeqCst) + 1 }),
        ToolEntry::new("fail", || async { Err::<String, _>("the city is unknown; try a capital") }),
        ToolEntry::new("point", || async { Json(Point { x: 1, y: 2 }) }),
        ToolEntry::new("with_meta", || async {
            let mut meta = Map::new();
            meta.insert("com.example/trace".into(), json!("abc"));
            CallToolResult::text("tagged").with_meta(meta)
        }),
        ToolEntry::new("needs_sampling", |cx: RequestContext| async move {
            if cx.client_capabilities().sampling.is_none() {
                let e = ErrorObject::missing_client_capability("This tool needs sampling", json!({"sampling": {}}));
                return Err(RpcError(e));
            }
            Ok("sampled")
        }),
        ToolEntry::new("confirm", |cx: RequestContext| async move {
            let Some(elicitation) = &cx.client_capabilities().elicitation else {
                let e = ErrorObject::missing_client_capability(
                    "Confirmation needs elicitation",
                    json!({"elicitation": {}}),
                );
                return Err(RpcError(e));
            };
            assert!(elicitation.supports_form());
            let ask = InputRequest::Elicit(ElicitRequest::Form {
                message: "Delete 3 files?".into(),
                requested_schema: json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
            });
            let mut requests = Map::new();
            requests.insert("confirm".into(), ask.to_value());
            Ok(InputRequiredResult::default().with_input_requests(requests).with_request_state("state-1"))
        }),
        ToolEntry::new("ask_nothing", || async { InputRequiredResult::default() }),
        // Builds its requests without looking at the client's capabilities.
        ToolEntry::new("ask_carelessly", || async {
            let mut requests = Map::new();
            let visit = ElicitRequest::Url { message: "Sign in".into(), url: "https://example.com/login".into() };
            requests.insert("login".into(), InputRequest::Elicit(visit).to_value());
            let sample =
                json!({"messages": [], "maxTokens": 10, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
            requests.insert("plan".into(), InputRequest::CreateMessage(sample).to_value());
            InputRequiredResult::default().with_input_requests(requests)
        }),
        ToolEntry::new("ask_garbage", || async {
            let mut requests = Map::new();
            requests.insert("what".into(), json!({"method": "tools/call", "params": {}}));
            InputRequiredResult::default().with_input_requests(requests)
        }),
        ToolEntry::new("report", |cx: RequestContext| async move {
            cx.progress(1.0, Some(3.0), Some("one".into()));
            cx.progress(1.0, Some(3.0), Some("not increasing".into()));
            cx.progress(2.0, Some(3.0), None);
            cx.log(LoggingLevel::Debug, Some("report"), json!("debug detail"));
            cx.log(LoggingLevel::Warning, Some("report"), json!({"careful": true}));
            "reported"
        }),
    ]
}

/// The prompts of the full server.
pub(crate) fn prompts() -> Vec<PromptEntry> {
    vec![
        PromptEntry::new("greet", |Args(g): Args<Greeting>| async move { format!("Hello, {}!", g.name) })
            .argument("name", "Who to greet", true)
            .completer(|call: CompleteCall| async move {
                let typed = call.value().to_owned();
                let values = (0..150).map(|i| format!("{typed}{i}"));
                if typed == "many" {
                    // Too many values, and a total the handler knows to be larger still.
                    return Ok(Completion::new(values.collect()).with_total(1000).with_has_more(true));
                }
                Ok(Completion::from_values(values))
            }),
        PromptEntry::new("broken", || async { Err::<String, _>("the template is missing") }),
        PromptEntry::new("apology", || async { "Sorry." }),
    ]
}

/// The resources and templates of the full server.
pub(crate) fn resources() -> Vec<ResourceEntry> {
    vec![
        ResourceEntry::fixed("docs://readme", "readme", || async { "# Hello" }).mime_type("text/markdown"),
        // Named so that name order and URI order differ.
        ResourceEntry::fixed("docs://a-changelog", "zz-changelog", || async { "nothing yet" }),
        ResourceEntry::fixed("docs://logo", "logo", || async { vec![0_u8, 159, 146, 150] }).mime_type("image/png"),
        ResourceEntry::fixed("docs://pinned", "pinned", || async { "stable" })
            .cache(CacheHints::new(60_000, mcp_runtime::protocol::CacheScope::Public)),
        ResourceEntry::fixed("docs://gone", "gone", || async { Vec::<mcp_runtime::protocol::ResourceContents>::new() }),
        ResourceEntry::template("notes://{id}", "note", |Args(n): Args<NoteId>| async move {
            if n.id == 0 { Err(NotFound) } else { Ok(format!("note {}", n.id)) }
        })
        .completer(|call: CompleteCall| async move { Ok(Completion::from_values(vec![format!("{}1", call.value())])) }),
        ResourceEntry::template("files://{+path}", "file", |cx: RequestContext| async move {
            format!("read by {}", cx.method())
        }),
    ]
}

/// A builder with everything registered and the counter state provided.
pub(crate) fn full_builder() -> ServerBuilder {
    Server::builder("fixture", "1.2.3")
        .instructions("Use `add` for sums.")
        .state(Counter::default())
        .tools(tools())
        .prompts(prompts())
        .resources(resources())
}

/// The server with everything registered.
pub(crate) fn full() -> Server {
    full_builder().build().expect("the fixture server builds")
}

/// A server offering one tool and nothing else.
pub(crate) fn tools_only() -> Server {
    Server::builder("tools-only", "0.1.0")
        .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b }))
        .build()
        .expect("the tools-only server builds")
}

/// What a [`FakeHeaders`] was asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HeaderCall {
    Request { method: String, protocol_version: String, name: Option<String> },
    ToolArguments { tool: String, arguments: Option<String> },
}

/// HTTP headers without HTTP: the values an HTTP client would have sent,
/// compared with the body like the real transport compares them.
#[derive(Debug, Default)]
pub(crate) struct FakeHeaders {
    pub(crate) protocol_version: String,
    pub(crate) method: String,
    pub(crate) name: Option<String>,
    /// `Mcp-Param-*` headers disagree with the arguments.
    pub(crate) params_mismatch: bool,
    pub(crate) calls: Mutex<Vec<HeaderCall>>,
}

impl FakeHeaders {
    /// Headers agreeing with a body of `method` at the current revision.
    pub(crate) fn matching(method: &str, name: Option<&str>) -> Self {
        FakeHeaders {
            protocol_version: "2026-07-28".into(),
            method: method.into(),
            name: name.map(str::to_owned),
            ..FakeHeaders::default()
        }
    }

    pub(crate) fn calls(&self) -> Vec<HeaderCall> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl HeaderCheck for FakeHeaders {
    fn check_request(&self, method: &str, protocol_version: &str, name: Option<&str>) -> Result<(), ErrorObject> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).push(HeaderCall::Request {
            method: method.into(),
            protocol_version: protocol_version.into(),
            name: name.map(str::to_owned),
        });
        if self.protocol_version != protocol_version {
            return Err(ErrorObject::header_mismatch("MCP-Protocol-Version does not match the body"));
        }
        if self.method != method {
            return Err(ErrorObject::header_mismatch("Mcp-Method does not match the body"));
        }
        if matches!(method, "tools/call" | "prompts/get" | "resources/read") && self.name.as_deref() != name {
            return Err(ErrorObject::header_mismatch("Mcp-Name does not match the body"));
        }
        Ok(())
    }

    fn check_tool_arguments(&self, tool: CalledTool<'_>, arguments: Option<&RawValue>) -> Result<(), ErrorObject> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).push(HeaderCall::ToolArguments {
            tool: tool.definition().name.clone(),
            arguments: arguments.map(|a| a.get().to_owned()),
        });
        if self.params_mismatch {
            return Err(ErrorObject::header_mismatch("Mcp-Param-Region does not match the arguments"));
        }
        Ok(())
    }
}
