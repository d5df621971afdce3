//! Property tests of the invariants the fuzz targets rely on: protocol
//! types round-trip through JSON; a URI template matches what it expands;
//! list cursors never skip nor repeat an item, also when the catalog
//! changes between pages. Case counts are kept small so that the suite
//! stays fast; the fuzz targets (`fuzz/`) go further.

use std::collections::BTreeSet;

use mcp_runtime::protocol::{
    Annotations, CallToolResult, ContentBlock, ErrorObject, Prompt, PromptArgument, RequestId, Resource,
    ResourceContents, ResourceTemplate, Role, Tool,
};
use mcp_runtime::{
    Server,
    entry::{ToolEntry, UriTemplate},
};
use mcp_tests::exchange::{request, send};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// `cases` cases, and no failure files written beside the sources: a
/// failure prints its minimal input, which becomes a test of its own.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Any JSON value a client or a handler may write, floats included.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z/._]{1,10}", json_value(), 0..3).prop_map(|m| m.into_iter().collect())
}

fn text() -> impl Strategy<Value = String> {
    ".{0,16}"
}

fn annotations() -> impl Strategy<Value = Option<Annotations>> {
    prop::option::of((0.0..=1.0f64, any::<bool>()).prop_map(|(priority, user)| {
        let audience = if user { vec![Role::User] } else { vec![Role::User, Role::Assistant] };
        Annotations::default().with_priority(priority).with_audience(audience)
    }))
}

fn content() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        text().prop_map(ContentBlock::text),
        (prop::collection::vec(any::<u8>(), 0..24), text()).prop_map(|(b, m)| ContentBlock::image(&b, m)),
        (prop::collection::vec(any::<u8>(), 0..24), text()).prop_map(|(b, m)| ContentBlock::audio(&b, m)),
        (text(), text()).prop_map(|(uri, name)| ContentBlock::resource_link(uri, name)),
        (text(), text()).prop_map(|(uri, t)| ContentBlock::resource(ResourceContents::text(uri, t))),
        (text(), prop::collection::vec(any::<u8>(), 0..24))
            .prop_map(|(uri, b)| ContentBlock::resource(ResourceContents::blob(uri, &b))),
    ]
    .prop_flat_map(|block| {
        (annotations(), prop::option::of(json_object())).prop_map(move |(a, meta)| {
            let block = match a {
                Some(a) => block.clone().with_annotations(a),
                None => block.clone(),
            };
            match meta {
                Some(meta) => block.with_meta(meta),
                None => block,
            }
        })
    })
}

/// `value` to JSON text and back is `value`, and so is the text again.
fn round_trips<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) -> Result<(), TestCaseError> {
    let text = serde_json::to_string(value).expect("serializes");
    let back: T = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
    prop_assert_eq!(&back, value);
    prop_assert_eq!(serde_json::to_string(&back).expect("serializes"), text);
    Ok(())
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn protocol_types_round_trip_through_json(
        name in text(),
        title in prop::option::of(text()),
        schema in json_object(),
        blocks in prop::collection::vec(content(), 0..4),
        // `Some(null)` is written `null`, which reads back as absent: no value to keep.
        structured in prop::option::of(json_value().prop_filter("not null", |v| !v.is_null())),
        error in prop::option::of(json_value().prop_filter("not null", |v| !v.is_null())),
        code in any::<i32>(),
        size in prop::option::of(any::<u64>()),
        required in any::<bool>(),
    ) {
        let mut tool = Tool::new(name.clone(), schema.clone());
        tool.title = title.clone();
        tool.output_schema = Some(schema.clone());
        round_trips(&tool)?;

        let mut result = CallToolResult::new(blocks.clone());
        result.structured_content = structured.clone();
        round_trips(&result)?;
        for block in &blocks {
            round_trips(block)?;
        }

        let mut resource = Resource::new(format!("docs://{name}"), name.clone());
        resource.size = size;
        resource.description = title.clone();
        round_trips(&resource)?;
        round_trips(&ResourceTemplate::new("notes://{id}", name.clone()))?;

        let mut prompt = Prompt::new(name.clone());
        prompt.arguments = vec![PromptArgument::new(name.clone(), required)];
        round_trips(&prompt)?;

        let mut object = ErrorObject::internal(name.clone());
        object.code = code;
        object.data = error;
        round_trips(&object)?;

        // A request id reads back as the same text, whichever kind it is.
        for id in [RequestId::string(&name), RequestId::from_json(&code.to_string()).expect("an integer id")] {
            let text = id.to_value().to_string();
            prop_assert_eq!(RequestId::from_json(&text).map(|back| back.to_value()), Some(id.to_value()));
        }
    }
}

/// A template of literals and variables, and values for it: simple
/// variables hold any text, reserved ones may hold `/` too. Each part is
/// (reserved, literal after the variable, value).
type Parts = Vec<(bool, String, String)>;

fn template_parts() -> impl Strategy<Value = (String, Parts)> {
    let part = (any::<bool>(), "[a-z]{1,3}[:/.~-]{0,2}", "[^{}]{1,6}");
    ("[a-z]{1,6}://", prop::collection::vec(part, 1..4))
}

fn template_of(scheme: &str, parts: &Parts) -> String {
    let mut template = scheme.to_owned();
    for (i, (reserved, literal, _)) in parts.iter().enumerate() {
        template.push_str(&format!("{{{}v{i}}}{literal}", if *reserved { "+" } else { "" }));
    }
    template
}

