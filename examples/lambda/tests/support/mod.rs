//! Lambda events in, Lambda responses out, without a network: an event
//! document of one of the stored shapes, given the MCP request of a test,
//! is deserialized with `lambda_http`'s own request type and goes through
//! the conversions `lambda_http::run` applies around the function's
//! [`Handler`]; what comes back is the response document the function
//! would return to Lambda, as JSON.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use lambda_example::{Handler, Settings};
use lambda_http::lambda_runtime::{Context, LambdaEvent};
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Service as _};
use serde_json::{Map, Value, json};

/// The secret the tests' functions share, as deployed instances would.
pub(crate) const SECRET: &str = "an example secret of more than thirty-two bytes, for tests only";

/// The event shapes that reach the function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// API Gateway REST API, proxy integration: payload version 1.0.
    RestApi,
    /// API Gateway HTTP API: payload version 2.0.
    HttpApi,
    /// Lambda function URL: payload version 2.0.
    FunctionUrl,
}

pub(crate) const SHAPES: [Shape; 3] = [Shape::RestApi, Shape::HttpApi, Shape::FunctionUrl];

impl Shape {
    /// The stored event, as AWS sends it (its body a `server/discover`).
    pub(crate) fn template(self) -> &'static str {
        match self {
            Shape::RestApi => include_str!("../payloads/rest-api-v1.json"),
            Shape::HttpApi => include_str!("../payloads/http-api-v2.json"),
            Shape::FunctionUrl => include_str!("../payloads/function-url.json"),
        }
    }
}

/// A freshly built function, as a cold start builds it.
pub(crate) fn handler() -> Handler {
    Handler::new(&Settings::from_secret(SECRET).expect("a valid secret")).expect("a valid server")
}

/// A JSON-RPC request of the 2026-07-28 revision, with the `_meta` a
/// client sends and `capabilities` as its client capabilities.
pub(crate) fn request(id: i64, method: &str, mut params: Value, capabilities: Value) -> Value {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "lambda-test", "version": "1.0"},
    });
    params.as_object_mut().expect("params are an object").insert("_meta".into(), meta);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The MCP headers a client sends with `message`: the protocol version,
