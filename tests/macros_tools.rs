//! `#[tool]` through the dispatcher: schemas (`tools/list` snapshot),
//! argument errors, every kind of return value and every context parameter.

#[path = "macros/common.rs"]
mod common;

use common::{assert_snapshot, call_tool, error, exchange, result};
use mcp_runtime::protocol::{CallToolResult, ClientCapabilities, ContentBlock, LoggingLevel, ResourceContents};
use mcp_runtime::{BuildError, Server, tools};
use mcp_tests::validated_client::checked;
use serde_json::{Value, json};

/// The fixtures, as a user would write them.
mod fixtures {
    use mcp_runtime::protocol::{CallToolResult, ContentBlock, RequestMeta, ResourceContents};
    use mcp_runtime::{
        CancellationToken, Json, RequestContext, RpcError, State,
        extract::{FromCall, Logger, Progress, Rejection, ToolCall},
        tool,
    };
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// Adds two numbers.
    #[tool(
        title = "Add",
        annotations(title = "Addition", read_only, idempotent, open_world = false),
        icons = ["https://example.com/add.png"],
        meta("com.example/group" = "math", "com.example/weight" = 2)
    )]
    pub(crate) fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    /// Temperature units.
    #[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub(crate) enum Units {
        /// Degrees Celsius.
        Metric,
        /// Degrees Fahrenheit.
        Imperial,
    }

    /// A place on Earth.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub(crate) struct Place {
        /// The city's name.
        pub(crate) city: String,
        /// The country, when the city's name is ambiguous.
        pub(crate) country: Option<String>,
    }

    /// Looks up the weather.
    ///
    /// Covers the next few days.
    #[tool(name = "weather.lookup")]
    pub(crate) async fn weather(
        /// Where.
        place: Place,
        #[arg(description = "Units of the temperatures", default = Units::Metric)] units: Units,
        #[arg(header = "Region")] region: Option<String>,
        #[arg(rename = "dayCount", default = 3)] days: u8,
    ) -> String {
        format!("{} ({:?}) in {units:?} for {days} days, region {region:?}", place.city, place.country)
    }

    /// Greets someone.
    #[tool]
    pub(crate) fn greet(#[arg(default = "world")] name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Needs no arguments at all.
    #[tool]
    pub(crate) fn ping() -> &'static str {
        "pong"
    }

    /// Returns nothing.
    #[tool]
    pub(crate) fn nothing() {}

    /// Is it even?
    #[tool]
    pub(crate) fn is_even(n: i64) -> bool {
        n % 2 == 0
    }

    /// A tiny red dot.
    #[tool]
    pub(crate) fn image() -> ContentBlock {
        ContentBlock::image(&[0x89, b'P', b'N', b'G'], "image/png")
    }

    /// Several kinds of content.
    #[tool]
    pub(crate) fn mixed() -> Vec<ContentBlock> {
        vec![
            ContentBlock::text("text"),
            ContentBlock::audio(b"RIFF", "audio/wav"),
            ContentBlock::resource(ResourceContents::text("test://embedded", "inside").with_mime_type("text/plain")),
            ContentBlock::resource_link("test://linked", "linked"),
        ]
    }

    /// A full result.
    #[tool]
    pub(crate) fn full() -> CallToolResult {
        CallToolResult::text("full")
    }

    /// A forecast.
    #[derive(Debug, Serialize, JsonSchema)]
    pub(crate) struct Forecast {
        /// Degrees.
        pub(crate) temperature: f64,
        /// In words.
        pub(crate) summary: String,
    }

    /// Structured output.
    #[tool]
    pub(crate) fn forecast(city: String) -> Forecast {
        Forecast { temperature: 21.5, summary: format!("sunny in {city}") }
    }

    /// A reading that may lack a value.
    #[derive(Debug, Serialize, JsonSchema)]
    pub(crate) struct Reading {
        /// Where.
        pub(crate) station: String,
        /// Gusts, when the station measures them.
        pub(crate) gust_kmh: Option<f64>,
    }

    /// Structured output with an optional field, sent as `null`.
    #[tool]
    pub(crate) fn reading(station: String) -> Reading {
        Reading { station, gust_kmh: None }
    }

    /// Structured output that is not an object.
    #[tool]
    pub(crate) fn primes(below: u32) -> Vec<u32> {
        (2..below).filter(|n| (2..*n).all(|d| n % d != 0)).collect()
    }

    /// Structured output through `Json`.
    #[tool]
    pub(crate) fn wrapped() -> Json<Vec<String>> {
        Json(vec!["a".into(), "b".into()])
    }

    /// Why a forecast failed.
    #[derive(Debug)]
    pub(crate) struct NoForecast(pub String);

    impl std::fmt::Display for NoForecast {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "no forecast for {}", self.0)
        }
    }

    /// A forecast or why not.
    pub(crate) type Answer = Result<Forecast, NoForecast>;

    /// Structured output or a tool error, through an alias.
    #[tool]
    pub(crate) async fn maybe_forecast(city: String) -> Answer {
        if city == "Atlantis" { Err(NoForecast(city)) } else { Ok(Forecast { temperature: 3.0, summary: city }) }
    }

    /// Text or a tool error.
    #[tool]
    pub(crate) fn read_file(path: String) -> Result<String, std::io::Error> {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("{path} does not exist")))
    }

    /// Text or a protocol error.
    #[tool]
    pub(crate) fn needs_sampling(cx: RequestContext) -> Result<String, RpcError> {
        if cx.client_capabilities().sampling.is_none() {
            return Err(RpcError(mcp_runtime::protocol::ErrorObject::missing_client_capability(
                "this tool needs sampling",
                serde_json::json!({"sampling": {}}),
            )));
        }
        Ok("sampled".into())
    }

    /// Always panics.
    #[tool]
    pub(crate) fn explode() -> String {
        panic!("boom")
    }

    /// Who is asking, by value and by reference.
    #[tool]
    pub(crate) async fn whoami(cx: RequestContext, again: &RequestContext, meta: RequestMeta) -> String {
        let name = cx.client_info().map(|c| c.name.clone()).unwrap_or_default();
        format!("{name} {} {}", again.method(), meta.protocol_version)
    }

    /// Counts to 100 in three steps.
    #[tool]
    pub(crate) async fn count(progress: Progress, cancel: CancellationToken) -> String {
        for step in [0.0, 50.0, 100.0] {
            progress.report_with_message(step, Some(100.0), format!("at {step}"));
        }
        format!("requested: {}, cancelled: {}", progress.is_requested(), cancel.is_cancelled())
    }

    /// Logs at two levels.
    #[tool]
    pub(crate) fn chatty(log: Logger) -> String {
        let log = log.named("chatty");
        let debug = log.debug("details");
        let warning = log.warning("careful");
        format!("debug sent: {debug}, warning sent: {warning}")
    }

    /// Shared state.
    #[derive(Debug, Clone)]
    pub(crate) struct Db(pub &'static str);

    /// Reads shared state, destructured.
    #[tool]
    pub(crate) fn which_db(State(db): State<Db>) -> String {
        db.0.to_owned()
    }

    /// An extractor of the application's own.
    #[derive(Debug)]
    pub(crate) struct Method(pub String);

    impl FromCall<ToolCall> for Method {
        fn from_call(call: &ToolCall) -> Result<Self, Rejection> {
            Ok(Method(call.name().to_owned()))
        }
    }

    /// Uses a custom extractor.
    #[tool]
    pub(crate) fn own_extractor(#[ctx] method: Method, suffix: String) -> String {
        format!("{}{suffix}", method.0)
    }

    pub(crate) mod named {
        use schemars::JsonSchema;
        use serde::Deserialize;

        /// A type named like a context type, used as an argument.
        #[derive(Debug, Deserialize, JsonSchema)]
        pub(crate) struct Progress {
            /// Percent.
            pub(crate) percent: u8,
        }
    }

    /// Marks a parameter as an argument explicitly: without `#[arg]` its
    /// type's name would make it the `Progress` context.
    #[tool]
    pub(crate) fn explicit_argument(#[arg] progress: named::Progress) -> u8 {
        progress.percent
    }
}

