//! A gateway: no tools of its own, the tools, prompts and resources of other
//! MCP servers served as one endpoint, each server's under its name, to
//! clients of either era, over HTTP or stdio. A remote is a command speaking
//! MCP on its stdio (started here, ended with the gateway), or a Streamable
//! HTTP URL; it may speak 2026-07-28 or only a 2025-era revision.
//!
//! ```text
//! cargo run -p examples --bin gateway -- --http 127.0.0.1:3000 \
//!     everything="target/debug/everything --stdio" weather=http://127.0.0.1:4000/mcp
//! ```
//!
//! `everything`'s tool `test_simple_text` is then `everything_test_simple_text`, its resource
//! `test://static-text` is `test://everything/static-text`. A remote without a name
//! (`=COMMAND` or `=URL`) is served as it is, unprefixed: a proxy. A command is split into
//! words as a POSIX shell splits them, without running one: single quotes keep everything,
//! double quotes keep all but `\"` and `\\`, a backslash keeps the next character; so a path
//! with a space is quoted, `tools="'/opt/my tools/server' --stdio"`. What a gateway relays of
//! a remote: see `mcp_runtime::client::Remote`. `--help` prints the usage.
//!
//! Every caller reaches every remote with the gateway's one connection to it (a 2025-era
//! remote: one session, shared by every caller). Over HTTP, `--issuer URL` makes callers show
//! a bearer token from that authorization server (`--resource URI` names this gateway for the
//! tokens, by default `http://ADDR/mcp`, or the `--public-url`'s), and `--scopes NAME=S1,S2`
//! makes a mount's entries need those scopes. Bound to another address than loopback, the
//! gateway refuses to start without `--issuer` unless told `--allow-unauthenticated`.
//! `--trusted-proxies N` believes the `X-Forwarded-For` of N proxies in front.
//! `--tool-search` lists `search_tools` and `call_tool` in place of the remotes' tools, for
//! gateways of more tools than a model should read at once (see `mcp_runtime::search`).
//!
//! An `https://` remote's certificate is checked against the platform's roots (which honour
//! `SSL_CERT_FILE`); `--root-certificates PEM` trusts the certificates of a file besides.
//!
//! A URL remote that asks for OAuth (a `401`) is authorized with client credentials from the
//! environment, `MCP_<NAME>_CLIENT_ID` and `MCP_<NAME>_CLIENT_SECRET` (NAME in upper case,
//! other characters than letters and digits as `_`), else `MCP_CLIENT_ID` and
//! `MCP_CLIENT_SECRET`; or, with `--token-file PATH`, with the tokens `mcp login URL` left in
//! that file (refreshed as they expire). The gateway asks the remote's authorization server for
//! a token for the remote (the `resource` its metadata names) with the scopes it asks for.
//!
//! `--token-exchange NAME=TOKEN_ENDPOINT` reaches URL remote NAME as each caller instead:
//! the caller's token (verified with `--issuer`) is exchanged at that endpoint (RFC 8693) for
//! one whose audience is the remote's URL and whose scopes are those `--scopes NAME=` demands
//! of callers, with the same client credentials from the environment, which that
//! authorization server must allow the token-exchange grant. Meant for 2026-07-28 remotes
//! (see `mcp_runtime::client::Remote::token_exchange`).

#[path = "../observability.rs"]
mod observability;

use std::net::SocketAddr;

use anyhow::{Context as _, bail};
use mcp_runtime::auth::Authorization;
use mcp_runtime::client::oauth::{ClientCredentials, FileTokenStore, OAuth};
use mcp_runtime::client::{Client, Error, Remote, TokenExchange};
use mcp_runtime::transport::http::{ForwardedHeader, HttpConfig};

const USAGE: &str = "usage: gateway [--stdio | --http ADDR] [--issuer URL [--resource URI]] [--public-url URL] \
                     [--scopes NAME=SCOPE,...]... [--trusted-proxies N] [--allow-unauthenticated] \
                     [--root-certificates PEM] [--token-file PATH] [--token-exchange NAME=URL]... [--tool-search] \
                     [NAME]=COMMAND... | [NAME]=URL...

