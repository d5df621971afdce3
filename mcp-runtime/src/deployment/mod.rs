//! How a server is deployed, read from its command line and its `MCP_*`
//! environment variables, so that one binary runs on a laptop, in a
//! container and as many replicas behind a balancer without a rebuild.
//!
//! [`ServerBuilder::serve`](crate::ServerBuilder::serve) is the whole of it for a server with no
//! arguments of its own:
//!
//! ```no_run
//! #[mcp_runtime::main(logging)]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // `--stdio`, `--http ADDR`, `MCP_REDIS_URL`, `MCP_REQUEST_STATE_KEY`, `--help`...
//!     mcp_runtime::server!().serve().await?;
//!     Ok(())
//! }
//! ```
//!
//! A server with arguments of its own parses the deployment first and
//! reads what it left ([`Deployment::args`]):
//!
//! ```no_run
//! use mcp_runtime::deployment::Deployment;
//!
//! #[mcp_runtime::main(logging)]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let deployment = Deployment::from_process()?;
//!     let db = match deployment.args() {
//!         [] => "app.db".to_owned(),
//!         [flag, path] if flag == "--db" => path.clone(),
//!         _ => return Err(format!("usage: app [--db PATH]\n\n{}", Deployment::usage()).into()),
//!     };
//!     # let _ = db;
//!     deployment.serve(mcp_runtime::server!()).await?;
//!     Ok(())
//! }
//! ```
//!
//! The settings, each a flag and the variable beside it (the flag wins; an
//! empty variable is unset). Secrets are read from variables only, since
//! flags show in `ps`:
//!
//! | Flag | Variable | Default | |
//! |---|---|---|---|
//! | `--stdio` | | off | One client on stdin and stdout instead of HTTP. |
//! | `--http ADDR` | `MCP_HTTP_ADDR` | `127.0.0.1:3000` | Where to listen for HTTP. |
//! | `--redis URL` | `MCP_REDIS_URL` | none | Redis the replicas share: change events, tasks, 2025-era sessions (feature `redis`). |
//! | | `MCP_REQUEST_STATE_KEY` | random per process | The key sealing `requestState`, the same on every replica (at least 32 bytes). |
//! | | `MCP_REQUEST_STATE_PREVIOUS_KEY` | none | The key it replaces, during a rotation. |
//! | `--public-url URL` | `MCP_PUBLIC_URL` | none | The URL clients use ([`HttpConfig::public_url`]). |
//! | `--trusted-proxies N` | `MCP_TRUSTED_PROXIES` | `0` | Proxies in front appending to `X-Forwarded-For`. |
//! | `--health`, `--no-health` | `MCP_HEALTH` | off | `GET /healthz` and `/readyz`. |
//! | `--shutdown-drain SECONDS` | `MCP_SHUTDOWN_DRAIN` | `0` | Serving on once shutdown begins. |
//! | `--eras ERAS` | `MCP_ERAS` | `dual` | `stateless`, `session` or `dual`. |
//! | `--issuer URL` | `MCP_OAUTH_ISSUER` | none | Bearer tokens from this authorization server (feature `auth`). |
//! | `--resource URI` | `MCP_OAUTH_RESOURCE` | from the public URL | The audience tokens must name. |
//! | | `MCP_OAUTH_CLIENT_ID`, `MCP_OAUTH_CLIENT_SECRET` | none | Credentials to introspect opaque tokens. |
//! | `--dpop MODE` | `MCP_OAUTH_DPOP` | `off` | DPoP-bound tokens: `off`, `on` (beside bearer tokens) or `required` (`auth::Dpop`); with `--redis`, replicas share the proofs seen. |
//! | | `MCP_OAUTH_DPOP_NONCE_SECRET` | none | Demand DPoP server nonces, made with this secret (the same on every replica, at least 32 bytes). |
//! | `--oauth-proxy URL` | `MCP_OAUTH_PROXY_UPSTREAM` | none | Serve an OAuth front (`oauth_proxy::OAuthProxy`, feature `oauth-proxy`) at `<origin>/oauth`, relaying people to this OpenID Connect provider; tokens are the front's own. Not with `--issuer`. |
//! | | `MCP_OAUTH_PROXY_CLIENT_ID`, `MCP_OAUTH_PROXY_CLIENT_SECRET` | none | The front's client at the provider (required with `--oauth-proxy`); its redirect URI is `<origin>/oauth/callback`. |
//! | | `MCP_OAUTH_PROXY_GRANT` | none | The scopes granted to everyone the provider signs in (space-separated); without it, none. With `--redis`, the replicas share the front's clients, grants and key. |
//! | `--tls-cert PEM`, `--tls-key PEM` | `MCP_TLS_CERT`, `MCP_TLS_KEY` | none | HTTPS (feature `tls`). |
//! | `--dump-catalog[=PATH]` | | | Write the catalog snapshot and exit. |
//!
//! A setting whose feature the server is built without is an error, not
//! ignored: a deployment that asks for Redis gets Redis or does not start.
#![cfg_attr(not(feature = "http"), doc = "\n\n[`HttpConfig::public_url`]: mod@crate::server")]
#![cfg_attr(feature = "http", doc = "\n\n[`HttpConfig::public_url`]: crate::transport::http::HttpConfig::public_url")]

