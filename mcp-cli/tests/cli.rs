//! `mcp` run as a user runs it, against the `demo_server` example: over its
//! stdio (the command after `--`) and over HTTP (`--url`), in both eras,
//! with each exit status; the questions its tools ask, answered or refused;
//! login and logout with the token file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// The example server, which `cargo test` builds beside this test.
fn demo_server() -> PathBuf {
    let deps = std::env::current_exe().expect("the test's path");
    let examples = deps.parent().and_then(|d| d.parent()).expect("the profile's folder").join("examples");
    let server = examples.join("demo_server");
    assert!(server.is_file(), "{} is not built (cargo test builds the examples)", server.display());
    server
}

fn mcp(args: &[&str]) -> Output {
    // Never the tokens of the person running the tests.
    let tokens = std::env::temp_dir().join(format!("mcp-cli-no-tokens-{}.json", std::process::id()));
    mcp_with(args, &[("MCP_TOKEN_FILE", tokens.to_str().expect("a UTF-8 path"))])
}

/// `mcp ARGS` with the environment's `variables`, and none of the user's
/// authorization.
fn mcp_with(args: &[&str], variables: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp"));
    for unset in ["MCP_BEARER_TOKEN", "MCP_CLIENT_ID", "MCP_CLIENT_SECRET", "MCP_TOKEN_FILE"] {
        command.env_remove(unset);
    }
    command.args(args).envs(variables.iter().copied()).output().expect("mcp runs")
}

/// `mcp ARGS -- demo_server`.
fn over_stdio(args: &[&str]) -> Output {
    let server = demo_server();
    let mut all = args.to_vec();
    all.extend(["--", server.to_str().expect("a UTF-8 path")]);
    mcp(&all)
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {} / {}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    })
}

#[test]
fn over_stdio_it_lists_calls_reads_and_gets_in_both_eras() {
    for revision in ["auto", "session"] {
        let tools = over_stdio(&["list", "--json", "--revision", revision]);
        assert!(tools.status.success(), "{tools:?}");
        let names: Vec<Value> = json_of(&tools).as_array().expect("a list").iter().map(|t| t["name"].clone()).collect();
        assert_eq!(names[..2], [json!("add"), json!("delete")]);
        let sum = over_stdio(&["call", "add", "--arg", "a=2", "--arg", "b=40", "--revision", revision]);
        assert!(sum.status.success(), "{sum:?}");
        assert_eq!(json_of(&sum)["content"][0]["text"], "42");
        let readme = over_stdio(&["read", "docs://readme", "--revision", revision]);
        assert_eq!(json_of(&readme)["contents"][0]["text"], "# Demo");
        let prompt = over_stdio(&["prompt", "greet", "--revision", revision]);
        assert_eq!(json_of(&prompt)["messages"][0]["content"]["text"], "Say hello.");
        assert_eq!(json_of(&over_stdio(&["list", "prompts", "--json"])).as_array().map(Vec::len), Some(1));
    }
}

/// A child process, killed when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The demo server over HTTP, and its URL.
fn over_http() -> (Killed, String) {
    let mut server =
        Killed(Command::new(demo_server()).arg("--http").stdout(Stdio::piped()).spawn().expect("the server"));
    let mut url = String::new();
    // It binds before it tells: a request sent now waits to be served.
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.0.stdout.take().expect("stdout")), &mut url)
        .expect("its URL");
    (server, url.trim().to_owned())
}