Serves the tools, prompts and resources of each remote server under its NAME (none: as it is).
COMMAND speaks MCP on its stdio; it is split into words as a shell would, so quote a path with
spaces: docs=\"'/opt/my docs/server' --stdio\". URL is a Streamable HTTP endpoint.

  --stdio                    serve one client on stdin/stdout (default: HTTP)
  --http ADDR                the HTTP address (default 127.0.0.1:3000)
  --issuer URL               callers show a bearer token of this authorization server
  --resource URI             this gateway's URI in those tokens (default http://ADDR/mcp)
  --public-url URL           the URL callers reach the gateway at, behind a proxy
  --scopes NAME=S1,S2        the scopes a mount's entries need (repeatable)
  --trusted-proxies N        believe the X-Forwarded-For of N proxies in front
  --allow-unauthenticated    serve a non-loopback address without --issuer, on purpose
  --root-certificates PEM    trust these certificates for https:// remotes, besides the platform's
  --token-file PATH          OAuth tokens for URL remotes, as `mcp login URL` leaves them
  --token-exchange NAME=URL  reach URL remote NAME as each caller: exchange the caller's token
                             at this token endpoint for NAME's --scopes (needs --issuer)
  --tool-search              list search_tools and call_tool instead of every remote's tools
  --help, -h                 this text

A URL remote that asks for OAuth is authorized with client credentials from the environment:
MCP_<NAME>_CLIENT_ID and MCP_<NAME>_CLIENT_SECRET (NAME in upper case, other characters than
letters and digits as _), else MCP_CLIENT_ID and MCP_CLIENT_SECRET; or with --token-file's.
--token-exchange authenticates with the same client credentials, which it needs.";

/// How the gateway authorizes with remote `name` when it asks for OAuth:
/// client credentials from the environment (the remote's own, else the
/// shared ones), else the tokens of `token_file`, else none (a remote that
/// needs a person fails to connect, saying what to give the gateway).
fn oauth(name: &str, token_file: Option<&str>) -> OAuth {
    if let Some((id, secret)) = client_credentials(name) {
        return OAuth::client_credentials(ClientCredentials::secret(id, secret));
    }
    // No person here: only the tokens one got with `mcp login`, refreshed.
    let oauth = OAuth::new("http://127.0.0.1/callback");
    match token_file {
        Some(file) => oauth.token_store(FileTokenStore::new(file)),
        None => oauth,
    }
}

/// The gateway's client id and secret for remote `name`, from the
/// environment: the remote's own, else the shared ones.
fn client_credentials(name: &str) -> Option<(String, String)> {
    let var = |key: &str| std::env::var(key).ok().filter(|v| !v.is_empty());
    let own =
        (var(&format!("MCP_{}_CLIENT_ID", env_name(name))), var(&format!("MCP_{}_CLIENT_SECRET", env_name(name))));
    let shared = || (var("MCP_CLIENT_ID"), var("MCP_CLIENT_SECRET"));
    match if own.0.is_some() { own } else { shared() } {
        (Some(id), Some(secret)) => Some((id, secret)),
        _ => None,
    }
}

/// `name` as it appears in an environment variable's name.
fn env_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect()
}

/// What to serve, and how.
#[derive(Debug, Default, PartialEq)]
struct Options {
    /// Serve over stdio rather than HTTP.
    stdio: bool,
    addr: Option<SocketAddr>,
    remotes: Vec<(String, Target)>,
    /// The authorization server whose tokens callers show over HTTP.
    issuer: Option<String>,
    resource: Option<String>,
    public_url: Option<String>,
    /// The scopes each mount's entries need, by its name.
    scopes: Vec<(String, Vec<String>)>,
    trusted_proxies: usize,
    /// Serves a wide bind without authentication, on purpose.
    allow_unauthenticated: bool,
    /// A PEM file of certificates trusted for `https://` remotes.
    root_certificates: Option<String>,
    /// OAuth tokens for URL remotes, as `mcp login` leaves them.
    token_file: Option<String>,
    /// List `search_tools` and `call_tool` instead of the tools.
    tool_search: bool,
    /// The token endpoint at which each caller's token is exchanged for one
    /// to a URL remote, by the remote's name.
    token_exchange: Vec<(String, String)>,
}

impl Options {
    fn addr(&self) -> SocketAddr {
        self.addr.unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 3000)))
    }
}

/// Where a remote server is.
#[derive(Debug, PartialEq)]
enum Target {
    Url(String),
    Command(Vec<String>),
}

/// What the command line asks for: to serve, or to print the usage.
#[derive(Debug, PartialEq)]
enum Invocation {
    // Boxed: the options are far larger than the other case.
    Serve(Box<Options>),
    Help,
}