/// One value as RFC 6570 expands it: everything but unreserved characters
/// percent-encoded, and for `{+var}` the reserved characters and the
/// value's own `%XX` escapes kept too (3.2.3).
fn expand_value(value: &str, reserved: bool) -> String {
    let bytes = value.as_bytes();
    let mut out = String::new();
    for (i, &byte) in bytes.iter().enumerate() {
        let keep = byte.is_ascii_alphanumeric()
            || b"-._~".contains(&byte)
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&byte))
            || (reserved && escape_at(bytes, i));
        if keep { out.push(char::from(byte)) } else { out.push_str(&format!("%{byte:02X}")) }
    }
    out
}

/// The URI with the hex digits of its escapes in upper case: RFC 3986
/// (6.2.2.1) holds `%0a` and `%0A` the same.
fn escapes_in_upper_case(uri: &str) -> String {
    let mut bytes = uri.as_bytes().to_vec();
    for at in 0..bytes.len() {
        if escape_at(&bytes, at) {
            bytes[at + 1..at + 3].make_ascii_uppercase();
        }
    }
    String::from_utf8(bytes).expect("ASCII case changes keep UTF-8")
}

/// Whether a `%XX` escape starts at `at`.
fn escape_at(bytes: &[u8], at: usize) -> bool {
    bytes[at] == b'%' && bytes.get(at + 1..at + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
}

fn expand(scheme: &str, parts: &Parts, values: &[String]) -> String {
    let mut uri = scheme.to_owned();
    for ((reserved, literal, _), value) in parts.iter().zip(values) {
        uri.push_str(&expand_value(value, *reserved));
        uri.push_str(literal);
    }
    uri
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn a_uri_template_matches_what_it_expands((scheme, parts) in template_parts()) {
        let template = template_of(&scheme, &parts);
        let parsed = UriTemplate::parse(&template).expect("a valid template");
        let values: Vec<String> = parts.iter().map(|(_, _, value)| value.clone()).collect();
        let uri = expand(&scheme, &parts, &values);
        let matched = parsed.matches(&uri);
        prop_assert!(matched.is_some(), "{} does not match its expansion {}", template, uri);
        let matched = matched.unwrap_or_default();
        // The values read back expand to the same URI: a value that holds the literal after
        // its variable may be read shorter, never as another URI.
        let read: Vec<String> =
            (0..parts.len()).map(|i| matched[&format!("v{i}")].as_str().unwrap_or_default().to_owned()).collect();
        prop_assert_eq!(escapes_in_upper_case(&expand(&scheme, &parts, &read)), escapes_in_upper_case(&uri));
        // Values in which the next literal does not start are read back exactly, but
        // for a `{+var}` value's own escape, which its expansion writes as it would
        // have written the character escaped.
        let unambiguous = parts.iter().all(|(reserved, literal, value)| {
            let expanded = expand_value(value, *reserved);
            let own_escape = *reserved && (0..value.len()).any(|at| escape_at(value.as_bytes(), at));
            !own_escape && format!("{expanded}{literal}").find(literal.as_str()) == Some(expanded.len())
        });
        if unambiguous {
            prop_assert_eq!(read, values, "{} in {}", template, uri);
        }
    }
}

/// Every tool name a full walk of `tools/list` pages gives, in order,
/// with `change` run before each page after the first.
async fn walk(server: &Server, mut change: impl FnMut(usize)) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        if page > 0 {
            change(page);
        }
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let reply = send(server, &request(page, "tools/list", params)).await;
        let result = reply.result();
        for tool in result["tools"].as_array().expect("a page of tools") {
            names.push(tool["name"].as_str().expect("a name").to_owned());
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(page < 1000, "the pages never end");
    }
    names
}

fn tool(name: &str) -> ToolEntry {
    ToolEntry::new(name, || async { "ok" })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime")
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn cursors_never_skip_nor_repeat_an_item(
        // At least one: a server without tools does not serve `tools/list`.
        names in prop::collection::btree_set("[a-z0-9_]{1,6}", 1..30),
        page_size in 1usize..8,
    ) {
        let server = Server::builder("pages", "0.0.0").page_size(page_size).tools(names.iter().map(|n| tool(n))).build();
        let server = server.expect("the server builds");
        let listed = runtime().block_on(walk(&server, |_| {}));
        let expected: Vec<String> = names.into_iter().collect();
        prop_assert_eq!(listed, expected);
    }

    #[test]
    fn a_catalog_changing_between_pages_loses_and_repeats_nothing_that_stays(
        names in prop::collection::btree_set("[a-z0-9_]{1,6}", 1..30),
        added in prop::collection::vec("[a-z0-9_]{1,6}", 0..10),
        removed in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        page_size in 1usize..6,
    ) {
        let server = Server::builder("pages", "0.0.0").page_size(page_size).tools(names.iter().map(|n| tool(n))).build();
        let server = server.expect("the server builds");
        let initial: Vec<String> = names.iter().cloned().collect();
        let mut gone = BTreeSet::new();
        let mut new = BTreeSet::new();
        let listed = runtime().block_on(walk(&server, |page| {
            // One change before each page: an addition, then a removal, in turn.
            if let Some(name) = added.get(page - 1)
                && !names.contains(name)
                && !new.contains(name)
                && server.add_tool(tool(name)).is_ok()
            {
                new.insert(name.clone());
            }
            if let Some(index) = removed.get(page - 1) {
                let name = index.get(&initial);
                if server.remove_tool(name) {
                    gone.insert(name.clone());
                }
            }
        }));
        // In order, each name at most once.
        prop_assert!(listed.windows(2).all(|w| w[0] < w[1]), "out of order or repeated: {:?}", listed);
        // Every tool there from the first page to the last is listed.
        for name in names.iter().filter(|n| !gone.contains(*n)) {
            prop_assert!(listed.contains(name), "{} was skipped: {:?}", name, listed);
        }
        // Nothing listed that never existed.
        for name in &listed {
            prop_assert!(names.contains(name) || new.contains(name), "{} was never a tool", name);
        }
    }
}