#[test]
fn over_http_it_speaks_whichever_era_it_is_told() {
    let (_server, url) = over_http();
    let url = url.as_str();
    let discover = mcp(&["discover", "--url", url]);
    assert!(json_of(&discover)["supportedVersions"].as_array().expect("versions").contains(&json!("2026-07-28")));
    let session = mcp(&["discover", "--revision", "session", "--url", url]);
    assert_eq!(json_of(&session)["supportedVersions"], json!(["2025-11-25"]));
    let sum = mcp(&["call", "add", "--args", r#"{"a": 1, "b": 2}"#, "--revision", "session", "--url", url]);
    assert_eq!(json_of(&sum)["content"][0]["text"], "3");
}

#[test]
fn each_exit_status_says_what_happened() {
    let tool_error = over_stdio(&["call", "fail"]);
    assert_eq!(tool_error.status.code(), Some(1), "a tool's error result: {tool_error:?}");
    assert_eq!(json_of(&tool_error)["isError"], true);
    let unknown = over_stdio(&["call", "nope"]);
    assert_eq!(unknown.status.code(), Some(1), "a JSON-RPC error: {unknown:?}");
    assert_eq!(json_of(&unknown)["code"], -32602);
    let usage = mcp(&["call"]);
    assert_eq!(usage.status.code(), Some(2), "{usage:?}");
    assert!(String::from_utf8_lossy(&usage.stderr).contains("usage:"));
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let nobody = mcp(&["discover", "--url", &format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(nobody.status.code(), Some(3), "no server: {nobody:?}");
    let no_command = mcp(&["discover", "--", "/nonexistent/mcp-server"]);
    assert_eq!(no_command.status.code(), Some(3), "{no_command:?}");
    assert!(String::from_utf8_lossy(&no_command.stderr).contains("did not start"), "{no_command:?}");
    let help = mcp(&["--help"]);
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("TARGET"));
}

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The text of a tool result's first content block.
fn text_of(output: &Output) -> String {
    json_of(output)["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {output:?}")).to_owned()
}

#[test]
fn lists_are_tables_for_people_and_json_when_asked_templates_too() {
    let tools = over_stdio(&["list", "tools"]);
    assert!(tools.status.success(), "{tools:?}");
    let shown = String::from_utf8_lossy(&tools.stdout);
    let lines: Vec<&str> = shown.lines().collect();
    assert!(lines[0].starts_with("NAME") && lines[0].ends_with("DESCRIPTION"), "{shown}");
    assert_eq!(lines[1..3].iter().map(|l| l.trim_end()).collect::<Vec<_>>(), ["add", "delete"], "{shown}");
    let templates = over_stdio(&["list", "templates"]);
    assert_eq!(
        String::from_utf8_lossy(&templates.stdout),
        "URI TEMPLATE         NAME  DESCRIPTION\ndocs://pages/{page}  page\n"
    );
    let templates = over_stdio(&["list", "templates", "--json", "--revision", "session"]);
    assert_eq!(json_of(&templates)[0]["uriTemplate"], "docs://pages/{page}", "{templates:?}");
    let resources = over_stdio(&["list", "resources"]);
    assert!(String::from_utf8_lossy(&resources.stdout).contains("docs://readme  readme"), "{resources:?}");
}

#[test]
fn a_question_is_answered_by_yes_or_answer_in_both_eras() {
    for revision in ["auto", "session"] {
        let deleted = over_stdio(&["call", "delete", "--yes", "--revision", revision]);
        assert_eq!(text_of(&deleted), "deleted", "{revision}: {deleted:?}");
        let kept = over_stdio(&["call", "delete", "--answer", "delete=no", "--revision", revision]);
        assert_eq!(text_of(&kept), "kept", "{revision}: {kept:?}");
        let survey =
            over_stdio(&["call", "survey", "--answer", "name=Ada", "--answer", "age=36", "--revision", revision]);
        let answer: Value = serde_json::from_str(&text_of(&survey)).expect("the answer as JSON");
        assert_eq!(answer, json!({"action": "accept", "content": {"name": "Ada", "age": 36, "colour": "red"}}));
        // An answer that does not fit: said, and the question cancelled.
        let wrong =
            over_stdio(&["call", "survey", "--answer", "name=Ada", "--answer", "age=old", "--revision", revision]);
        assert_eq!(text_of(&wrong), r#"{"action":"cancel"}"#, "{revision}");
        assert!(stderr_of(&wrong).contains("--answer age=old: `age` takes an integer, not `old`"), "{wrong:?}");
        let missing = over_stdio(&["call", "survey", "--yes", "--revision", revision]);
        assert!(stderr_of(&missing).contains("give --answer age=VALUE"), "{missing:?}");
    }
}

#[test]
fn without_a_terminal_or_an_answer_a_question_fails_at_once_and_says_how_to_answer() {
    let started = std::time::Instant::now();
    let unasked = over_stdio(&["call", "delete", "--timeout", "30"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "it waited: {unasked:?}");
    assert_eq!(unasked.status.code(), Some(1), "{unasked:?}");
    assert_eq!(json_of(&unasked)["code"], -32021, "no elicitation declared");
    assert!(stderr_of(&unasked).contains("run mcp in a terminal, or give --yes"), "{unasked:?}");
    // The 2025-era session says it in the tool's error.
    let session = over_stdio(&["call", "delete", "--revision", "session", "--timeout", "30"]);
    assert_eq!((session.status.code(), json_of(&session)["isError"].clone()), (Some(1), json!(true)), "{session:?}");
    assert!(text_of(&session).contains("elicitation"), "{session:?}");
}

#[test]
fn a_url_or_a_models_answer_is_refused_with_a_reason_and_roots_given_from_root() {
    let visit = over_stdio(&["call", "visit", "--yes"]);
    assert_eq!(json_of(&visit)["data"]["requiredCapabilities"], json!({"elicitation": {"url": {}}}), "form only");
    assert!(stderr_of(&visit).contains("send you to a URL"), "{visit:?}");
    let sample = over_stdio(&["call", "summarize", "--yes"]);
    assert_eq!(json_of(&sample)["data"]["requiredCapabilities"], json!({"sampling": {}}), "{sample:?}");
    assert!(stderr_of(&sample).contains("ask a language model"), "{sample:?}");

    // A server that asks anyway: refused, with a JSON-RPC error in a
    // 2025-era session, by not answering at 2026-07-28; said on stderr.
    let rogue = |revision: &str| {
        let server = demo_server();
        mcp(&["call", "anything", "--yes", "--revision", revision, "--", server.to_str().expect("UTF-8"), "--rogue"])
    };
    let session = rogue("session");
    let told: Value = serde_json::from_str(&text_of(&session)).expect("what the rogue was told");
    let codes: Vec<(Value, Value)> =
        told.as_array().expect("answers").iter().map(|a| (a["id"].clone(), a["error"]["code"].clone())).collect();
    assert!(
        codes.contains(&(json!("visit"), json!(-32602))) && codes.contains(&(json!("summary"), json!(-32601))),
        "{told}"
    );
    for refused in [session, rogue("stateless")] {
        let said = stderr_of(&refused);
        assert!(said.contains("refused the server's request to open https://example.com/sign-in"), "{said}");
        assert!(said.contains("refused the server's request for a language model's answer (sampling)"), "{said}");
    }

    let dir = std::env::temp_dir().join(format!("mcp cli roots {}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let roots = over_stdio(&["call", "roots", "--root", dir.to_str().expect("UTF-8"), "--root", "file:///srv"]);
    let roots: Value = serde_json::from_str(&text_of(&roots)).expect("the roots as JSON");
    let uris: Vec<&str> = roots.as_array().expect("roots").iter().filter_map(|r| r["uri"].as_str()).collect();
    assert!(uris[0].starts_with("file:///") && uris[0].contains("/mcp%20cli%20roots%20"), "{uris:?}");
    assert_eq!(uris[1], "file:///srv");
    let _ = std::fs::remove_dir(&dir);
    let no_roots = over_stdio(&["call", "roots"]);
    assert!(stderr_of(&no_roots).contains("give --root PATH"), "{no_roots:?}");
    let missing = over_stdio(&["call", "roots", "--root", "/nonexistent/mcp-root"]);
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
}

#[test]
fn one_server_discover_per_command() {
    for (args, discovers) in
        [(&["discover"][..], 1), (&["call", "add"][..], 1), (&["list", "--revision", "stateless"][..], 0)]
    {
        let server = demo_server();
        let mut all = args.to_vec();
        all.extend(["--", server.to_str().expect("UTF-8"), "--trace"]);
        let traced = mcp(&all);
        assert!(traced.status.success(), "{traced:?}");
        let said = stderr_of(&traced);
        assert_eq!(said.matches("demo_server: server/discover").count(), discovers, "{args:?}: {said}");
    }
}

#[test]
fn a_server_that_writes_no_protocol_on_stdout_is_quoted() {
    let server = demo_server();
    let script = format!("echo 'Listening on stdio, port \"none\"'; exec '{}'", server.display());
    let logged = mcp(&["discover", "--", "sh", "-c", &script]);
    assert_eq!(logged.status.code(), Some(3), "{logged:?}");
    let said = stderr_of(&logged);
    assert!(
        said.contains(r#"it wrote a line that is not a JSON-RPC message, "Listening on stdio, port \"none\"""#),
        "{said}"
    );
}

/// `mcp ARGS -- demo_server` at a terminal (a pseudo-terminal `script`
/// opens), typing `typed`: what the terminal showed.
fn at_a_terminal(args: &[&str], typed: &str) -> String {
    use std::io::{Read as _, Write as _};
    let quote = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let mut line: Vec<String> =
        std::iter::once(env!("CARGO_BIN_EXE_mcp")).chain(args.iter().copied()).map(quote).collect();
    line.extend(["--".to_owned(), quote(demo_server().to_str().expect("UTF-8"))]);
    let mut script = Command::new("script")
        .args(["-q", "-e", "-c", &line.join(" "), "/dev/null"])
        .env_remove("MCP_BEARER_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs");
    // Typed ahead: the terminal keeps each line until it is read. The input
    // stays open until the command ends, as a person's keyboard does.
    let mut keyboard = script.stdin.take().expect("stdin");
    keyboard.write_all(typed.as_bytes()).expect("typed");
    let mut shown = String::new();
    script.stdout.take().expect("stdout").read_to_string(&mut shown).expect("read");
    assert!(script.wait().expect("ended").success(), "{shown}");
    drop(keyboard);
    shown
}

#[test]
fn at_a_terminal_a_question_is_asked_then_sent_or_declined() {
    let sent = at_a_terminal(&["call", "delete"], "y\n\n");
    assert!(
        sent.contains("The server asks: Delete the file?") && sent.contains("delete [yes/no, required]: "),
        "{sent}"
    );
    assert!(sent.contains("\"text\": \"deleted\""), "{sent}");
    let declined = at_a_terminal(&["call", "delete", "--revision", "session"], "yes\nd\n");
    assert!(declined.contains("\"text\": \"kept\""), "{declined}");
    let survey = at_a_terminal(&["call", "survey"], "x\n36\n\nAda\n\n");
    assert!(survey.contains("`age` takes an integer, not `x`"), "{survey}");
    assert!(
        survey.contains(r#"{\"action\":\"accept\",\"content\":{\"age\":36,\"colour\":\"red\",\"name\":\"Ada\"}}"#),
        "{survey}"
    );
}

#[test]
fn a_stdio_server_with_the_logging_switch_works_with_debug_logs_on() {
    let server = demo_server();
    let output = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["call", "add", "--arg", "a=2", "--arg", "b=40", "--", server.to_str().expect("a UTF-8 path")])
        .env_remove("MCP_BEARER_TOKEN")
        .env("RUST_LOG", "debug")
        .env("NO_COLOR", "1")
        .output()
        .expect("mcp runs");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(json_of(&output)["content"][0]["text"], "42");
    let logs = String::from_utf8_lossy(&output.stderr);
    assert!(logs.contains("INFO") && logs.contains("serving MCP over stdio"), "the server's logs reach stderr: {logs}");
}

#[test]
fn over_https_it_trusts_the_certificates_it_is_given() {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
    let dir = std::env::temp_dir().join(format!("mcp-cli-https-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).expect("written");
    std::fs::write(&key, made.key_pair.serialize_pem()).expect("written");
    let mut server = Killed(
        Command::new(demo_server())
            .arg("--https")
            .arg(&cert)
            .arg(&key)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server"),
    );
    let mut url = String::new();
    // It binds before it tells: a request sent now waits to be served.
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.0.stdout.take().expect("stdout")), &mut url)
        .expect("its URL");
    let url = url.trim();
    assert!(url.starts_with("https://localhost:"), "{url}");
    // Its certificate is none the system trusts: no answer (3), and why.
    let untrusted = mcp(&["call", "add", "--args", r#"{"a": 1, "b": 2}"#, "--url", url]);
    assert_eq!(untrusted.status.code(), Some(3), "{}", stderr_of(&untrusted));
    assert!(stderr_of(&untrusted).contains("certificate"), "{}", stderr_of(&untrusted));
    let cert = cert.to_str().expect("a path");
    let sum = mcp(&["call", "add", "--args", r#"{"a": 1, "b": 2}"#, "--root-certificates", cert, "--url", url]);
    assert_eq!(json_of(&sum)["content"][0]["text"], "3", "{}", stderr_of(&sum));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder of this test's, empty.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory");
    dir
}

/// Tokens as the library's token file keeps them (`StoredTokens`).
fn stored(access_token: &str) -> Value {
    json!({
        "issuer": "https://login.example.com",
        "access_token": access_token,
        "refresh_token": "r",
        "client_id": "c",
        "token_endpoint_auth_method": "none",
        "token_endpoint": "https://login.example.com/token"
    })
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("the token file")).expect("JSON")
}

#[test]
fn logout_removes_that_urls_entry_alone_and_asks_nobody() {
    let dir = scratch("logout");
    let file = dir.join("tokens.json");
    let path = file.to_str().expect("a UTF-8 path");
    // Port 1: no server there, and none is asked.
    let (gone, kept) = ("http://127.0.0.1:1/mcp", "https://other.example/mcp");
    std::fs::write(&file, json!({gone: stored("one"), kept: stored("two")}).to_string()).expect("written");
    let out = mcp_with(&["logout", gone], &[("MCP_TOKEN_FILE", path)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("logged out of {gone}\n"));
    assert_eq!(read_json(&file), json!({kept: stored("two")}));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file).expect("the file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    // Again (and with --url): nothing to remove, said, and the file as it was.
    let again = mcp_with(&["logout", "--url", gone], &[("MCP_TOKEN_FILE", path)]);
    assert!(again.status.success(), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stdout).contains("had no tokens in"), "{again:?}");
    assert_eq!(read_json(&file), json!({kept: stored("two")}));
    let server = demo_server();
    let command = mcp_with(&["logout", kept, "--", server.to_str().expect("UTF-8")], &[("MCP_TOKEN_FILE", path)]);
    assert_eq!(command.status.code(), Some(2), "{command:?}");
    assert!(stderr_of(&command).contains("not a command"), "{command:?}");
    // Nowhere to keep tokens: bad usage, no request.
    let nowhere = mcp_with(&["logout", kept], &[("HOME", ""), ("XDG_CONFIG_HOME", "")]);
    assert_eq!(nowhere.status.code(), Some(2), "{nowhere:?}");
    assert_eq!(read_json(&file), json!({kept: stored("two")}));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn login_to_a_server_that_needs_no_authorization_says_it_answered() {
    let (_server, url) = over_http();
    let dir = scratch("login");
    let file = dir.join("tokens.json");
    let path = file.to_str().expect("a UTF-8 path");
    let out = mcp_with(&["login", &url], &[("MCP_TOKEN_FILE", path)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{url} answered; its tokens, if it needed any, are in {path}\n")
    );
    assert!(!file.exists(), "no tokens, so no file");
    // A program acting for itself keeps none.
    let credentials = [("MCP_CLIENT_ID", "job"), ("MCP_CLIENT_SECRET", "s3cret")];
    let itself = mcp_with(&["login", "--url", &url, "--revision", "session"], &credentials);
    assert!(itself.status.success(), "{itself:?}");
    assert!(String::from_utf8_lossy(&itself.stdout).contains("none is kept"), "{itself:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
