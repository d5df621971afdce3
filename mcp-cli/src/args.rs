//! The command line, read into what to do, with which server, and how.

use std::time::Duration;

use mcp_runtime::client::Revision;
use serde_json::{Map, Value};

use crate::form::Answers;

pub(crate) const USAGE: &str = "\
usage:
  mcp discover                                   TARGET
  mcp list [tools|prompts|resources|templates]   TARGET
  mcp call NAME [--arg KEY=VALUE]... [--args JSON]   TARGET
  mcp read URI                                   TARGET
  mcp prompt NAME [--arg KEY=VALUE]...           TARGET
  mcp skills list                                TARGET
  mcp skills get SKILL_URI [FILE]                TARGET
  mcp login URL                                  (or --url URL)
  mcp logout URL                                 (or --url URL)

TARGET is one of:
  --url URL              a Streamable HTTP endpoint (http://host:port/mcp)
  -- COMMAND [ARGS...]   a command speaking MCP on its stdio, started and ended here

options (anywhere before `--`):
  --revision auto|stateless|session   which protocol era to speak (default auto: 2026-07-28
                                  if the server speaks it, else a 2025-era session)
  --bearer TOKEN                  sent as `Authorization: Bearer` over HTTP, instead of
                                  OAuth (default: $MCP_BEARER_TOKEN; not with login/logout)
  --timeout SECONDS               for each request (default 60)
  --root-certificates PEM         trusts the certificates of this file for an https:// URL,
                                  besides the system's (which honour $SSL_CERT_FILE)
  --json                          print lists as JSON, not as a table
  --answer FIELD=VALUE            answers the field of a question the server asks
                                  (repeatable)
  --yes, -y                       accepts the server's questions: each field at its
                                  default, a yes/no one at yes (confirms)
  --root PATH_OR_URI              a root to give a server that asks for roots
                                  (repeatable; a path becomes a file:// URI)

--arg KEY=VALUE sets one argument: VALUE is read as JSON when it is JSON (3, true,
[1,2], {\"a\":1}, \"text\"), as a string otherwise; a prompt's arguments are always
strings. --args takes them all as one JSON object.

A tool may ask a question (a form: text, numbers, yes/no, choices). At a terminal
mcp asks it field by field on stderr, then whether to send, decline or cancel;
--answer and --yes answer it without asking. Only then does mcp tell the server it
can answer questions: without a terminal, --answer or --yes, a tool that must ask
fails at once with the server's error (-32021) instead of waiting. A request to
open a URL or to ask a language model (sampling) is refused, and said on stderr.
In a 2025-era session the server asks while its request waits: --timeout then
bounds your time to answer too.

`skills list` lists the server's skills (the io.modelcontextprotocol/skills
extension) and reads none of their files. `skills get SKILL_URI` prints a skill's
entry: its front matter, and each of its files with the SHA-256 digest and size of
its bytes. With FILE (SKILL.md, or a path below the skill's directory such as
references/FORMS.md) it loads the skill, its SKILL.md checked against the entry
for size, digest and front matter, then prints the file, checked the same way, as
it is (at a terminal, its control characters escaped). A file that fails a check,
or that the entry does not list, is not printed. A server that does not declare
the extension is not asked.

A --url server that asks for authorization (HTTP 401) gets it with OAuth 2.1,
unless --bearer gives a token. You approve in a browser: mcp prints the URL on
stderr (and, at a terminal, opens it with $BROWSER, else xdg-open or open), then
waits up to 5 minutes for the browser to come back to a loopback port of its own
(http://127.0.0.1:PORT/callback). The tokens are kept, and refreshed, in the token
file: $MCP_TOKEN_FILE, else $XDG_CONFIG_HOME/mcp/tokens.json, else
$HOME/.config/mcp/tokens.json; a JSON object mapping each server URL, exactly as
given, to its tokens, readable and writable by you alone (mode 0600). The time in
the browser does not count against --timeout. `mcp login URL` asks the server
(server/discover) so that its tokens are in the file before other commands need
them. `mcp logout URL` forgets them: it removes the URL's entry, and tells
nobody. A program acting for itself sets $MCP_CLIENT_ID and $MCP_CLIENT_SECRET
instead: the client_credentials grant, no browser, no token kept.

Lists print as a table (name, first line of the description); --json prints
them, like every other result, as JSON. Exit status: 0; 1 when the server
answered with an error, a tool's result is an error, or a skill or a file of one
was refused (it failed a check, or the server does not declare skills); 2 for bad usage; 3 when no
answer came (no server, a command that ended, no answer in time, an answer that
is none, an authorization that failed).";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub(crate) struct Invocation {
    pub(crate) action: Action,
    pub(crate) target: Target,
    pub(crate) revision: Revision,
    pub(crate) bearer: Option<String>,
    pub(crate) timeout: Duration,
    /// `--json`: lists as JSON rather than a table.
    pub(crate) json: bool,
    /// `--answer` and `--yes`.
    pub(crate) answers: Answers,
    /// `--root`, as given.
    pub(crate) roots: Vec<String>,
    /// `--root-certificates`: a PEM file trusted for `https://`.
    pub(crate) root_certificates: Option<String>,
}

/// What to ask the server; `Login` asks `server/discover`, to have the
/// server's tokens in the token file, and `Logout` forgets them, asking
/// nothing.
#[derive(Debug, PartialEq)]
pub(crate) enum Action {
    Discover,
    List(Listed),
    Call {
        name: String,
        arguments: Map<String, Value>,
    },
    Read {
        uri: String,
    },
    Prompt {
        name: String,
        arguments: Map<String, Value>,
    },
    /// `skills list`.
    ListSkills,
    /// `skills get SKILL_URI [FILE]`: the entry, or a file of the skill,
    /// checked.
    GetSkill {
        uri: String,
        file: Option<String>,
    },
    Login,
    Logout,
}

/// What `list` lists.
#[derive(Debug, PartialEq, Clone, Copy)]
pub(crate) enum Listed {
    Tools,
    Prompts,
    Resources,
    /// Resource templates.
    Templates,
}

/// Where the server is.
#[derive(Debug, PartialEq)]
pub(crate) enum Target {
    Url(String),
    Command(Vec<String>),
}

/// Reads the arguments after the program's name; `bearer` is the
/// environment's token, used unless `--bearer` gives one (and never by
/// login or logout, whose tokens are OAuth's).
pub(crate) fn parse(args: &[String], bearer: Option<String>) -> Result<Invocation, String> {
    let (ours, command) = match args.iter().position(|a| a == "--") {
        Some(at) => (&args[..at], Some(args[at + 1..].to_vec())),
        None => (args, None),
    };
    let mut url = None;
    let mut revision = Revision::Auto;
    let mut given_bearer = None;
    let mut timeout = Duration::from_secs(60);
    let mut arguments = Map::new();
    let (mut json, mut answers, mut roots) = (false, Answers::default(), Vec::new());
    let mut root_certificates = None;
    let mut positional = Vec::new();
    let mut words = ours.iter();
    while let Some(word) = words.next() {
        let mut value = |name: &str| words.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match word.as_str() {
            "--url" => url = Some(value("--url")?),
            "--bearer" => given_bearer = Some(value("--bearer")?),
            "--root-certificates" => root_certificates = Some(value("--root-certificates")?),
            "--revision" => revision = revision_of(&value("--revision")?)?,
            "--timeout" => {
                let seconds = value("--timeout")?;
                let seconds: f64 = seconds.parse().map_err(|_| format!("--timeout takes seconds, not `{seconds}`"))?;
                if !(seconds.is_finite() && seconds > 0.0) {
                    return Err("--timeout takes a positive number of seconds".into());
                }
                timeout = Duration::from_secs_f64(seconds);
            }
            "--arg" => {
                let pair = value("--arg")?;
                let (key, text) = pair.split_once('=').ok_or_else(|| format!("--arg takes KEY=VALUE, not `{pair}`"))?;
                arguments.insert(key.to_owned(), serde_json::from_str(text).unwrap_or_else(|_| Value::from(text)));
            }
            "--args" => {
                let text = value("--args")?;
                match serde_json::from_str(&text) {
                    Ok(Value::Object(all)) => arguments.extend(all),
                    _ => return Err(format!("--args takes a JSON object, not `{text}`")),
                }
            }
            "--json" => json = true,
            "--yes" | "-y" => answers.yes = true,
            "--answer" => {
                let pair = value("--answer")?;
                let (field, text) =
                    pair.split_once('=').ok_or_else(|| format!("--answer takes FIELD=VALUE, not `{pair}`"))?;
                answers.given.push((field.to_owned(), text.to_owned()));
            }
            "--root" => roots.push(value("--root")?),
            flag if flag.starts_with('-') && flag.len() > 1 => return Err(format!("unknown option `{flag}`")),
            _ => positional.push(word.clone()),
        }
    }
    let account = matches!(positional.first().map(String::as_str), Some("login" | "logout"));
    if account {
        if command.is_some() {
            return Err("login and logout are for a --url server, not a command".into());
        }
        url = url_of_account(&mut positional, url)?;
    }
    let target = match (url, command) {
        (Some(_), Some(_)) => return Err("give --url or a command after `--`, not both".into()),
        (Some(url), None) => Target::Url(url),
        (None, Some(command)) if !command.is_empty() => Target::Command(command),
        _ => return Err("no server: give --url URL or `-- COMMAND [ARGS...]`".into()),
    };
    let action = action_of(&positional, arguments)?;
    let bearer = match (account, given_bearer) {
        (true, Some(_)) => return Err("--bearer gives a token: login and logout are for OAuth's".into()),
        (true, None) => None,
        (false, given) => given.or(bearer.filter(|t| !t.is_empty())),
    };
    Ok(Invocation { action, target, revision, bearer, timeout, json, answers, roots, root_certificates })
}

/// `login URL`, `logout URL`: the URL is the target, as `--url URL` is
/// (which the usage allows too), and the words left the action's.
fn url_of_account(positional: &mut Vec<String>, url: Option<String>) -> Result<Option<String>, String> {
    match (positional.len(), url) {
        (1, url) => Ok(url),
        (2, None) => Ok(positional.pop()),
        (2, Some(_)) => Err("give the URL once: `mcp login URL` or `mcp login --url URL`".into()),
        _ => Err(format!("`{}`: login and logout take one URL", positional.join(" "))),
    }
}

fn revision_of(text: &str) -> Result<Revision, String> {
    match text {
        "auto" => Ok(Revision::Auto),
        "stateless" => Ok(Revision::Stateless),
        "session" => Ok(Revision::Session),
        // The former words, read for one release.
        "modern" | "legacy" => {
            let now = if text == "modern" { "stateless" } else { "session" };
            eprintln!("warning: --revision {text} is deprecated: it is now called `{now}`");
            revision_of(now)
        }
        other => Err(format!("--revision is auto, stateless or session, not `{other}`")),
    }
}

fn action_of(positional: &[String], arguments: Map<String, Value>) -> Result<Action, String> {
    let words: Vec<&str> = positional.iter().map(String::as_str).collect();
    let takes_arguments = matches!(words.first(), Some(&"call" | &"prompt"));
    if !arguments.is_empty() && !takes_arguments {
        return Err("--arg and --args go with call or prompt".into());
    }
    Ok(match words.as_slice() {
        ["discover"] => Action::Discover,
        ["login"] => Action::Login,
        ["logout"] => Action::Logout,
        ["list"] | ["list", "tools"] => Action::List(Listed::Tools),
        ["list", "prompts"] => Action::List(Listed::Prompts),
        ["list", "resources"] => Action::List(Listed::Resources),
        ["list", "templates"] => Action::List(Listed::Templates),
        ["list", other] => return Err(format!("list tools, prompts, resources or templates, not `{other}`")),
        ["call", name] => Action::Call { name: (*name).to_owned(), arguments },
        ["read", uri] => Action::Read { uri: (*uri).to_owned() },
        ["skills", "list"] => Action::ListSkills,
        ["skills", "get", uri] => Action::GetSkill { uri: (*uri).to_owned(), file: None },
        ["skills", "get", uri, file] => Action::GetSkill { uri: (*uri).to_owned(), file: Some((*file).to_owned()) },
        ["skills", ..] => {
            return Err(format!("`{}`: skills list, or skills get SKILL_URI [FILE]", words.join(" ")));
        }
        ["prompt", name] => {
            // A prompt's arguments are strings, whatever they look like.
            let arguments = arguments
                .into_iter()
                .map(|(key, value)| match value {
                    Value::String(text) => (key, Value::String(text)),
                    other => (key, Value::String(other.to_string())),
                })
                .collect();
            Action::Prompt { name: (*name).to_owned(), arguments }
        }
        [] => return Err("nothing to do: discover, list, call, read, prompt, skills, login or logout".into()),
        [action, ..] => return Err(format!("`{}` is not `mcp {action} ...` as the usage shows", words.join(" "))),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parsed(line: &str) -> Result<Invocation, String> {
        let args: Vec<String> = line.split(' ').map(str::to_owned).collect();
        parse(&args, None)
    }

    #[test]
    fn a_call_over_http_with_arguments_read_as_json_where_they_are_json() {
        let call = parsed("call add --arg a=2 --arg b=true --arg c=text --args {\"d\":[1]} --url http://h/mcp")
            .expect("parsed");
        assert_eq!(call.target, Target::Url("http://h/mcp".into()));
        let Action::Call { name, arguments } = call.action else { panic!("a call") };
        assert_eq!(name, "add");
        assert_eq!(Value::Object(arguments), json!({"a": 2, "b": true, "c": "text", "d": [1]}));
        assert_eq!((call.revision, call.timeout), (Revision::Auto, Duration::from_secs(60)));
    }

    #[test]
    fn the_former_revision_words_still_read() {
        let modern = parsed("list tools --revision modern --url u").expect("parsed");
        let legacy = parsed("list tools --revision legacy --url u").expect("parsed");
        assert_eq!((modern.revision, legacy.revision), (Revision::Stateless, Revision::Session));
    }

    #[test]
    fn a_command_after_the_double_dash_and_the_options_before_it() {
        let list = parsed("list prompts --revision session --timeout 2.5 --bearer t -- server --stdio --url x")
            .expect("parsed");
        assert_eq!(list.action, Action::List(Listed::Prompts));
        assert_eq!(list.target, Target::Command(vec!["server".into(), "--stdio".into(), "--url".into(), "x".into()]));
        assert_eq!((list.revision, list.bearer.as_deref()), (Revision::Session, Some("t")));
        assert_eq!(list.timeout, Duration::from_millis(2500));
        let prompt = parsed("prompt greet --arg n=3 --url u").expect("parsed");
        assert_eq!(
            prompt.action,
            Action::Prompt {
                name: "greet".into(),
                arguments: json!({"n": "3"}).as_object().cloned().unwrap_or_default()
            }
        );
    }

    #[test]
    fn each_mistake_is_named() {
        for (line, says) in [
            ("call add", "no server"),
            ("call add --url u -- cmd", "not both"),
            ("call --url u", "is not `mcp call"),
            ("list things --url u", "not `things`"),
            ("read x --arg a=1 --url u", "go with call or prompt"),
            ("call x --arg a --url u", "KEY=VALUE"),
            ("call x --args [1] --url u", "a JSON object"),
            ("call x --revision new --url u", "auto, stateless or session"),
            ("call x --revision Modern --url u", "auto, stateless or session"),
            ("call x --timeout 0 --url u", "positive"),
            ("call x --frobnicate --url u", "unknown option"),
            ("--url u", "nothing to do"),
            ("call x --url", "--url needs a value"),
            ("call x --answer yes --url u", "FIELD=VALUE"),
            ("skills --url u", "skills list, or skills get"),
            ("skills get --url u", "skills list, or skills get"),
            ("skills list x --url u", "skills list, or skills get"),
            ("skills get u f g --url u", "skills list, or skills get"),
            ("skills list --arg a=1 --url u", "go with call or prompt"),
            ("call x -q --url u", "unknown option `-q`"),
            ("login u -- cmd", "for a --url server, not a command"),
            ("logout -- cmd", "for a --url server, not a command"),
            ("login u --url v", "give the URL once"),
            ("logout u v", "take one URL"),
            ("login", "no server"),
            ("login u --bearer t", "login and logout are for OAuth's"),
        ] {
            let error = parsed(line).expect_err(line);
            assert!(error.contains(says), "{line}: {error}");
        }
    }

    #[test]
    fn skills_are_listed_and_got_with_or_without_a_file() {
        let list = parsed("skills list --json -- server").expect("parsed");
        assert_eq!((list.action, list.json), (Action::ListSkills, true));
        let uri = "skill://pdf/SKILL.md";
        let entry = parsed(&format!("skills get {uri} --url u")).expect("parsed");
        assert_eq!(entry.action, Action::GetSkill { uri: uri.into(), file: None });
        let file = parsed(&format!("skills get {uri} references/FORMS.md --url u")).expect("parsed");
        assert_eq!(file.action, Action::GetSkill { uri: uri.into(), file: Some("references/FORMS.md".into()) });
    }

    #[test]
    fn the_environments_token_unless_one_is_given() {
        let args: Vec<String> = ["discover", "--url", "u"].map(str::to_owned).to_vec();
        assert_eq!(parse(&args, Some("env".into())).expect("parsed").bearer.as_deref(), Some("env"));
        assert_eq!(parse(&args, Some(String::new())).expect("parsed").bearer, None, "an empty one is none");
    }

    #[test]
    fn login_and_logout_take_the_url_either_way_and_never_the_environments_token() {
        for line in ["login http://h/mcp", "login --url http://h/mcp", "--timeout 5 login http://h/mcp"] {
            let login = parsed(line).expect(line);
            assert_eq!((login.action, login.target), (Action::Login, Target::Url("http://h/mcp".into())), "{line}");
        }
        let args: Vec<String> = ["logout", "http://h/mcp"].map(str::to_owned).to_vec();
        let logout = parse(&args, Some("env".into())).expect("parsed");
        assert_eq!((logout.action, logout.bearer), (Action::Logout, None));
        let args: Vec<String> = ["login", "--url", "u"].map(str::to_owned).to_vec();
        assert_eq!(parse(&args, Some("env".into())).expect("parsed").bearer, None);
    }

    #[test]
    fn answers_roots_and_json_anywhere_before_the_double_dash() {
        let call = parsed("call rm --answer ok=true -y --answer n=a=b --root /tmp --root file:///x --json --url u")
            .expect("parsed");
        let given = vec![("ok".to_owned(), "true".to_owned()), ("n".to_owned(), "a=b".to_owned())];
        assert_eq!(call.answers, Answers { given, yes: true });
        assert_eq!(call.roots, ["/tmp", "file:///x"]);
        assert!(call.json);
        assert_eq!(parsed("list templates --url u").expect("parsed").action, Action::List(Listed::Templates));
        let plain = parsed("list --url u").expect("parsed");
        assert!(!plain.json && !plain.answers.any() && plain.roots.is_empty());
    }
}