mod error;
mod serve;
mod values;

use std::collections::BTreeMap;
use std::ffi::OsString;
#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use error::{DeploymentError, ServeError};

use crate::input::request_state::RequestStateKey;
use crate::registry::catalog_dump::CatalogDump;
use crate::server::Eras;

/// Where the server listens when neither `--http` nor `MCP_HTTP_ADDR` says.
pub const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:3000";

/// Every variable a deployment reads; any other is left alone.
pub const VARIABLES: [&str; 21] = [
    "MCP_HTTP_ADDR",
    "MCP_REDIS_URL",
    "MCP_REQUEST_STATE_KEY",
    "MCP_REQUEST_STATE_PREVIOUS_KEY",
    "MCP_PUBLIC_URL",
    "MCP_TRUSTED_PROXIES",
    "MCP_HEALTH",
    "MCP_SHUTDOWN_DRAIN",
    "MCP_ERAS",
    "MCP_OAUTH_ISSUER",
    "MCP_OAUTH_RESOURCE",
    "MCP_OAUTH_CLIENT_ID",
    "MCP_OAUTH_CLIENT_SECRET",
    "MCP_OAUTH_DPOP",
    "MCP_OAUTH_DPOP_NONCE_SECRET",
    "MCP_OAUTH_PROXY_UPSTREAM",
    "MCP_OAUTH_PROXY_CLIENT_ID",
    "MCP_OAUTH_PROXY_CLIENT_SECRET",
    "MCP_OAUTH_PROXY_GRANT",
    "MCP_TLS_CERT",
    "MCP_TLS_KEY",
];

/// The flags that take a value: the flag, the variable beside it, what the
/// value is, and whether this build has the feature it needs (its name).
const VALUED: [(&str, &str, &str, Feature); 13] = [
    ("--http", "MCP_HTTP_ADDR", "an address such as 127.0.0.1:3000", HTTP),
    ("--redis", "MCP_REDIS_URL", "a URL such as redis://127.0.0.1:6379/", ("redis", cfg!(feature = "redis"))),
    ("--public-url", "MCP_PUBLIC_URL", "a URL such as https://mcp.example.com", HTTP),
    ("--trusted-proxies", "MCP_TRUSTED_PROXIES", "a number of proxies", HTTP),
    ("--shutdown-drain", "MCP_SHUTDOWN_DRAIN", "a number of seconds", HTTP),
    ("--eras", "MCP_ERAS", "stateless, session or dual", ("", true)),
    ("--issuer", "MCP_OAUTH_ISSUER", "the URL of an authorization server", AUTH),
    ("--resource", "MCP_OAUTH_RESOURCE", "this server's URI, such as https://mcp.example.com/mcp", AUTH),
    ("--dpop", "MCP_OAUTH_DPOP", "off, on or required", AUTH),
    ("--oauth-proxy", "MCP_OAUTH_PROXY_UPSTREAM", "the issuer URL of an OpenID Connect provider", PROXY),
    ("--tls-cert", "MCP_TLS_CERT", "a PEM certificate chain file", TLS),
    ("--tls-key", "MCP_TLS_KEY", "a PEM private key file", TLS),
    ("--health", "MCP_HEALTH", "", HTTP),
];