use fixtures::*;

fn server() -> Server {
    Server::builder("macros", "1.0.0")
        .state(Db("memory"))
        .tools(tools![
            add,
            weather,
            greet,
            ping,
            nothing,
            is_even,
            image,
            mixed,
            full,
            forecast,
            reading,
            primes,
            wrapped,
            maybe_forecast,
            read_file,
            needs_sampling,
            explode,
            whoami,
            count,
            chatty,
            which_db,
            own_extractor,
            explicit_argument,
        ])
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"].as_array().and_then(|t| t.iter().find(|t| t["name"] == name)).unwrap_or(&Value::Null)
}

#[tokio::test]
async fn tools_list_matches_the_snapshot() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/list", json!({})).await;
    assert_snapshot("macros_tools_list", result(&response));
}

#[tokio::test]
async fn schemas_are_inlined_and_optional_arguments_plain() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/list", json!({})).await;
    let list = result(&response);
    let weather = tool(list, "weather.lookup");
    let text = weather.to_string();
    assert!(!text.contains("$ref") && !text.contains("$defs") && !text.contains("null"), "{text}");
    let schema = &weather["inputSchema"];
    assert_eq!(schema["required"], json!(["place"]));
    assert_eq!(schema["properties"]["region"], json!({"type": "string", "x-mcp-header": "Region"}));
    assert_eq!(schema["properties"]["units"]["default"], json!("metric"));
    assert_eq!(schema["properties"]["units"]["description"], json!("Units of the temperatures"));
    assert_eq!(schema["properties"]["dayCount"]["default"], json!(3));
    assert_eq!(schema["properties"]["place"]["description"], json!("Where."));
    assert_eq!(schema["properties"]["place"]["properties"]["city"]["description"], json!("The city's name."));
    assert_eq!(weather["description"], json!("Looks up the weather.\n\nCovers the next few days."));
    assert_eq!(tool(list, "ping")["inputSchema"], json!({"type": "object", "additionalProperties": false}));
    // Tools are sorted by name.
    let names: Vec<&str> = list["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}

#[tokio::test]
async fn definition_keys_reach_the_client() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/list", json!({})).await;
    let add = tool(result(&response), "add");
    assert_eq!(add["title"], "Add");
    assert_eq!(
        add["annotations"],
        json!({"title": "Addition", "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(add["icons"], json!([{"src": "https://example.com/add.png"}]));
    assert_eq!(add["_meta"], json!({"com.example/group": "math", "com.example/weight": 2}));
    assert!(add.get("outputSchema").is_none());
}

#[tokio::test]
async fn arguments_are_read_with_defaults_and_renames() {
    let client = checked(server());
    let r = call_tool(&client, "weather.lookup", json!({"place": {"city": "Oslo"}, "dayCount": 2})).await;
    assert_eq!(r["content"][0]["text"], "Oslo (None) in Metric for 2 days, region None");
    let r = call_tool(
        &client,
        "weather.lookup",
        json!({"place": {"city": "Paris", "country": "FR"}, "units": "imperial", "region": "eu", "dayCount": null}),
    )
    .await;
    assert_eq!(r["content"][0]["text"], "Paris (Some(\"FR\")) in Imperial for 3 days, region Some(\"eu\")");
    let r = call_tool(&client, "greet", json!({})).await;
    assert_eq!(r["content"][0]["text"], "Hello, world!");
    let r = call_tool(&client, "greet", json!({"name": "Ada", "unknown": true})).await;
    assert_eq!(r["content"][0]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn a_call_without_arguments_is_an_empty_object() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/call", json!({"name": "ping"})).await;
    assert_eq!(result(&response)["content"], json!([{"type": "text", "text": "pong"}]));
    let (response, _) = exchange(&client, "tools/call", json!({"name": "greet"})).await;
    assert_eq!(result(&response)["content"][0]["text"], "Hello, world!");
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_naming_each_problem() {
    let client = checked(server());
    let r = call_tool(&client, "weather.lookup", json!({"units": "kelvin", "dayCount": -1})).await;
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("Invalid arguments for tool `weather.lookup`: "), "{text}");
    assert!(text.contains("missing required argument `place`"), "{text}");
    assert!(text.contains("`units`: unknown variant `kelvin`"), "{text}");
    assert!(text.contains("`dayCount`: invalid value: integer `-1`"), "{text}");
    let r = call_tool(&client, "add", json!({"a": "one", "b": 2})).await;
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"].as_str().is_some_and(|t| t.contains("`a`: invalid type: string \"one\"")));
}

#[tokio::test]
async fn text_like_values_become_text() {
    let client = checked(server());
    assert_eq!(
        call_tool(&client, "add", json!({"a": 2, "b": 3})).await["content"],
        json!([{"type": "text", "text": "5"}])
    );
    assert_eq!(call_tool(&client, "is_even", json!({"n": 4})).await["content"][0]["text"], "true");
    assert_eq!(call_tool(&client, "ping", json!({})).await["content"][0]["text"], "pong");
    assert_eq!(call_tool(&client, "nothing", json!({})).await["content"], json!([]));
    assert_eq!(call_tool(&client, "full", json!({})).await["content"][0]["text"], "full");
}

#[tokio::test]
async fn content_blocks_are_sent_as_they_are() {
    let client = checked(server());
    let r = call_tool(&client, "image", json!({})).await;
    assert_eq!(r["content"], json!([{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}]));
    let r = call_tool(&client, "mixed", json!({})).await;
    let kinds: Vec<&str> = r["content"].as_array().into_iter().flatten().filter_map(|c| c["type"].as_str()).collect();
    assert_eq!(kinds, ["text", "audio", "resource", "resource_link"]);
    assert_eq!(
        r["content"][2]["resource"],
        json!({"uri": "test://embedded", "mimeType": "text/plain", "text": "inside"})
    );
    assert!(r.get("structuredContent").is_none());
}

#[tokio::test]
async fn serializable_values_are_structured_with_a_matching_schema() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/list", json!({})).await;
    let list = result(&response).clone();

    let r = call_tool(&client, "forecast", json!({"city": "Rome"})).await;
    let expected = json!({"temperature": 21.5, "summary": "sunny in Rome"});
    assert_eq!(r["structuredContent"], expected);
    assert_eq!(serde_json::from_str::<Value>(r["content"][0]["text"].as_str().unwrap_or("")).ok(), Some(expected));
    let schema = &tool(&list, "forecast")["outputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["temperature", "summary"]));

    let r = call_tool(&client, "primes", json!({"below": 10})).await;
    assert_eq!(r["structuredContent"], json!({"result": [2, 3, 5, 7]}));
    assert_eq!(tool(&list, "primes")["outputSchema"]["properties"]["result"]["type"], "array");
    assert_eq!(call_tool(&client, "wrapped", json!({})).await["structuredContent"], json!({"result": ["a", "b"]}));
}

#[tokio::test]
async fn structured_content_conforms_to_the_output_schema() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/list", json!({})).await;
    let list = result(&response).clone();
    for (name, arguments) in [("reading", json!({"station": "Oslo"})), ("forecast", json!({"city": "Rome"}))] {
        let r = call_tool(&client, name, arguments).await;
        let schema = &tool(&list, name)["outputSchema"];
        let validator = jsonschema::validator_for(schema).expect("a valid output schema");
        let errors: Vec<String> = validator.iter_errors(&r["structuredContent"]).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {} against {schema}: {errors:?}", r["structuredContent"]);
    }
    let r = call_tool(&client, "reading", json!({"station": "Oslo"})).await;
    assert_eq!(r["structuredContent"], json!({"station": "Oslo", "gust_kmh": null}));
}