/// `Mcp-Method`, and `Mcp-Name` for the methods that name a target.
pub(crate) fn mcp_headers(message: &Value) -> Vec<(String, String)> {
    let method = message["method"].as_str().expect("a request");
    let mut headers = vec![
        ("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned()),
        ("Mcp-Method".to_owned(), method.to_owned()),
    ];
    let name = match method {
        "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
        "resources/read" => message["params"]["uri"].as_str(),
        _ => None,
    };
    if let Some(name) = name {
        headers.push(("Mcp-Name".to_owned(), name.to_owned()));
    }
    headers
}

/// An event of `shape` carrying `body` (Base64-encoded when asked, as API
/// Gateway does for binary media types) and the template's headers, with
/// `headers` set over them (a header given an empty value is removed).
pub(crate) fn event(shape: Shape, body: &[u8], base64: bool, headers: &[(String, String)]) -> String {
    let mut event: Value = serde_json::from_str(shape.template()).expect("a stored event is JSON");
    event["body"] = if base64 {
        STANDARD.encode(body).into()
    } else {
        String::from_utf8(body.to_vec()).expect("a text body").into()
    };
    event["isBase64Encoded"] = base64.into();
    let mut set = headers.to_vec();
    if shape != Shape::RestApi {
        // The v2 templates carry the length of their body, as AWS sends it.
        set.push(("Content-Length".to_owned(), body.len().to_string()));
    }
    for (name, value) in &set {
        if shape == Shape::RestApi {
            // REST APIs keep the client's spelling, and repeat every header
            // in `multiValueHeaders`.
            set_header(&mut event["headers"], name, Some(json!(value)).filter(|_| !value.is_empty()));
            set_header(&mut event["multiValueHeaders"], name, Some(json!([value])).filter(|_| !value.is_empty()));
        } else {
            // Payloads of version 2.0 lowercase header names.
            let name = name.to_ascii_lowercase();
            set_header(&mut event["headers"], &name, Some(json!(value)).filter(|_| !value.is_empty()));
        }
    }
    event.to_string()
}

/// Sets (or removes) a header of an event's header object, replacing any
/// entry of the same name in another case.
fn set_header(headers: &mut Value, name: &str, value: Option<Value>) {
    let map: &mut Map<String, Value> = headers.as_object_mut().expect("headers are an object");
    map.retain(|key, _| !key.eq_ignore_ascii_case(name));
    if let Some(value) = value {
        map.insert(name.to_owned(), value);
    }
}

/// What the function returns to Lambda for `event`, an event of `shape`:
/// `statusCode`, `headers` (2.0) or `multiValueHeaders` (1.0), `body`,
/// `isBase64Encoded`.
pub(crate) async fn invoke(handler: &Handler, shape: Shape, event: &str) -> Reply {
    let payload: LambdaRequest = serde_json::from_str(event).expect("lambda_http reads the event");
    let mut adapter = Adapter::from(handler.clone());
    let Ok(response) = adapter.call(LambdaEvent::new(payload, Context::default())).await;
    Reply::new(shape, serde_json::to_value(response).expect("a Lambda response serializes"))
}

/// One MCP request through a function, in an event of `shape` with the
/// headers a client sends, and `extra` headers set over them.
pub(crate) async fn exchange_with(handler: &Handler, shape: Shape, message: &Value, extra: &[(&str, &str)]) -> Reply {
    let body = serde_json::to_vec(message).expect("serializable");
    let mut headers = mcp_headers(message);
    headers.extend(extra.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())));
    invoke(handler, shape, &event(shape, &body, false, &headers)).await
}

/// One MCP request through a function, with the headers a client sends.
pub(crate) async fn exchange(handler: &Handler, shape: Shape, message: &Value) -> Reply {
    exchange_with(handler, shape, message, &[]).await
}

/// A Lambda response, read.
#[derive(Debug)]
pub(crate) struct Reply {
    /// The whole response document, as the function returns it.
    pub(crate) raw: Value,
    /// Its status.
    pub(crate) status: u64,
    /// Its headers, names lowercased, as one value each.
    pub(crate) headers: Map<String, Value>,
    /// Its body.
    pub(crate) body: String,
}

impl Reply {
    fn new(shape: Shape, raw: Value) -> Self {
        let status = raw["statusCode"].as_u64().expect("a status");
        // v1 responses carry headers in `multiValueHeaders` (lists), v2 ones
        // in `headers`.
        let headers = match shape {
            Shape::RestApi => {
                assert!(raw["headers"].as_object().is_none_or(Map::is_empty), "v1: {raw}");
                raw["multiValueHeaders"]
                    .as_object()
                    .expect("v1 responses have multiValueHeaders")
                    .iter()
                    .map(|(k, v)| {
                        let [one] = v.as_array().expect("a list").as_slice() else { panic!("{k} repeated: {raw}") };
                        (k.to_ascii_lowercase(), one.clone())
                    })
                    .collect()
            }
            Shape::HttpApi | Shape::FunctionUrl => {
                raw["headers"].as_object().expect("v2 responses have headers").clone()
            }
        };
        // Everything this function answers is text.
        assert_eq!(raw["isBase64Encoded"], false, "{raw}");
        let body = match &raw["body"] {
            Value::Null => String::new(),
            Value::String(text) => text.clone(),
            other => panic!("unexpected body {other}"),
        };
        Reply { raw, status, headers, body }
    }

    /// The named header's value.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(Value::as_str)
    }

    /// The body as a JSON document, checking it is declared as one.
    pub(crate) fn json(&self) -> Value {
        assert_eq!(self.header("content-type"), Some("application/json"), "{:?}", self.raw);
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}