/// A Cargo feature's name, and whether this build has it.
type Feature = (&'static str, bool);
const HTTP: Feature = ("http", cfg!(feature = "http"));
const AUTH: Feature = ("auth", cfg!(feature = "auth"));
const TLS: Feature = ("tls", cfg!(feature = "tls"));
const PROXY: Feature = ("oauth-proxy", cfg!(feature = "oauth-proxy"));

/// How a server is served: what its command line and `MCP_*` variables
/// say (see the [module](self) for the table). Read with
/// [`from_process`](Self::from_process) (or [`parse`](Self::parse) in a
/// test), then [`serve`](Self::serve) a builder with it.
///
/// ```
/// use mcp_runtime::deployment::{Deployment, Transport};
///
/// let deployment = Deployment::parse(["--http", "0.0.0.0:8080", "--db", "x.db"], [("MCP_HEALTH", "1")])?;
/// assert_eq!(deployment.transport(), Transport::Http("0.0.0.0:8080".parse()?));
/// assert_eq!(deployment.args(), ["--db", "x.db"], "what is no deployment setting is left");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Deployment {
    transport: Transport,
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    redis_url: Option<String>,
    request_state_key: Option<RequestStateKey>,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    http: HttpSettings,
    eras: Option<Eras>,
    dump_catalog: Option<CatalogDump>,
    #[cfg(feature = "auth")]
    authorization: Option<crate::auth::Authorization>,
    #[cfg(feature = "oauth-proxy")]
    oauth_proxy: Option<crate::oauth_proxy::OAuthProxy>,
    help: bool,
    args: Vec<String>,
}

/// What only the HTTP transport reads.
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
struct HttpSettings {
    public_url: Option<String>,
    trusted_proxies: usize,
    health: bool,
    shutdown_drain: Duration,
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    tls: Option<(PathBuf, PathBuf)>,
}

/// Which transport a [`Deployment`] serves over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// Streamable HTTP, listening here.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    Http(SocketAddr),
    /// One client on stdin and stdout (`--stdio`).
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    Stdio,
}

/// A setting's text and where it came from (the flag, or the variable).
type Given = BTreeMap<&'static str, (&'static str, String)>;

impl Deployment {
    /// The deployment of this process: its arguments (after the program
    /// name) and the [`VARIABLES`] of its environment.
    ///
    /// An argument or a variable that is not UTF-8 is an error naming it.
    pub fn from_process() -> Result<Self, DeploymentError> {
        let mut vars = Vec::new();
        for name in VARIABLES {
            if let Some(value) = std::env::var_os(name) {
                vars.push((name, unicode(name, value)?));
            }
        }
        let args = std::env::args_os().skip(1).map(|arg| unicode("an argument", arg)).collect::<Result<Vec<_>, _>>()?;
        Self::parse(args, vars)
    }