fn parse_args(args: &[String]) -> anyhow::Result<Invocation> {
    // Asked for anywhere, the usage is all that is printed.
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        return Ok(Invocation::Help);
    }
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().with_context(|| format!("{arg} needs {what}"));
        match arg.as_str() {
            "--stdio" => options.stdio = true,
            "--http" => {
                let addr = value("an address")?;
                options.addr = Some(addr.parse().with_context(|| format!("`{addr}` is not an address"))?);
            }
            "--issuer" => options.issuer = Some(value("the URL of an authorization server")?.clone()),
            "--resource" => options.resource = Some(value("this gateway's URI")?.clone()),
            "--public-url" => options.public_url = Some(value("a URL")?.trim_end_matches('/').to_owned()),
            "--scopes" => {
                let given = value("NAME=SCOPE,...")?;
                let Some((name, scopes)) = given.split_once('=') else { bail!("`{given}` is not NAME=SCOPE,...") };
                let scopes: Vec<String> = scopes.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect();
                options.scopes.push((name.to_owned(), scopes));
            }
            "--trusted-proxies" => {
                let hops = value("a number of proxies")?;
                options.trusted_proxies = hops.parse().with_context(|| format!("`{hops}` is not a number"))?;
            }
            "--allow-unauthenticated" => options.allow_unauthenticated = true,
            "--root-certificates" => options.root_certificates = Some(value("a PEM file")?.clone()),
            "--token-file" => options.token_file = Some(value("a file")?.clone()),
            "--tool-search" => options.tool_search = true,
            "--token-exchange" => {
                let given = value("NAME=TOKEN_ENDPOINT")?;
                let Some((name, endpoint)) = given.split_once('=') else {
                    bail!("`{given}` is not NAME=TOKEN_ENDPOINT")
                };
                if !(endpoint.starts_with("https://") || endpoint.starts_with("http://")) {
                    bail!("--token-exchange {name}=: `{endpoint}` is not a URL");
                }
                options.token_exchange.push((name.to_owned(), endpoint.to_owned()));
            }
            flag if flag.starts_with("--") => bail!("unknown option `{flag}`\n{USAGE}"),
            remote => {
                let Some((name, target)) = remote.split_once('=') else {
                    bail!("`{remote}` is not NAME=TARGET\n{USAGE}")
                };
                let target = if target.starts_with("http://") || target.starts_with("https://") {
                    Target::Url(target.to_owned())
                } else {
                    let Some(words) = shlex::split(target) else {
                        bail!(
                            "the command of `{name}` has a quote that is not closed, or ends in a backslash: \
                             `{target}`\n{USAGE}"
                        )
                    };
                    if words.is_empty() {
                        bail!("no command for `{name}`\n{USAGE}");
                    }
                    Target::Command(words)
                };
                options.remotes.push((name.to_owned(), target));
            }
        }
    }
    if options.remotes.is_empty() {
        bail!("no server to serve\n{USAGE}");
    }
    for (name, _) in &options.scopes {
        if !options.remotes.iter().any(|(remote, _)| remote == name) {
            bail!("--scopes names `{name}`, which is no server's name");
        }
    }
    if options.resource.is_some() && options.issuer.is_none() {
        bail!("--resource needs --issuer");
    }
    for (name, _) in &options.token_exchange {
        if !matches!(options.remotes.iter().find(|(remote, _)| remote == name), Some((_, Target::Url(_)))) {
            bail!("--token-exchange names `{name}`, which is no URL remote's name");
        }
        // The gateway acts for the callers it verified, over HTTP.
        if options.issuer.is_none() || options.stdio {
            bail!("--token-exchange needs --issuer, over HTTP: the gateway acts for the callers it verified");
        }
    }
    // Every caller would reach every remote with the gateway's credentials.
    let wide = !options.stdio && !options.addr().ip().is_loopback();
    if wide && options.issuer.is_none() && !options.allow_unauthenticated {
        bail!(
            "{} is reachable from other hosts, and every caller would reach every server behind the gateway: \
             protect it with --issuer URL, or say --allow-unauthenticated",
            options.addr()
        );
    }
    Ok(Invocation::Serve(Box::new(options)))
}

