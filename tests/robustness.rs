//! Bad input never takes the server down: many deterministic pseudo-random
//! byte sequences and mutations of valid messages go through the parser, the
//! dispatcher and the stdio transport. Each must produce a valid response or
//! nothing, and never a panic.

use mcp_runtime::dispatch::parse_message;
use mcp_runtime::protocol::Completion;
use mcp_runtime::transport::stdio::StdioConfig;
use mcp_runtime::{
    Args, Server,
    entry::{PromptEntry, ResourceEntry, ToolEntry},
    extract::CompleteCall,
};
use mcp_tests::exchange::{request, send_bytes};
use mcp_tests::wire_schema::assert_valid_line;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// How many inputs of each kind; fixed so that every run checks the same ones.
const PER_KIND: usize = 1500;

/// xorshift64*: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
struct Greeting {
    name: String,
}

#[derive(Deserialize)]
struct NoteId {
    id: u32,
}

fn server() -> Server {
    Server::builder("robust", "1.0.0")
        .page_size(1)
        .tool(ToolEntry::new("add", |Args(x): Args<AddArgs>| async move { x.a.wrapping_add(x.b) }))
        .tool(ToolEntry::new("echo", |Args(v): Args<Value>| async move { v.to_string() }))
        .prompt(
            PromptEntry::new("greet", |Args(g): Args<Greeting>| async move { format!("Hello, {}", g.name) })
                .argument("name", "who", true)
                .completer(|c: CompleteCall| async move { Ok(Completion::from_values(vec![c.value().to_owned()])) }),
        )
        .resource(ResourceEntry::fixed("docs://readme", "readme", || async { "# Hi" }))
        .resource(ResourceEntry::template("notes://{id}/{+rest}", "note", |Args(n): Args<NoteId>| async move {
            format!("note {}", n.id)
        }))
        .build()
        .expect("the server builds")
}

fn seeds() -> Vec<Value> {
    vec![
        request(1, "server/discover", Value::Null),
        request("a", "tools/list", json!({"cursor": "bWNwMTox"})),
        request(2, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})),
        request(3, "tools/call", json!({"name": "echo", "arguments": {"x": [1, {"y": null}]}})),
        request(4, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})),
        request(5, "resources/read", json!({"uri": "notes://7/a/b"})),
        request(6, "resources/templates/list", Value::Null),
        request(
            7,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"},
            "argument": {"name": "name", "value": "A"}, "context": {"arguments": {}}}),
        ),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
        json!({"jsonrpc": "2.0", "id": 9, "result": {"resultType": "complete"}}),
        json!([request(1, "tools/list", Value::Null)]),
    ]
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "true",
    "-",
    "0",
    "1e999",
    "-0",
    "\\u0000",
    "\\ud800",
    "\"\\",
    "18446744073709551616",
    "\"_meta\"",
    "\"id\"",
    "\"method\"",
    "\"jsonrpc\"",
    "\"2.0\"",
    "\u{feff}",
    "\u{0}",
    "é",
];

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 4 { 6 } else { 9 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(rng.next() as i64),
        3 => json!(f64::from_bits(rng.next()).clamp(-1e300, 1e300)),
        4 => {
            Value::String((0..rng.below(12)).map(|_| char::from_u32(rng.below(0x800) as u32).unwrap_or('?')).collect())
        }
        5 => Value::String(rng.pick(&["2026-07-28", "tools/call", "add", "notes://1/x", "", "ref/prompt"]).to_string()),
        6 => Value::Array((0..rng.below(4)).map(|_| random_value(rng, depth + 1)).collect()),
        7 => json!(format!("{}{}", "[".repeat(rng.below(300)), "]".repeat(rng.below(300)))),
        _ => {
            let keys = ["_meta", "name", "arguments", "uri", "cursor", "ref", "argument", "id", "method", "params"];
            let map: Map<String, Value> =
                (0..rng.below(4)).map(|_| (rng.pick(&keys).to_string(), random_value(rng, depth + 1))).collect();
            Value::Object(map)
        }
    }
}

/// Replaces one value somewhere inside `value` with a random one.
fn mutate_tree(rng: &mut Rng, value: &mut Value) {
    let replace_here = rng.below(4) == 0;
    match value {
        Value::Object(map) if !map.is_empty() && !replace_here => {
            let key = map.keys().nth(rng.below(map.len())).cloned().expect("a key");
            if rng.below(6) == 0 {
                map.remove(&key);
            } else if let Some(child) = map.get_mut(&key) {
                mutate_tree(rng, child);
            }
        }
        Value::Array(items) if !items.is_empty() && !replace_here => {
            let i = rng.below(items.len());
            mutate_tree(rng, &mut items[i]);
        }
        _ => *value = random_value(rng, 0),
    }
}

fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 if !bytes.is_empty() => {
                let i = at.min(bytes.len() - 1);
                bytes[i] ^= 1 << rng.below(8);
            }
            1 => bytes.truncate(at),
            2 => {
                let end = (at + rng.below(16)).min(bytes.len());
                bytes.drain(at..end);
            }
            3 => {
                let end = (at + rng.below(32)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            4 => {
                let token = rng.pick(TOKENS).as_bytes().to_vec();
                bytes.splice(at..at, token);
            }
            _ => {
                let noise: Vec<u8> = (0..rng.below(8)).map(|_| rng.next() as u8).collect();
                bytes.splice(at..at, noise);
            }
        }
    }
}

/// The fixed corpus: random bytes, byte-level mutations and structural
/// mutations of valid messages.
fn corpus() -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let seeds = seeds();
    let mut inputs = Vec::with_capacity(3 * PER_KIND);
    for _ in 0..PER_KIND {
        let len = rng.below(96);
        inputs.push((0..len).map(|_| rng.next() as u8).collect());
    }
    for _ in 0..PER_KIND {
        let mut bytes = rng.pick(&seeds).to_string().into_bytes();
        mutate_bytes(&mut rng, &mut bytes);
        inputs.push(bytes);
    }
    for _ in 0..PER_KIND {
        let mut value = rng.pick(&seeds).clone();
        mutate_tree(&mut rng, &mut value);
        inputs.push(value.to_string().into_bytes());
    }
    inputs
}

/// The exact text of a message's `id`, if it is a JSON object with one.
fn raw_id(bytes: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Id<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    let text = std::str::from_utf8(bytes).ok()?;
    serde_json::from_str::<Id<'_>>(text).ok()?.id.map(|raw| raw.get().to_owned())
}

#[tokio::test]
async fn no_input_panics_the_parser_or_the_dispatcher() {
    let server = server();
    let (mut answered, mut silent) = (0, 0);
    for input in corpus() {
        let _ = parse_message(&input);
        let reply = send_bytes(&server, &input).await;
        let Some(response) = &reply.response else {
            silent += 1;
            continue;
        };
        answered += 1;
        // An echoed id is, byte for byte, the id the message carried.
        if response.get("id").is_some() {
            let echoed = reply.text.as_deref().and_then(|t| raw_id(t.as_bytes()));
            assert!(echoed.is_some());
            assert_eq!(echoed, raw_id(&input), "for {}", String::from_utf8_lossy(&input));
        }
    }
    // The corpus exercises both outcomes, not just one.
    assert!(answered > PER_KIND && silent > 0, "answered {answered}, silent {silent}");
    // Still serving normally afterwards.
    let reply = send_bytes(&server, request(1, "tools/list", Value::Null).to_string().as_bytes()).await;
    reply.result();
}

#[tokio::test]
async fn no_input_stops_the_stdio_transport() {
    let config = StdioConfig { max_message_bytes: 512, ..StdioConfig::default() };
    let (mut client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(server().serve_io(server_in, server_out, config));
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(client_in).lines();
        let mut count = 0_usize;
        let mut last = None;
        while let Some(line) = lines.next_line().await.expect("the output is UTF-8 lines") {
            // Methods are unknown here: results are checked as generic results.
            let message: Value = serde_json::from_str(&line).expect("only JSON on the output");
            if message.get("error").is_some() || message.get("method").is_some() {
                assert_valid_line("", &line);
            } else {
                mcp_tests::wire_schema::assert_valid("JSONRPCResultResponse", &message);
            }
            count += 1;
            last = Some(line);
        }
        (count, last)
    });
    let inputs = corpus();
    let mut lines = 0;
    for input in &inputs {
        client_out.write_all(input).await.expect("the transport reads");
        client_out.write_all(b"\n").await.expect("the transport reads");
        lines += 1 + input.iter().filter(|&&b| b == b'\n').count();
    }
    client_out.write_all(request("last", "tools/list", Value::Null).to_string().as_bytes()).await.expect("writes");
    drop(client_out);
    task.await.expect("joins").expect("serving ends cleanly");
    let (written, last) = reader.await.expect("joins");
    assert!(written > inputs.len() / 2 && written <= lines + 1, "{written} lines for {lines} inputs");
    // The request after all that garbage (unterminated, ended by the end of
    // input) is served normally, and its answer is the last line written.
    let last = assert_valid_line("tools/list", &last.expect("at least one line"));
    assert_eq!(last["id"], "last", "the last answer is the final request's: {last}");
    let names: Vec<&Value> = last["result"]["tools"].as_array().expect("tools").iter().map(|t| &t["name"]).collect();
    assert_eq!(names, [&json!("add")], "the first page of one: {last}");
}