#[tokio::test]
async fn the_output_schema_follows_the_type_not_its_spelling() {
    let client = checked(server());
    let (response, _) = exchange(&client, "tools/list", json!({})).await;
    let list = result(&response);
    assert_eq!(tool(list, "maybe_forecast")["outputSchema"], tool(list, "forecast")["outputSchema"]);
    let ok = call_tool(&client, "maybe_forecast", json!({"city": "Bergen"})).await;
    assert_eq!(ok["structuredContent"], json!({"temperature": 3.0, "summary": "Bergen"}));
    let failed = call_tool(&client, "maybe_forecast", json!({"city": "Atlantis"})).await;
    assert_eq!(failed["isError"], true);
    assert_eq!(failed["content"], json!([{"type": "text", "text": "no forecast for Atlantis"}]));
    assert!(failed.get("structuredContent").is_none());
}

#[tokio::test]
async fn errors_become_tool_errors_or_protocol_errors() {
    let client = checked(server());
    let r = call_tool(&client, "read_file", json!({"path": "/etc/nope"})).await;
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "/etc/nope does not exist");

    let (response, _) = exchange(&client, "tools/call", json!({"name": "needs_sampling", "arguments": {}})).await;
    assert_eq!(error(&response)["code"], -32021);
    let sampling = checked(server()).capabilities(ClientCapabilities::default().with_sampling());
    assert_eq!(call_tool(&sampling, "needs_sampling", json!({})).await["content"][0]["text"], "sampled");

    let (response, _) = exchange(&client, "tools/call", json!({"name": "explode", "arguments": {}})).await;
    assert_eq!(error(&response)["code"], -32603);
}