    /// The deployment `args` (without the program name) and `vars` (name,
    /// value) say; variables other than the [`VARIABLES`] are ignored.
    /// Flags win over variables; arguments that are no setting are kept,
    /// in order, for [`args`](Self::args).
    ///
    /// A value that does not read, a flag without its value, settings that
    /// contradict each other, and a setting whose feature this build lacks
    /// are errors naming the flag or variable.
    pub fn parse<A, V, K, S>(args: A, vars: V) -> Result<Self, DeploymentError>
    where
        A: IntoIterator,
        A::Item: Into<String>,
        V: IntoIterator<Item = (K, S)>,
        K: AsRef<str>,
        S: Into<String>,
    {
        let mut given = Given::new();
        // The variables as set, untrimmed: a secret is read as it is.
        let mut raw = BTreeMap::new();
        for (name, value) in vars {
            let Some(name) = VARIABLES.iter().find(|v| **v == name.as_ref()) else { continue };
            let value: String = value.into();
            if value.trim().is_empty() {
                continue;
            }
            raw.insert(*name, value.clone());
            given.insert(name, (name, value.trim().to_owned()));
        }
        let (mut help, mut stdio, mut dump_catalog, mut rest) = (false, None, None, Vec::new());
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            if let Some(dump) = CatalogDump::from_args([arg.as_str()]) {
                dump_catalog = Some(dump);
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
                _ => (arg.as_str(), None),
            };
            match flag {
                "--help" | "-h" => help = true,
                "--stdio" => stdio = Some("--stdio"),
                "--health" => _ = given.insert("MCP_HEALTH", ("--health", "1".into())),
                "--no-health" => _ = given.insert("MCP_HEALTH", ("--no-health", "0".into())),
                _ => match VALUED.iter().find(|(name, _, what, _)| *name == flag && !what.is_empty()) {
                    Some((name, variable, what, _)) => {
                        let value = match inline.or_else(|| args.next()) {
                            Some(value) => value,
                            None => return Err(invalid(name, format!("needs {what}"))),
                        };
                        given.insert(variable, (name, value.trim().to_owned()));
                    }
                    None => rest.push(arg),
                },
            }
        }
        for (_, variable, _, (feature, compiled)) in VALUED {
            if let (Some((setting, _)), false) = (given.get(variable), compiled) {
                return Err(DeploymentError::NeedsFeature { setting, feature });
            }
        }
        let http = HttpSettings {
            public_url: read(&given, "MCP_PUBLIC_URL", values::public_url)?,
            trusted_proxies: read(&given, "MCP_TRUSTED_PROXIES", values::hops)?.unwrap_or(0),
            health: read(&given, "MCP_HEALTH", values::switch)?.unwrap_or(false),
            shutdown_drain: read(&given, "MCP_SHUTDOWN_DRAIN", values::seconds)?.unwrap_or_default(),
            tls: match (given.get("MCP_TLS_CERT"), given.get("MCP_TLS_KEY")) {
                (Some((_, cert)), Some((_, key))) => Some((cert.into(), key.into())),
                (None, None) => None,
                (Some((setting, _)), None) | (None, Some((setting, _))) => {
                    let reason = "--tls-cert (MCP_TLS_CERT) and --tls-key (MCP_TLS_KEY) go together";
                    return Err(invalid(setting, reason.into()));
                }
            },
        };
        let transport = transport(stdio, given.get("MCP_HTTP_ADDR"))?;
        let eras = read(&given, "MCP_ERAS", values::eras)?;
        let redis_url = read(&given, "MCP_REDIS_URL", values::redis)?;
        let request_state_key = RequestStateKey::from_variables(|name| raw.get(name).cloned()).map_err(key_error)?;
        #[cfg(feature = "auth")]
        let authorization = authorization(&given, &raw, &http, transport)?;
        #[cfg(not(feature = "auth"))]
        for variable in ["MCP_OAUTH_CLIENT_ID", "MCP_OAUTH_CLIENT_SECRET", "MCP_OAUTH_DPOP_NONCE_SECRET"] {
            if raw.contains_key(variable) {
                return Err(DeploymentError::NeedsFeature { setting: variable, feature: "auth" });
            }
        }
        #[cfg(feature = "oauth-proxy")]
        let oauth_proxy = oauth_proxy(&given, &raw, &http, transport)?;
        #[cfg(feature = "oauth-proxy")]
        if let (Some(_), Some(_)) = (&oauth_proxy, &authorization) {
            let reason = "the OAuth front issues the tokens itself: leave out --issuer (MCP_OAUTH_ISSUER)";
            return Err(invalid("--oauth-proxy", reason.into()));
        }
        #[cfg(not(feature = "oauth-proxy"))]
        for variable in ["MCP_OAUTH_PROXY_CLIENT_ID", "MCP_OAUTH_PROXY_CLIENT_SECRET", "MCP_OAUTH_PROXY_GRANT"] {
            if raw.contains_key(variable) {
                return Err(DeploymentError::NeedsFeature { setting: variable, feature: "oauth-proxy" });
            }
        }
        Ok(Deployment {
            transport,
            redis_url,
            request_state_key,
            http,
            eras,
            dump_catalog,
            #[cfg(feature = "auth")]
            authorization,
            #[cfg(feature = "oauth-proxy")]
            oauth_proxy,
            help,
            args: rest,
        })
    }

    /// The transport it serves over: HTTP at `--http` (or `MCP_HTTP_ADDR`,
    /// else [`DEFAULT_HTTP_ADDR`]) unless `--stdio` is given (or the server
    /// is built without the `http` feature).
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The arguments that are no deployment setting, in the order given:
    /// the server's own.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// Whether `--help` (or `-h`) was given. [`serve`](Self::serve) then
    /// prints [`usage`](Self::usage) and returns without serving; a server
    /// with arguments of its own prints its own first.
    pub fn wants_help(&self) -> bool {
        self.help
    }

    /// Whether `--dump-catalog` was given: [`serve`](Self::serve) then
    /// writes the catalog snapshot and returns, without connecting to Redis
    /// or binding a port. A server can skip its own setup too (opening a
    /// database, say).
    pub fn dumps_catalog(&self) -> bool {
        self.dump_catalog.is_some()
    }

    /// The Redis URL replicas share (`--redis`, `MCP_REDIS_URL`), if any: a
    /// server that keeps something of its own per process (tasks in a
    /// file, say) keeps it in Redis instead when there is one.
    pub fn redis_url(&self) -> Option<&str> {
        self.redis_url.as_deref()
    }

    /// The settings this build understands, a line each, for `--help`.
    pub fn usage() -> String {
        usage()
    }
}

