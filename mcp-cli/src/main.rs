//! `mcp`: pokes an MCP server from the terminal (list its tools, prompts
//! and resources, call a tool, read a resource, get a prompt) over
//! Streamable HTTP or a command's stdio, in whichever protocol era the
//! server speaks. Built on `mcp_runtime::client`. `mcp --help` says how.

mod args;

use std::io::Write as _;
use std::process::ExitCode;

use args::{Action, Invocation, Listed, Target, USAGE};
use mcp_runtime::client::{Client, Error};
use serde_json::Value;

/// The server answered with an error, or a tool's result is one.
const SERVER_ERROR: u8 = 1;
const BAD_USAGE: u8 = 2;
/// No answer came.
const NO_ANSWER: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h") {
        return match writeln!(std::io::stdout(), "{USAGE}") {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(NO_ANSWER),
        };
    }
    let invocation = match args::parse(&args, std::env::var("MCP_BEARER_TOKEN").ok()) {
        Ok(invocation) => invocation,
        Err(message) => {
            eprintln!("mcp: {message}\n\n{USAGE}");
            return ExitCode::from(BAD_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp: no runtime: {e}");
            return ExitCode::from(NO_ANSWER);
        }
    };
    runtime.block_on(run(invocation))
}

async fn run(invocation: Invocation) -> ExitCode {
    let client = match connect(&invocation) {
        Ok(client) => client,
        Err(error) => return failed(&error),
    };
    let answer = match invocation.action {
        Action::Discover => client.discover().await.map(to_json),
        Action::List(Listed::Tools) => client.list_tools().await.map(to_json),
        Action::List(Listed::Prompts) => client.list_prompts().await.map(Value::from),
        Action::List(Listed::Resources) => client.list_resources().await.map(Value::from),
        Action::Call { name, arguments } => client.call_tool(&name, Value::Object(arguments)).await.map(to_json),
        Action::Read { uri } => client.read_resource(&uri).await.map(to_json),
        Action::Prompt { name, arguments } => client.get_prompt(&name, Value::Object(arguments)).await.map(to_json),
    };
    match answer {
        Ok(result) => {
            let tool_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            if print(&result).is_err() {
                return ExitCode::from(NO_ANSWER);
            }
            if tool_error { ExitCode::from(SERVER_ERROR) } else { ExitCode::SUCCESS }
        }
        Err(error) => failed(&error),
    }
}

fn connect(invocation: &Invocation) -> Result<Client, Error> {
    let client = match &invocation.target {
        Target::Url(url) => Client::http(url.clone()),
        Target::Command(words) => {
            let mut command = tokio::process::Command::new(&words[0]);
            command.args(&words[1..]);
            Client::spawn(command)?
        }
    };
    let client = client.revision(invocation.revision).timeout(invocation.timeout);
    Ok(match &invocation.bearer {
        Some(token) => client.bearer(token.clone()),
        None => client,
    })
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn print(value: &Value) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)
}

/// Says what went wrong; a JSON-RPC error is printed as JSON too.
fn failed(error: &Error) -> ExitCode {
    eprintln!("mcp: {error}");
    match error {
        Error::Rpc(object) => {
            let _ = print(&to_json(object));
            ExitCode::from(SERVER_ERROR)
        }
        Error::InputRequired(_) => {
            eprintln!("mcp: answering a server's input requests is not supported yet");
            ExitCode::from(SERVER_ERROR)
        }
        _ => ExitCode::from(NO_ANSWER),
    }
}