#[tokio::test]
async fn request_context_and_metadata_parameters() {
    let client = checked(server());
    let r = call_tool(&client, "whoami", json!({})).await;
    assert_eq!(r["content"][0]["text"], "mcp-runtime-client tools/call 2026-07-28");
}

#[tokio::test]
async fn progress_is_reported_only_when_asked_for() {
    let client = checked(server());
    let (response, notifications) = exchange(
        &client,
        "tools/call",
        json!({"name": "count", "arguments": {}, "_meta": {"progressToken": "progress-test-1"}}),
    )
    .await;
    assert_eq!(result(&response)["content"][0]["text"], "requested: true, cancelled: false");
    let progress: Vec<&Value> = notifications.iter().map(|n| &n["params"]).collect();
    assert_eq!(progress.len(), 3);
    for (p, expected) in progress.iter().zip([0.0, 50.0, 100.0]) {
        assert_eq!(p["progressToken"], "progress-test-1");
        assert_eq!(p["progress"], expected);
        assert_eq!(p["total"], 100.0);
    }

    let quiet = checked(server());
    let (response, notifications) = exchange(&quiet, "tools/call", json!({"name": "count", "arguments": {}})).await;
    assert_eq!(result(&response)["content"][0]["text"], "requested: false, cancelled: false");
    assert!(notifications.is_empty());
}