impl std::fmt::Debug for Deployment {
    // Secrets (the `requestState` key, introspection credentials) are not shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deployment")
            .field("transport", &self.transport)
            .field("redis_url", &self.redis_url)
            .field("request_state_key", &self.request_state_key.as_ref().map(|_| "(set)"))
            .field("http", &self.http)
            .field("eras", &self.eras)
            .field("dump_catalog", &self.dump_catalog)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// The value of `variable` (given by it or by its flag) as `reader` reads
/// it, or an error naming where it came from.
fn read<T>(given: &Given, variable: &str, reader: fn(&str) -> Result<T, String>) -> Result<Option<T>, DeploymentError> {
    given.get(variable).map(|(setting, text)| reader(text).map_err(|reason| invalid(setting, reason))).transpose()
}

fn invalid(setting: &'static str, reason: String) -> DeploymentError {
    DeploymentError::Invalid { setting, reason }
}

/// A `requestState` key error, named by the variable it is about (its
/// reason begins with that name).
fn key_error(reason: String) -> DeploymentError {
    let setting = if reason.starts_with(RequestStateKey::PREVIOUS_KEY_ENV) {
        RequestStateKey::PREVIOUS_KEY_ENV
    } else {
        RequestStateKey::KEY_ENV
    };
    let reason = reason.strip_prefix(setting).and_then(|r| r.strip_prefix(": ")).map(str::to_owned).unwrap_or(reason);
    invalid(setting, reason)
}

fn unicode(name: &'static str, value: OsString) -> Result<String, DeploymentError> {
    value.into_string().map_err(|value| invalid(name, format!("{value:?} is not valid UTF-8")))
}

/// HTTP at the address given (or the default), or stdio when asked, as the
/// build allows.
#[cfg_attr(not(feature = "http"), allow(unused_variables))]
fn transport(stdio: Option<&'static str>, http: Option<&(&'static str, String)>) -> Result<Transport, DeploymentError> {
    match (stdio, http) {
        #[cfg(feature = "stdio")]
        (Some(_), Some(("--http", _))) => Err(invalid("--stdio", "and --http: serve one or the other".into())),
        #[cfg(feature = "stdio")]
        (Some(_), _) => Ok(Transport::Stdio),
        #[cfg(not(feature = "stdio"))]
        (Some(setting), _) => Err(DeploymentError::NeedsFeature { setting, feature: "stdio" }),
        #[cfg(feature = "http")]
        (None, Some((setting, text))) => values::address(text).map(Transport::Http).map_err(|r| invalid(setting, r)),
        #[cfg(feature = "http")]
        (None, None) => Ok(Transport::Http(DEFAULT_HTTP_ADDR.parse().expect("a valid default address"))),
        #[cfg(not(feature = "http"))]
        (None, _) => Ok(Transport::Stdio),
    }
}

