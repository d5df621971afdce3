//! `mcp skills` run as a user runs it, against a server scripted on a
//! loopback socket (so that what it serves, tampered or not, is the test's
//! to say, and what `mcp` asked for the test's to see): the list, an entry,
//! a file printed only once checked, and each refusal with its exit status.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

const SKILL_URI: &str = "skill://pdf-processing/SKILL.md";
const FORMS_URI: &str = "skill://pdf-processing/references/FORMS.md";
const SKILL_MD: &str =
    "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
const FORMS_MD: &str = "Supporting content.\n";

/// What the scripted server serves.
#[derive(Clone)]
struct Script {
    /// Whether it declares the skills extension.
    declared: bool,
    /// What `resources/read` of the `SKILL.md` answers; the entry lists
    /// [`SKILL_MD`].
    skill_md: String,
}

/// The JSON-RPC methods and the URIs read, as `method uri`, in order.
type Log = Arc<Mutex<Vec<String>>>;

/// A server on loopback serving `script` (2026-07-28), answering each
/// connection on a thread of its own; its URL and what it received.
fn serve(script: Script) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let log = Log::default();
    let kept = Arc::clone(&log);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (script, log) = (script.clone(), Arc::clone(&kept));
            std::thread::spawn(move || connection(stream, &script, &log));
        }
    });
    (url, log)
}

fn connection(stream: TcpStream, script: &Script, log: &Log) {
    let mut read = BufReader::new(stream.try_clone().expect("a second handle"));
    let mut write = stream;
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0;
        loop {
            let mut header = String::new();
            if read.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if read.read_exact(&mut body).is_err() {
            return;
        }
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let answer = if line.starts_with("POST") { answer(script, &request, log) } else { None };
        let written = match answer {
            Some(body) => write!(
                write,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            ),
            None => write!(write, "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n"),
        };
        if written.is_err() {
            return;
        }
    }
}