#[tokio::test]
async fn logging_honours_the_requested_level() {
    let client = checked(server()).log_level(LoggingLevel::Info);
    let (response, notifications) = exchange(&client, "tools/call", json!({"name": "chatty", "arguments": {}})).await;
    assert_eq!(result(&response)["content"][0]["text"], "debug sent: false, warning sent: true");
    assert_eq!(notifications.len(), 1);
    assert_eq!(notifications[0]["method"], "notifications/message");
    assert_eq!(notifications[0]["params"], json!({"level": "warning", "logger": "chatty", "data": "careful"}));

    let silent = checked(server());
    let (_, notifications) = exchange(&silent, "tools/call", json!({"name": "chatty", "arguments": {}})).await;
    assert!(notifications.is_empty());
}

#[tokio::test]
async fn state_and_custom_extractors() {
    let client = checked(server());
    assert_eq!(call_tool(&client, "which_db", json!({})).await["content"][0]["text"], "memory");
    assert_eq!(
        call_tool(&client, "own_extractor", json!({"suffix": "!"})).await["content"][0]["text"],
        "own_extractor!"
    );
    assert_eq!(
        call_tool(&client, "explicit_argument", json!({"progress": {"percent": 7}})).await["content"][0]["text"],
        "7"
    );
}

#[test]
fn missing_state_is_a_startup_error_naming_the_tool() {
    let built = Server::builder("macros", "1.0.0").tools(tools![which_db]).build();
    match built {
        Err(BuildError::MissingState { name, location, .. }) => {
            assert_eq!(name, "which_db");
            assert!(location.file.ends_with("macros_tools.rs"), "{location}");
            assert!(location.module_path.ends_with("::fixtures"), "{location}");
        }
        other => panic!("expected a missing-state error, got {other:?}"),
    }
}

#[test]
fn the_function_stays_callable_as_written() {
    assert_eq!(add(2, 2), 4);
    assert!(is_even(2));
    assert_eq!(forecast("Oslo".into()).summary, "sunny in Oslo");
    let content: Vec<ContentBlock> = mixed();
    assert_eq!(content.len(), 4);
    let _: CallToolResult = full();
    let _ = ResourceContents::text("a://b", "c");
}