/// The authorization server HTTP requests need tokens from, and the
/// resource they must name: the public URL's when there is one (a base URL
/// names the server, one with a path the endpoint), else the listen
/// address's.
#[cfg(feature = "auth")]
fn authorization(
    given: &Given,
    raw: &BTreeMap<&str, String>,
    http: &HttpSettings,
    transport: Transport,
) -> Result<Option<crate::auth::Authorization>, DeploymentError> {
    let resource = given.get("MCP_OAUTH_RESOURCE").map(|(_, r)| r.clone());
    let Some((_, issuer)) = given.get("MCP_OAUTH_ISSUER") else {
        let alone = ["MCP_OAUTH_RESOURCE", "MCP_OAUTH_DPOP"].iter().find_map(|variable| given.get(variable));
        return match alone {
            Some((setting, _)) => Err(invalid(setting, "needs --issuer (MCP_OAUTH_ISSUER)".into())),
            None => Ok(None),
        };
    };
    let resource = resource.unwrap_or_else(|| resource_uri(http, transport));
    let mut authorization = crate::auth::Authorization::new(issuer.clone(), resource);
    if let (Some(id), Some(secret)) = (raw.get("MCP_OAUTH_CLIENT_ID"), raw.get("MCP_OAUTH_CLIENT_SECRET")) {
        authorization = authorization.introspection_credentials(id.trim(), secret.as_str());
    }
    if let Some(dpop) = dpop(given, raw)? {
        authorization = authorization.dpop(dpop);
    }
    Ok(Some(authorization))
}

/// The URI of this server's MCP endpoint as clients reach it: the public
/// URL's when there is one (a base URL names the server, one with a path
/// the endpoint), else the listen address's.
#[cfg(feature = "auth")]
fn resource_uri(http: &HttpSettings, transport: Transport) -> String {
    match (&http.public_url, transport) {
        (Some(url), _) if url.split_once("://").is_some_and(|(_, rest)| rest.contains('/')) => url.clone(),
        (Some(url), _) => format!("{url}/mcp"),
        (None, Transport::Http(addr)) => format!("http://{addr}/mcp"),
        #[allow(unreachable_patterns)]
        (None, _) => format!("http://{DEFAULT_HTTP_ADDR}/mcp"),
    }
}

/// The OAuth front `--oauth-proxy` asks for: at `<origin>/oauth` of the
/// resource, the provider's client from the environment, the scopes of
/// `MCP_OAUTH_PROXY_GRANT` for everyone the provider signs in.
#[cfg(feature = "oauth-proxy")]
fn oauth_proxy(
    given: &Given,
    raw: &BTreeMap<&str, String>,
    http: &HttpSettings,
    transport: Transport,
) -> Result<Option<crate::oauth_proxy::OAuthProxy>, DeploymentError> {
    use crate::oauth_proxy::{OAuthProxy, Upstream};

    let Some((_, upstream)) = given.get("MCP_OAUTH_PROXY_UPSTREAM") else {
        let alone = ["MCP_OAUTH_PROXY_CLIENT_ID", "MCP_OAUTH_PROXY_CLIENT_SECRET", "MCP_OAUTH_PROXY_GRANT"];
        return match alone.into_iter().find(|variable| raw.contains_key(variable)) {
            Some(variable) => Err(invalid(variable, "needs --oauth-proxy (MCP_OAUTH_PROXY_UPSTREAM)".into())),
            None => Ok(None),
        };
    };
    let (Some(id), Some(secret)) = (raw.get("MCP_OAUTH_PROXY_CLIENT_ID"), raw.get("MCP_OAUTH_PROXY_CLIENT_SECRET"))
    else {
        let reason =
            "needs MCP_OAUTH_PROXY_CLIENT_ID and MCP_OAUTH_PROXY_CLIENT_SECRET, the front's client at the provider";
        return Err(invalid("--oauth-proxy", reason.into()));
    };
    let resource = given.get("MCP_OAUTH_RESOURCE").map_or_else(|| resource_uri(http, transport), |(_, r)| r.clone());
    let origin = crate::auth::discovery::split_origin(&resource).0.to_owned();
    let grant: Vec<String> =
        raw.get("MCP_OAUTH_PROXY_GRANT").map(|g| g.split_whitespace().map(str::to_owned).collect()).unwrap_or_default();
    let proxy = OAuthProxy::new(format!("{origin}/oauth"), resource, Upstream::new(upstream, id.trim(), secret))
        .scopes_supported(grant.clone())
        .grant_scopes(move |_| grant.clone());
    Ok(Some(proxy))
}