/// The answer to a JSON-RPC request; `None` for a notification (or what
/// is not JSON-RPC).
fn answer(script: &Script, request: &Value, log: &Log) -> Option<String> {
    let id = request.get("id")?;
    let method = request["method"].as_str().unwrap_or_default();
    let uri = request["params"]["uri"].as_str().unwrap_or_default();
    log.lock().expect("the log").push(format!("{method} {uri}").trim_end().to_owned());
    let extensions = if script.declared { json!({"io.modelcontextprotocol/skills": {}}) } else { json!({}) };
    let entry = json!({
        "uri": SKILL_URI,
        "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
        "resources": [
            {"uri": SKILL_URI, "digest": digest(SKILL_MD), "size": SKILL_MD.len()},
            {"uri": FORMS_URI, "digest": digest(FORMS_MD), "size": FORMS_MD.len()},
        ],
    });
    let result = match (method, uri) {
        ("server/discover", _) => json!({
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "ttlMs": 0, "cacheScope": "private",
            "capabilities": {"resources": {}, "extensions": extensions},
        }),
        ("skills/list", _) => json!({"skills": [entry]}),
        ("skills/get", SKILL_URI) => json!({"skill": entry}),
        ("resources/read", SKILL_URI) => json!({"contents": [{"uri": uri, "text": script.skill_md}]}),
        ("resources/read", FORMS_URI) => json!({"contents": [{"uri": uri, "text": FORMS_MD}]}),
        _ => {
            let error = json!({"code": -32602, "message": "unknown"});
            return Some(json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string());
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

fn digest(text: &str) -> String {
    let hex: String = Sha256::digest(text.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

fn honest() -> Script {
    Script { declared: true, skill_md: SKILL_MD.to_owned() }
}

/// `mcp ARGS --url URL`, with none of the user's authorization.
fn mcp(args: &[&str], url: &str) -> Output {
    let tokens = std::env::temp_dir().join(format!("mcp-cli-skills-no-tokens-{}.json", std::process::id()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp"));
    for unset in ["MCP_BEARER_TOKEN", "MCP_CLIENT_ID", "MCP_CLIENT_SECRET"] {
        command.env_remove(unset);
    }
    command.env("MCP_TOKEN_FILE", tokens).args(args).args(["--url", url]).output().expect("mcp runs")
}

fn received(log: &Log) -> Vec<String> {
    log.lock().expect("the log").clone()
}

fn stdout_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn skills_are_listed_as_a_table_or_json_and_no_file_is_read() {
    let (url, log) = serve(honest());
    let table = mcp(&["skills", "list"], &url);
    assert!(table.status.success(), "{table:?}");
    assert_eq!(
        stdout_of(&table),
        "URI                              NAME            DESCRIPTION\n\
         skill://pdf-processing/SKILL.md  pdf-processing  Extract, fill, and assemble PDF documents\n"
    );
    let listed = mcp(&["skills", "list", "--json"], &url);
    let listed: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(listed[0]["resources"][1]["uri"], FORMS_URI);
    let entry = mcp(&["skills", "get", SKILL_URI], &url);
    let entry: Value = serde_json::from_slice(&entry.stdout).expect("JSON");
    assert_eq!((&entry["uri"], &entry["resources"][0]["size"]), (&json!(SKILL_URI), &json!(SKILL_MD.len())));
    assert!(!received(&log).iter().any(|m| m.starts_with("resources/read")), "{:?}", received(&log));
}

#[test]
fn a_file_is_printed_once_the_skill_and_the_file_are_checked() {
    let (url, log) = serve(honest());
    let forms = mcp(&["skills", "get", SKILL_URI, "references/FORMS.md"], &url);
    assert!(forms.status.success(), "{forms:?}");
    assert_eq!(stdout_of(&forms), FORMS_MD);
    let skill_md = mcp(&["skills", "get", SKILL_URI, "SKILL.md"], &url);
    assert_eq!(stdout_of(&skill_md), SKILL_MD);
    let reads: Vec<String> = received(&log).into_iter().filter(|m| m.starts_with("resources/read")).collect();
    assert_eq!(
        reads,
        [
            format!("resources/read {SKILL_URI}"),
            format!("resources/read {FORMS_URI}"),
            format!("resources/read {SKILL_URI}")
        ]
    );
}

#[test]
fn a_tampered_skill_or_an_unlisted_file_is_refused_printed_nothing_and_exits_1() {
    let (url, log) = serve(Script { skill_md: SKILL_MD.replace("Skill body.", "Evil body!!"), ..honest() });
    let refused = mcp(&["skills", "get", SKILL_URI, "references/FORMS.md"], &url);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(refused.stdout.is_empty(), "{refused:?}");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains(SKILL_URI) && said.contains(&digest(SKILL_MD)), "{said}");
    assert!(!received(&log).contains(&format!("resources/read {FORMS_URI}")), "{:?}", received(&log));

    let (url, log) = serve(honest());
    let unlisted = mcp(&["skills", "get", SKILL_URI, "references/SECRET.md"], &url);
    assert_eq!(unlisted.status.code(), Some(1), "{unlisted:?}");
    assert!(unlisted.stdout.is_empty() && String::from_utf8_lossy(&unlisted.stderr).contains("references/SECRET.md"));
    let reads: Vec<String> = received(&log).into_iter().filter(|m| m.starts_with("resources/read")).collect();
    assert_eq!(reads, [format!("resources/read {SKILL_URI}")]);
}

#[test]
fn a_server_without_skills_is_not_asked_for_them() {
    let (url, log) = serve(Script { declared: false, ..honest() });
    for args in [&["skills", "list"][..], &["skills", "get", SKILL_URI]] {
        let refused = mcp(args, &url);
        assert_eq!(refused.status.code(), Some(1), "{refused:?}");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("does not declare the skills extension"));
    }
    assert_eq!(received(&log), ["server/discover", "server/discover"]);
}
