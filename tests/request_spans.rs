//! The request spans as a plain `tracing` subscriber sees them, without any
//! OpenTelemetry wiring: a layer of its own records every span, its fields
//! and its parent while an in-process client calls tools.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp_runtime::client::Client;
use mcp_runtime::{Args, Server, entry::ToolEntry};
use serde_json::json;
use tracing::Instrument as _;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// One span as it was made and recorded.
#[derive(Debug, Clone)]
struct Captured {
    id: u64,
    name: &'static str,
    parent: Option<u64>,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = ctx.span(id).and_then(|span| span.parent()).map(|parent| parent.id().into_u64());
        let span = Captured { id: id.into_u64(), name: attrs.metadata().name(), parent, fields };
        self.0.lock().expect("lock").push(span);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut spans = self.0.lock().expect("lock");
        if let Some(span) = spans.iter_mut().find(|s| s.id == id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn server() -> Server {
    Server::builder("spans", "1.0.0")
        .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a + x.b }))
        .tool(ToolEntry::new("fail", || async { Err::<String, _>("no") }))
        .tool(ToolEntry::new("lookup", || async {
            async { "found" }.instrument(tracing::info_span!("db.query")).await
        }))
        .build()
        .expect("a server")
}

#[tokio::test(flavor = "current_thread")]
async fn a_tracing_subscriber_sees_one_span_per_request_with_the_handlers_spans_inside() {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let client = Client::in_process(server());
    client.call_tool("add", json!({"a": 1, "b": 2})).await.expect("added");
    client.call_tool("fail", json!({})).await.expect("a tool error is a result");
    client.call_tool("lookup", json!({})).await.expect("looked up");
    client.call_tool("nosuch", json!({})).await.expect_err("an unknown tool");

    let spans = capture.0.lock().expect("lock").clone();
    let request = |name: &str| {
        let found: Vec<&Captured> = spans
            .iter()
            .filter(|s| s.name == "mcp.request" && s.fields.get("otel.name").is_some_and(|n| n == name))
            .collect();
        assert_eq!(found.len(), 1, "{name}: {spans:#?}");
        found[0].clone()
    };
    let field = |span: &Captured, key: &str| span.fields.get(key).cloned();

    let add = request("tools/call add");
    assert_eq!(field(&add, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(field(&add, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(field(&add, "otel.kind").as_deref(), Some("server"));
    assert_eq!(field(&add, "mcp.protocol.version").as_deref(), Some("2026-07-28"));
    assert!(field(&add, "jsonrpc.request.id").is_some());
    assert_eq!(field(&add, "error.type"), None);
    assert_eq!(field(&add, "gen_ai.tool.call.arguments"), None, "no content without the tool's consent");
    assert_eq!(field(&add, "network.transport"), None, "in process: no transport");

    let fail = request("tools/call fail");
    assert_eq!(field(&fail, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(field(&fail, "otel.status_code").as_deref(), Some("error"));

    let lookup = request("tools/call lookup");
    let query = spans.iter().find(|s| s.name == "db.query").expect("the handler's span");
    assert_eq!(query.parent, Some(lookup.id), "the handler's span is a child of the request's");

    let refused = request("tools/call");
    assert_eq!(field(&refused, "error.type").as_deref(), Some("-32602"));
    assert_eq!(field(&refused, "mcp_runtime.validation.stage").as_deref(), Some("params"));
    assert!(field(&refused, "otel.status_description").is_some_and(|m| m.contains("Unknown tool")));
}