/// DPoP as `--dpop` and the nonce secret say; `None` for off.
#[cfg(feature = "auth")]
fn dpop(given: &Given, raw: &BTreeMap<&str, String>) -> Result<Option<crate::auth::Dpop>, DeploymentError> {
    let mode = given.get("MCP_OAUTH_DPOP");
    let mut dpop = match mode.map(|(setting, value)| (*setting, value.as_str())) {
        None | Some((_, "off")) => None,
        Some((_, "on")) => Some(crate::auth::Dpop::new()),
        Some((_, "required")) => Some(crate::auth::Dpop::new().required()),
        Some((setting, other)) => return Err(invalid(setting, format!("`{other}` is not off, on or required"))),
    };
    if let Some(secret) = raw.get("MCP_OAUTH_DPOP_NONCE_SECRET") {
        const SETTING: &str = "MCP_OAUTH_DPOP_NONCE_SECRET";
        if secret.len() < 32 {
            return Err(invalid(SETTING, "must be at least 32 bytes, the same on every replica".into()));
        }
        let Some(with) = dpop.take() else {
            return Err(invalid(SETTING, "needs --dpop on or --dpop required (MCP_OAUTH_DPOP)".into()));
        };
        dpop = Some(with.nonces(secret.as_bytes()));
    }
    Ok(dpop)
}

/// The `--help` text: the settings this build understands.
pub(crate) fn usage() -> String {
    let lines: [(&str, bool); 21] = [
        ("--stdio                      serve one client on stdin and stdout", cfg!(feature = "stdio")),
        ("--http ADDR                  MCP_HTTP_ADDR: where to listen (127.0.0.1:3000)", HTTP.1),
        ("--redis URL                  MCP_REDIS_URL: Redis the replicas share", cfg!(feature = "redis")),
        ("                             MCP_REQUEST_STATE_KEY: the requestState key of every replica", true),
        ("                             MCP_REQUEST_STATE_PREVIOUS_KEY: the key it replaces", true),
        ("--public-url URL             MCP_PUBLIC_URL: the URL clients use", HTTP.1),
        ("--trusted-proxies N          MCP_TRUSTED_PROXIES: proxies appending to X-Forwarded-For", HTTP.1),
        ("--health, --no-health        MCP_HEALTH: GET /healthz and /readyz", HTTP.1),
        ("--shutdown-drain SECONDS     MCP_SHUTDOWN_DRAIN: serving on once shutdown begins", HTTP.1),
        ("--eras stateless|session|dual    MCP_ERAS: which clients to serve", true),
        ("--issuer URL                 MCP_OAUTH_ISSUER: bearer tokens from this authorization server", AUTH.1),
        ("--resource URI               MCP_OAUTH_RESOURCE: the audience tokens must name", AUTH.1),
        ("                             MCP_OAUTH_CLIENT_ID, MCP_OAUTH_CLIENT_SECRET: to introspect tokens", AUTH.1),
        ("--dpop off|on|required       MCP_OAUTH_DPOP: DPoP-bound tokens (beside bearer ones, or alone)", AUTH.1),
        ("                             MCP_OAUTH_DPOP_NONCE_SECRET: demand DPoP nonces made with this secret", AUTH.1),
        ("--oauth-proxy URL            MCP_OAUTH_PROXY_UPSTREAM: an OAuth front relaying to this provider", PROXY.1),
        ("                             MCP_OAUTH_PROXY_CLIENT_ID, _CLIENT_SECRET: the front's client there", PROXY.1),
        ("                             MCP_OAUTH_PROXY_GRANT: the scopes everyone signed in gets", PROXY.1),
        ("--tls-cert PEM --tls-key PEM MCP_TLS_CERT, MCP_TLS_KEY: serve HTTPS", TLS.1),
        ("--dump-catalog[=PATH]        write the catalog snapshot and exit", true),
        ("--help                       this text", true),
    ];
    let mut text = String::from("Deployment settings (a flag wins over the variable beside it):\n");
    for (line, _) in lines.iter().filter(|(_, compiled)| *compiled) {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests;