/// Connects to the remote, which lists what it serves; an `https://` one
/// trusting `roots` (PEM) besides the platform's, a URL one authorized as
/// [`oauth`] says.
async fn connect(
    name: &str,
    target: &Target,
    roots: Option<&[u8]>,
    token_file: Option<&str>,
) -> anyhow::Result<Remote> {
    let client = match target {
        Target::Url(url) => {
            let client = match roots {
                Some(roots) => Client::http(url.clone()).root_certificates(roots)?,
                None => Client::http(url.clone()),
            };
            client.oauth(oauth(name, token_file))
        }
        Target::Command(words) => {
            let mut command = tokio::process::Command::new(&words[0]);
            command.args(&words[1..]);
            Client::spawn(command)?
        }
    };
    let remote = Remote::connect(client).await.map_err(|error| match error {
        // No person at a gateway to send to an authorization page.
        Error::Authorization(why) => anyhow::anyhow!(
            "{why}: give the gateway client credentials (MCP_{}_CLIENT_ID and _CLIENT_SECRET), or log in with \
             `mcp login URL` and give it --token-file",
            env_name(name)
        ),
        other => other.into(),
    });
    let remote = remote.with_context(|| format!("connecting to `{name}`"))?;
    let protocol = remote.client().protocol_version().await?;
    tracing::info!(
        remote = name,
        protocol,
        tools = remote.tools().len(),
        prompts = remote.prompts().len(),
        resources = remote.resources().len(),
        "mounted"
    );
    Ok(remote)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = match parse_args(&std::env::args().skip(1).collect::<Vec<_>>())? {
        Invocation::Serve(options) => options,
        Invocation::Help => {
            use std::io::Write as _;
            writeln!(std::io::stdout(), "{USAGE}")?;
            return Ok(());
        }
    };
    let _telemetry = observability::init("gateway")?;
    let mut builder = mcp_runtime::Server::builder("gateway", env!("CARGO_PKG_VERSION"))
        .instructions("A gateway: each server's tools, prompts and resources under its name.");
    let roots = match &options.root_certificates {
        Some(path) => Some(std::fs::read(path).with_context(|| format!("reading --root-certificates {path}"))?),
        None => None,
    };
    for (name, target) in &options.remotes {
        let mut remote = connect(name, target, roots.as_deref(), options.token_file.as_deref()).await?;
        if let Some((_, scopes)) = options.scopes.iter().find(|(mount, _)| mount == name) {
            remote = remote.scopes(scopes.clone());
        }
        if let (Some((_, endpoint)), Target::Url(url)) =
            (options.token_exchange.iter().find(|(mount, _)| mount == name), target)
        {
            let Some((id, secret)) = client_credentials(name) else {
                bail!(
                    "--token-exchange {name}=…: give the gateway its client credentials at that authorization \
                     server (MCP_{}_CLIENT_ID and _CLIENT_SECRET, or MCP_CLIENT_ID and MCP_CLIENT_SECRET)",
                    env_name(name)
                );
            };
            let mut exchange = TokenExchange::new(endpoint.clone(), id, secret).resource(url.clone());
            // The scopes the gateway demands of the caller for this mount are those it asks for.
            if let Some((_, scopes)) = options.scopes.iter().find(|(mount, _)| mount == name) {
                exchange = exchange.scope(scopes.join(" "));
            }
            remote = remote.token_exchange(exchange);
        }
        builder = if name.is_empty() { builder.proxy(remote) } else { builder.mount_remote(name.clone(), remote) };
    }
    if let Some(issuer) = &options.issuer {
        let resource = options.resource.clone().unwrap_or_else(|| match &options.public_url {
            Some(url) => format!("{url}/mcp"),
            None => format!("http://{}/mcp", options.addr()),
        });
        builder = builder.authorization(Authorization::new(issuer.clone(), resource));
    }
    if options.tool_search {
        builder = builder.tool_search(mcp_runtime::search::ToolSearch::bm25());
    }
    let server = builder.build()?;
    if options.stdio {
        server.serve_stdio().await?;
    } else {
        let mut config = HttpConfig::default();
        if let Some(url) = &options.public_url {
            config = config.public_url(url);
        }
        if options.trusted_proxies > 0 {
            config = config.trusted_proxies(options.trusted_proxies, ForwardedHeader::XForwardedFor);
        }
        server.serve_http_with(options.addr(), config).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> Vec<String> {
        line.iter().map(|s| (*s).to_owned()).collect()
    }

    /// What `line` serves.
    fn served(line: &[&str]) -> anyhow::Result<Options> {
        match parse_args(&args(line))? {
            Invocation::Serve(options) => Ok(*options),
            Invocation::Help => anyhow::bail!("the usage asked for"),
        }
    }

    #[test]
    fn a_command_is_split_as_a_shell_would_so_a_path_may_hold_spaces() {
        let options = served(&[
            r#"a='/opt/my tools/server' --stdio"#,
            r#"b="/srv/it's here/bin" --name "x y""#,
            r"c=/a\ b/server",
        ])
        .expect("valid");
        let commands: Vec<&Target> = options.remotes.iter().map(|(_, target)| target).collect();
        assert_eq!(
            commands,
            [
                &Target::Command(vec!["/opt/my tools/server".into(), "--stdio".into()]),
                &Target::Command(vec!["/srv/it's here/bin".into(), "--name".into(), "x y".into()]),
                &Target::Command(vec!["/a b/server".into()]),
            ]
        );
        let message = served(&["a='/opt/my tools/server --stdio"]).expect_err("unclosed").to_string();
        assert!(message.contains("a quote that is not closed"), "{message}");
    }

    #[test]
    fn help_anywhere_asks_for_the_usage_alone() {
        assert_eq!(parse_args(&args(&["--help"])).expect("help"), Invocation::Help);
        assert_eq!(parse_args(&args(&["--http", "0.0.0.0:1", "-h"])).expect("help"), Invocation::Help);
        assert!(USAGE.contains("--allow-unauthenticated") && USAGE.contains("'/opt/my docs/server'"));
    }

    #[test]
    fn remotes_are_commands_or_urls_by_name() {
        let options = served(&["--http", "127.0.0.1:0", "a=server --stdio", "b=http://h:1/mcp"]).expect("valid");
        assert_eq!(options.addr(), "127.0.0.1:0".parse::<SocketAddr>().expect("an address"));
        assert_eq!(
            options.remotes,
            [
                ("a".to_owned(), Target::Command(vec!["server".into(), "--stdio".into()])),
                ("b".to_owned(), Target::Url("http://h:1/mcp".into())),
            ]
        );
        for (bad, says) in [
            (&["--http"][..], "needs an address"),
            (&["x"], "NAME=TARGET"),
            (&[], "no server"),
            (&["a= "], "no command"),
            (&["--scopes", "b=x", "a=server"], "no server's name"),
            (&["--resource", "http://g/mcp", "a=server"], "needs --issuer"),
        ] {
            let message = served(bad).expect_err("refused").to_string();
            assert!(message.contains(says), "{bad:?}: {message}");
        }
    }

    #[test]
    fn a_wide_bind_needs_authentication_or_to_be_told_it_has_none() {
        let wide = ["--http", "0.0.0.0:3000", "a=server"];
        let message = served(&wide).expect_err("refused").to_string();
        assert!(message.contains("--issuer") && message.contains("--allow-unauthenticated"), "{message}");
        let protected = served(&[&wide[..], &["--issuer", "https://auth.example"]].concat()).expect("valid");
        assert_eq!(protected.issuer.as_deref(), Some("https://auth.example"));
        served(&[&wide[..], &["--allow-unauthenticated"]].concat()).expect("told so");
        served(&["--stdio", "a=server"]).expect("stdio has one client");
        let scoped = served(&["a=server", "--scopes", "a=x:read,x:write"]).expect("valid");
        assert_eq!(scoped.scopes, [("a".to_owned(), vec!["x:read".to_owned(), "x:write".to_owned()])]);
    }

    #[test]
    fn a_token_exchange_is_for_a_url_remote_of_a_gateway_that_verifies_its_callers() {
        let exchange = ["--token-exchange", "w=https://auth.example/token"];
        let line = [&exchange[..], &["--issuer", "https://auth.example", "w=https://w.example/mcp"]].concat();
        let options = served(&line).expect("valid");
        assert_eq!(options.token_exchange, [("w".to_owned(), "https://auth.example/token".to_owned())]);
        for (bad, says) in [
            (vec!["--token-exchange", "w"], "NAME=TOKEN_ENDPOINT"),
            (vec!["--token-exchange", "w=token", "--issuer", "https://a", "w=https://w/mcp"], "not a URL"),
            (vec!["--token-exchange", "w=https://a/token", "w=https://w/mcp"], "needs --issuer"),
            (
                vec!["--token-exchange", "w=https://a/token", "--issuer", "https://a", "--stdio", "w=https://w/mcp"],
                "over HTTP",
            ),
            (
                vec!["--token-exchange", "w=https://a/token", "--issuer", "https://a", "w=server --stdio"],
                "no URL remote",
            ),
            (
                vec!["--token-exchange", "v=https://a/token", "--issuer", "https://a", "w=https://w/mcp"],
                "no URL remote",
            ),
        ] {
            let message = served(&bad).expect_err("refused").to_string();
            assert!(message.contains(says), "{bad:?}: {message}");
        }
    }
}
