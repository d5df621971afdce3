//! `mcp`: pokes an MCP server from the terminal (list its tools, prompts,
//! resources and resource templates, call a tool, read a resource, get a
//! prompt, list its skills and read a skill's files, checked) over
//! Streamable HTTP or a command's stdio, in whichever protocol era the
//! server speaks, answering the questions a tool asks (at the
//! terminal, or from `--answer` and `--yes`), authorizing with OAuth
//! where an HTTP server asks (`mcp login` and `mcp logout` keep and forget
//! the tokens). Built on `mcp_runtime::client`. `mcp --help` says how.

mod args;
mod auth;
mod form;
mod questions;
mod skills;
mod table;

use std::io::{IsTerminal as _, Write as _};
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

async fn run(mut invocation: Invocation) -> ExitCode {
    let environment = auth::Environment::read();
    match invocation.action {
        Action::Logout => return logout(url_of(&invocation.target), &environment),
        // A person's tokens, got only to be dropped at exit.
        Action::Login if environment.keeps_nothing() => return no_token_file(),
        _ => {}
    }
    // Before any server is started: a mistyped root is the user's to fix.
    let roots = match invocation.roots.iter().map(|given| questions::root_of(given)).collect() {
        Ok(roots) => roots,
        Err(message) => {
            eprintln!("mcp: {message}");
            return ExitCode::from(BAD_USAGE);
        }
    };
    let client = match connect(&invocation, &environment) {
        Ok(client) => questions::answering(client, std::mem::take(&mut invocation.answers), roots),
        Err(error) => return failed(&error),
    };
    let answer = match invocation.action {
        Action::Discover => client.discover().await.map(to_json),
        Action::Login => {
            return match client.discover().await {
                Ok(_) => said(&environment.logged_in(url_of(&invocation.target))),
                Err(error) => failed(&error),
            };
        }
        // Done above, without a client.
        Action::Logout => return ExitCode::SUCCESS,
        Action::List(listed) => {
            let items = match listed {
                Listed::Tools => client.list_tools().await.map(|tools| tools.into_iter().map(to_json).collect()),
                Listed::Prompts => client.list_prompts().await,
                Listed::Resources => client.list_resources().await,
                Listed::Templates => client.list_resource_templates().await,
            };
            match items {
                Ok(items) if !invocation.json => return written(table::table(listed, &items).as_bytes()),
                items => items.map(Value::from),
            }
        }
        Action::Call { name, arguments } => client.call_tool(&name, Value::Object(arguments)).await.map(to_json),
        Action::Read { uri } => client.read_resource(&uri).await.map(to_json),
        Action::Prompt { name, arguments } => client.get_prompt(&name, Value::Object(arguments)).await.map(to_json),
        Action::ListSkills => match client.skills().await {
            Ok(listed) if !invocation.json => return written(skills::table(&listed).as_bytes()),
            listed => listed.map(to_json),
        },
        Action::GetSkill { uri, file: None } => client.get_skill(&uri).await.map(to_json),
        Action::GetSkill { uri, file: Some(file) } => {
            return match skills::file(&client, &uri, &file).await {
                Ok(bytes) => match skills::shown(&bytes, std::io::stdout().is_terminal()) {
                    Some(shown) => written(&shown),
                    None => {
                        eprintln!(
                            "mcp: {file} is not text: redirect stdout to a file to have its {} bytes",
                            bytes.len()
                        );
                        ExitCode::SUCCESS
                    }
                },
                Err(error) => failed(&error),
            };
        }
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

/// `mcp logout URL`: the URL's entry removed from the token file; no
/// request is made.
fn logout(url: &str, environment: &auth::Environment) -> ExitCode {
    let Some(path) = &environment.token_file else { return no_token_file() };
    match auth::logout(url, path) {
        Ok(message) => said(&message),
        Err(message) => {
            eprintln!("mcp: {message}");
            ExitCode::from(NO_ANSWER)
        }
    }
}

/// Login and logout without a token file to keep tokens in.
fn no_token_file() -> ExitCode {
    eprintln!("mcp: no token file to keep tokens in: set $MCP_TOKEN_FILE (or $XDG_CONFIG_HOME or $HOME)");
    ExitCode::from(BAD_USAGE)
}

/// The URL of a `--url` target; empty for a command (which login and
/// logout, the actions that ask, refuse).
fn url_of(target: &Target) -> &str {
    match target {
        Target::Url(url) => url,
        Target::Command(_) => "",
    }
}

/// Writes `bytes` on stdout: success, unless they cannot be.
fn written(bytes: &[u8]) -> ExitCode {
    match std::io::stdout().lock().write_all(bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(NO_ANSWER),
    }
}

/// Prints `message` on stdout: success, unless it cannot be.
fn said(message: &str) -> ExitCode {
    match writeln!(std::io::stdout(), "{message}") {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(NO_ANSWER),
    }
}

fn connect(invocation: &Invocation, environment: &auth::Environment) -> Result<Client, Error> {
    let client = match &invocation.target {
        Target::Url(url) => match &invocation.root_certificates {
            Some(path) => {
                let pem = std::fs::read(path)
                    .map_err(|e| Error::Invalid(format!("--root-certificates {path} could not be read: {e}")))?;
                Client::http(url.clone()).root_certificates(pem)?
            }
            None => Client::http(url.clone()),
        },
        Target::Command(words) => {
            let mut command = tokio::process::Command::new(&words[0]);
            command.args(&words[1..]);
            Client::spawn(command)?
        }
    };
    let client = client.revision(invocation.revision).timeout(invocation.timeout);
    Ok(match (&invocation.bearer, &invocation.target) {
        (Some(token), _) => client.bearer(token.clone()),
        (None, Target::Url(_)) => client.oauth(environment.oauth().map_err(|e| {
            Error::Transport(format!("no loopback port for the browser to come back to after authorizing: {e}"))
        })?),
        (None, Target::Command(_)) => client,
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
            if object.code == MISSING_CAPABILITY {
                for missing in missing_capabilities(object.data.as_ref()) {
                    eprintln!("mcp: {missing}");
                }
            }
            let _ = print(&to_json(object));
            ExitCode::from(SERVER_ERROR)
        }
        // The server's files are not what it listed, or it has no skills: its doing.
        Error::Skill(_) => ExitCode::from(SERVER_ERROR),
        Error::InputRequired(_) => {
            // What was refused was said as it was refused.
            eprintln!("mcp: the request was not sent again: it needs an answer mcp refused (said above)");
            ExitCode::from(SERVER_ERROR)
        }
        _ => ExitCode::from(NO_ANSWER),
    }
}

/// The server's error for a request that needs a capability the client
/// did not declare.
const MISSING_CAPABILITY: i32 = -32021;

/// What the user can do about each capability a `-32021` error's data
/// says is missing (`requiredCapabilities`).
fn missing_capabilities(data: Option<&Value>) -> Vec<String> {
    let Some(required) = data.and_then(|d| d.get("requiredCapabilities")).and_then(Value::as_object) else {
        return Vec::new();
    };
    required
        .iter()
        .map(|(capability, detail)| match capability.as_str() {
            "elicitation" if detail.get("url").is_some() => {
                "the server needs to send you to a URL (URL elicitation), which mcp does not do".to_owned()
            }
            "elicitation" => "the server needs to ask you a question: run mcp in a terminal, or give --yes (accept \
                              the defaults, confirm) or --answer FIELD=VALUE"
                .to_owned(),
            "roots" => "the server needs the client's roots: give --root PATH (repeatable)".to_owned(),
            "sampling" => "the server needs to ask a language model (sampling), which mcp does not do".to_owned(),
            other => {
                format!("the server needs the client capability `{}`, which mcp does not have", form::printable(other))
            }
        })
        .collect()
}
