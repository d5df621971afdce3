//! Deployment settings shared by the `everything` and `notes` examples, from
//! flags and from `MCP_*` environment variables (flags win), so that the
//! same image runs as many replicas behind a load balancer. The table is in
//! the README's "Deployment settings".

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context as _, bail};
use mcp_runtime::auth::Authorization;
use mcp_runtime::redis::RedisBus;
use mcp_runtime::redis::RedisSessionStore;
use mcp_runtime::redis::RedisTaskStore;
use mcp_runtime::transport::http::{ForwardedHeader, HttpConfig};
use mcp_runtime::{
    ServerBuilder,
    server::{CatalogDump, Eras, RequestStateKey},
};

/// The listen address when neither `--http` nor `MCP_HTTP_ADDR` gives one.
pub(crate) const DEFAULT_ADDR: &str = "127.0.0.1:3000";

/// The environment variables read; anything else is ignored.
pub(crate) const VARIABLES: [&str; 15] = [
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
    "MCP_TLS_CERT",
    "MCP_TLS_KEY",
];

/// How the example is deployed.
#[derive(Debug)]
pub(crate) struct Deployment {
    /// Where to listen for HTTP.
    pub(crate) addr: SocketAddr,
    /// Redis shared by the replicas, for change events, tasks and 2025-era
    /// sessions.
    pub(crate) redis_url: Option<String>,
    /// The `requestState` key every replica shares; a random one per process
    /// otherwise.
    pub(crate) request_state_key: Option<RequestStateKey>,
    /// The URL clients reach the server by, whose host the HTTP transport
    /// accepts.
    pub(crate) public_url: Option<String>,
    /// How many proxies in front write the client's address into
    /// `X-Forwarded-For`; none by default.
    pub(crate) trusted_proxies: usize,
    /// Whether `/healthz` and `/readyz` answer.
    pub(crate) health: bool,
    /// How long to keep serving once shutdown begins (readiness already
    /// 503), so that a balancer stops sending before the port closes.
    pub(crate) shutdown_drain: Duration,
    /// Which clients to serve; the runtime's default otherwise.
    pub(crate) eras: Option<Eras>,
    /// `--dump-catalog[=PATH]`: write the catalog and exit instead of
    /// serving (no Redis, no port, no database file).
    pub(crate) dump_catalog: Option<CatalogDump>,
    /// `--issuer`: HTTP requests need a bearer token from this
    /// authorization server.
    pub(crate) oauth: Option<Authorization>,
    /// `--tls-cert` and `--tls-key`: HTTPS, with the certificate chain and
    /// its key from these PEM files (read again when they change).
    pub(crate) tls: Option<(String, String)>,
}

/// The `MCP_*` variables of this process. A value that is not UTF-8 is an
/// error naming its variable, not a silent default.
pub(crate) fn environment() -> anyhow::Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    for name in VARIABLES {
        if let Some(value) = std::env::var_os(name) {
            let value = value.into_string().map_err(|_| anyhow::anyhow!("{name} is not valid UTF-8"))?;
            env.insert(name.to_owned(), value);
        }
    }
    Ok(env)
}

/// Reads the deployment flags out of `args` and the variables of `env`,
/// flags winning, and returns the arguments left for the example itself.
pub(crate) fn parse(args: Vec<String>, env: &BTreeMap<String, String>) -> anyhow::Result<(Deployment, Vec<String>)> {
    let var = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let mut addr = var("MCP_HTTP_ADDR").map(|v| address(v).context("MCP_HTTP_ADDR")).transpose()?;
    let mut redis_url = var("MCP_REDIS_URL").map(|v| redis(v).context("MCP_REDIS_URL")).transpose()?;
    if let Some(url) = var("MCP_PUBLIC_URL") {
        public(url).context("MCP_PUBLIC_URL")?;
    }
    let mut health = var("MCP_HEALTH").map(|v| switch(v).context("MCP_HEALTH")).transpose()?.unwrap_or(false);
    let mut shutdown_drain =
        var("MCP_SHUTDOWN_DRAIN").map(|v| seconds(v).context("MCP_SHUTDOWN_DRAIN")).transpose()?.unwrap_or_default();
    let mut eras = var("MCP_ERAS").map(|v| era(v).context("MCP_ERAS")).transpose()?;
    let mut issuer = var("MCP_OAUTH_ISSUER").map(str::to_owned);
    let mut resource = var("MCP_OAUTH_RESOURCE").map(str::to_owned);
    let mut public_url = var("MCP_PUBLIC_URL").map(|v| v.trim_end_matches('/').to_owned());
    let mut tls_cert = var("MCP_TLS_CERT").map(str::to_owned);
    let mut tls_key = var("MCP_TLS_KEY").map(str::to_owned);
    let mut trusted_proxies =
        var("MCP_TRUSTED_PROXIES").map(|v| hops(v).context("MCP_TRUSTED_PROXIES")).transpose()?.unwrap_or(0);
    // As every server reads them (`ServerBuilder::build`), read here to stop
    // at a bad one before anything starts.
    let request_state_key =
        RequestStateKey::from_variables(|name| env.get(name).cloned()).map_err(anyhow::Error::msg)?;

    let mut rest = Vec::new();
    let mut dump_catalog = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if let Some(dump) = CatalogDump::from_args([arg.as_str()]) {
            dump_catalog = Some(dump);
            continue;
        }
        let mut value = |what: &str| args.next().with_context(|| format!("{arg} needs {what}"));
        match arg.as_str() {
            "--http" => addr = Some(address(&value("an address such as 127.0.0.1:3000")?).context("--http")?),
            "--redis" => redis_url = Some(redis(&value("a URL such as redis://127.0.0.1:6379/")?).context("--redis")?),
            "--public-url" => {
                let url = value("a URL such as https://mcp.example.com")?;
                public(&url).context("--public-url")?;
                public_url = Some(url.trim_end_matches('/').to_owned());
            }
            "--eras" => eras = Some(era(&value("modern, legacy or dual")?).context("--eras")?),
            "--trusted-proxies" => {
                trusted_proxies = hops(&value("a number of proxies")?).context("--trusted-proxies")?;
            }
            "--issuer" => issuer = Some(value("the URL of an authorization server")?),
            "--resource" => resource = Some(value("this server's URI, such as https://mcp.example.com/mcp")?),
            "--tls-cert" => tls_cert = Some(value("a PEM certificate chain file")?),
            "--tls-key" => tls_key = Some(value("a PEM private key file")?),
            "--health" => health = true,
            "--no-health" => health = false,
            "--shutdown-drain" => {
                shutdown_drain = seconds(&value("a number of seconds")?).context("--shutdown-drain")?;
            }
            _ => rest.push(arg),
        }
    }
    let addr = match addr {
        Some(addr) => addr,
        None => DEFAULT_ADDR.parse()?,
    };
    let oauth = match issuer {
        // The resource is where clients reach the endpoint: the public URL's
        // when there is one, else the listen address's.
        Some(issuer) => {
            let resource = resource.unwrap_or_else(|| match &public_url {
                // A base URL names the server; one with a path, the endpoint.
                Some(url) if url.split_once("://").is_some_and(|(_, rest)| rest.contains('/')) => url.clone(),
                Some(url) => format!("{url}/mcp"),
                None => format!("http://{addr}/mcp"),
            });
            let mut auth = Authorization::new(issuer, resource);
            // Secrets come from the environment only: flags show in `ps`.
            if let (Some(id), Some(secret)) = (var("MCP_OAUTH_CLIENT_ID"), env.get("MCP_OAUTH_CLIENT_SECRET")) {
                auth = auth.introspection_credentials(id, secret.as_str());
            }
            Some(auth)
        }
        None if resource.is_some() => bail!("--resource (MCP_OAUTH_RESOURCE) needs --issuer (MCP_OAUTH_ISSUER)"),
        None => None,
    };
    let tls = match (tls_cert, tls_key) {
        (Some(cert), Some(key)) => Some((cert, key)),
        (None, None) => None,
        _ => bail!("--tls-cert (MCP_TLS_CERT) and --tls-key (MCP_TLS_KEY) go together"),
    };
    let deployment = Deployment {
        addr,
        redis_url,
        request_state_key,
        public_url,
        trusted_proxies,
        health,
        shutdown_drain,
        eras,
        dump_catalog,
        oauth,
        tls,
    };
    Ok((deployment, rest))
}

fn address(text: &str) -> anyhow::Result<SocketAddr> {
    text.trim().parse().with_context(|| format!("`{text}` is not an address such as 127.0.0.1:3000"))
}

fn redis(text: &str) -> anyhow::Result<String> {
    let text = text.trim();
    let cluster = ["redis+cluster://", "rediss+cluster://"].iter().any(|scheme| text.starts_with(scheme));
    let nodes = text
        .split(',')
        .all(|node| ["redis://", "rediss://", "unix://"].iter().any(|scheme| node.trim().starts_with(scheme)));
    if !(cluster || nodes) {
        bail!(
            "`{text}` is not a Redis URL (redis://HOST:PORT/, rediss:// or unix://; for a cluster \
             redis+cluster://HOST:PORT,HOST:PORT/)"
        );
    }
    Ok(text.to_owned())
}

/// `https://name[:port][/path]` → `name[:port]`: a URL the server can be
/// reached by, or an error.
fn public(text: &str) -> anyhow::Result<String> {
    let text = text.trim();
    let invalid = || anyhow::anyhow!("`{text}` is not a base URL such as https://mcp.example.com");
    let (scheme, rest) = text.split_once("://").ok_or_else(invalid)?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(invalid());
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() || authority.contains('@') {
        return Err(invalid());
    }
    Ok(authority.to_ascii_lowercase())
}

/// A number of proxies, 0 for none.
fn hops(text: &str) -> anyhow::Result<usize> {
    text.trim().parse().map_err(|_| anyhow::anyhow!("`{text}` is not a number of proxies such as 1"))
}

fn seconds(text: &str) -> anyhow::Result<Duration> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .with_context(|| format!("`{text}` is not a number of seconds such as 5 or 0.5"))
}

fn switch(text: &str) -> anyhow::Result<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => bail!("`{text}` is not 1 or 0"),
    }
}

fn era(text: &str) -> anyhow::Result<Eras> {
    text.parse().map_err(|reason: String| anyhow::anyhow!(reason))
}

/// The Redis side of a deployment, once connected.
pub(crate) struct Shared {
    bus: RedisBus,
    store: RedisSessionStore,
    tasks: RedisTaskStore,
}

impl Deployment {
    /// Connects to Redis when a URL is set; `name` keeps this server's keys
    /// and channels apart from other servers on the same Redis.
    pub(crate) async fn connect(&self, name: &str) -> anyhow::Result<Option<Shared>> {
        let Some(url) = self.redis_url.as_ref().filter(|_| self.dump_catalog.is_none()) else { return Ok(None) };
        let bus = RedisBus::connect(url, &format!("mcp:{name}:events"))
            .await
            .with_context(|| format!("connecting to Redis at {url} (MCP_REDIS_URL)"))?;
        let store = RedisSessionStore::connect(url, &format!("mcp:{name}"))
            .await
            .with_context(|| format!("connecting to Redis at {url} (MCP_REDIS_URL)"))?;
        let tasks = RedisTaskStore::connect(url, &format!("mcp:{name}"))
            .await
            .with_context(|| format!("connecting to Redis at {url} (MCP_REDIS_URL)"))?;
        Ok(Some(Shared { bus, store, tasks }))
    }

    /// The server's share of the settings: the `requestState` key, the
    /// eras, the authorization server, the event bus and the task store,
    /// and a catalog dump instead of serving.
    pub(crate) fn server(&self, mut builder: ServerBuilder, shared: Option<&Shared>) -> ServerBuilder {
        if let Some(dump) = &self.dump_catalog {
            builder = builder.dump_catalog(dump.clone());
        }
        if let Some(key) = &self.request_state_key {
            builder = builder.request_state_key(key.clone());
        }
        if let Some(eras) = self.eras {
            builder = builder.eras(eras);
        }
        if let Some(auth) = &self.oauth {
            builder = builder.authorization(auth.clone());
        }
        if let Some(shared) = shared {
            builder = builder.event_bus(shared.bus.clone()).task_store(shared.tasks.clone());
        }
        builder
    }

    /// The HTTP transport's share: the public URL, the proxies in front, the
    /// probes, and the session store.
    pub(crate) fn http_config(&self, shared: Option<Shared>) -> HttpConfig {
        let mut config = HttpConfig::default();
        if let Some(url) = &self.public_url {
            config = config.public_url(url);
        }
        if self.trusted_proxies > 0 {
            config = config.trusted_proxies(self.trusted_proxies, ForwardedHeader::XForwardedFor);
        }
        if self.health {
            config = config.health_endpoints("/healthz", "/readyz");
        }
        config = config.shutdown_drain(self.shutdown_drain);
        if let Some(shared) = shared {
            config = config.session_store(shared.store);
        }
        if let Some((cert, key)) = &self.tls {
            config = config.tls(cert, key);
        }
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    fn error(list: &[&str], pairs: &[(&str, &str)]) -> String {
        format!("{:#}", parse(args(list), &env(pairs)).expect_err("an error"))
    }

    #[test]
    fn https_takes_a_certificate_and_its_key_together() {
        let (deployment, _) =
            parse(args(&["--tls-cert", "c.pem"]), &env(&[("MCP_TLS_KEY", "k.pem")])).expect("flag and variable");
        assert_eq!(deployment.tls, Some(("c.pem".to_owned(), "k.pem".to_owned())));
        assert!(error(&["--tls-key", "k.pem"], &[]).contains("go together"));
        assert!(parse(args(&[]), &env(&[])).expect("valid").0.tls.is_none(), "plain HTTP by default");
    }

    #[test]
    fn an_issuer_protects_the_endpoint_named_by_the_address_or_the_public_url() {
        let (local, _) =
            parse(args(&["--issuer", "http://127.0.0.1:9000", "--http", "127.0.0.1:4000"]), &env(&[])).expect("valid");
        let auth = format!("{:?}", local.oauth.expect("protected"));
        assert!(auth.contains("\"http://127.0.0.1:4000/mcp\""), "{auth}");
        let public = env(&[("MCP_OAUTH_ISSUER", "https://auth.test"), ("MCP_PUBLIC_URL", "https://mcp.test/")]);
        let (public, _) = parse(Vec::new(), &public).expect("valid");
        let auth = format!("{:?}", public.oauth.expect("protected"));
        assert!(auth.contains("\"https://mcp.test/mcp\""), "{auth}");
        let (given, _) = parse(args(&["--issuer", "https://auth.test", "--resource", "https://x.test/a"]), &env(&[]))
            .expect("valid");
        assert!(format!("{:?}", given.oauth).contains("\"https://x.test/a\""));
        assert!(error(&["--resource", "https://x.test/a"], &[]).contains("needs --issuer"));
        assert!(parse(Vec::new(), &env(&[])).expect("valid").0.oauth.is_none());
    }

    #[test]
    fn defaults_without_flags_or_environment() {
        let (deployment, rest) = parse(args(&["--stdio"]), &env(&[])).expect("valid");
        assert_eq!(deployment.addr, DEFAULT_ADDR.parse::<SocketAddr>().expect("an address"));
        assert!(deployment.redis_url.is_none() && deployment.public_url.is_none());
        assert!(deployment.request_state_key.is_none() && deployment.eras.is_none() && !deployment.health);
        assert_eq!(rest, ["--stdio"], "the example's own flags are left to it");
        assert!(deployment.dump_catalog.is_none());
        let (deployment, rest) = parse(args(&["--dump-catalog=c.json", "--stdio"]), &env(&[])).expect("valid");
        assert_eq!(deployment.dump_catalog, Some(CatalogDump::File("c.json".into())));
        assert_eq!(rest, ["--stdio"]);
    }

    #[test]
    fn the_environment_sets_everything() {
        let (deployment, rest) = parse(
            Vec::new(),
            &env(&[
                ("MCP_HTTP_ADDR", "0.0.0.0:8080"),
                ("MCP_REDIS_URL", "redis://redis:6379/"),
                ("MCP_REQUEST_STATE_KEY", "0123456789abcdef0123456789abcdef"),
                ("MCP_PUBLIC_URL", "https://MCP.example.com/mcp"),
                ("MCP_HEALTH", "1"),
                ("MCP_SHUTDOWN_DRAIN", "2.5"),
                ("MCP_ERAS", "modern"),
                ("MCP_TRUSTED_PROXIES", "1"),
            ]),
        )
        .expect("valid");
        assert_eq!(deployment.trusted_proxies, 1);
        assert_eq!(deployment.addr, "0.0.0.0:8080".parse::<SocketAddr>().expect("an address"));
        assert_eq!(deployment.redis_url.as_deref(), Some("redis://redis:6379/"));
        assert!(deployment.request_state_key.is_some());
        assert_eq!(deployment.public_url.as_deref(), Some("https://MCP.example.com/mcp"));
        assert!(deployment.health);
        assert_eq!(deployment.shutdown_drain, Duration::from_millis(2500));
        assert_eq!(deployment.eras, Some(Eras::Modern));
        assert!(rest.is_empty());
    }

    #[test]
    fn a_previous_key_is_accepted_during_a_rotation() {
        let old = "an old secret of thirty-two bytes or more";
        let new = "a new secret of thirty-two bytes or more!";
        let rotating = &env(&[("MCP_REQUEST_STATE_KEY", new), ("MCP_REQUEST_STATE_PREVIOUS_KEY", old)]);
        let (deployment, _) = parse(Vec::new(), rotating).expect("valid");
        let key = deployment.request_state_key.expect("a key");
        assert!(format!("{key:?}").contains("rotating: true"), "{key:?}");
    }

    #[test]
    fn flags_win_over_the_environment() {
        let (deployment, _) = parse(
            args(&[
                "--http",
                "127.0.0.1:4000",
                "--no-health",
                "--eras",
                "dual",
                "--public-url",
                "http://a.test:81",
                "--shutdown-drain",
                "1",
                "--trusted-proxies",
                "2",
            ]),
            &env(&[
                ("MCP_TRUSTED_PROXIES", "1"),
                ("MCP_HTTP_ADDR", "0.0.0.0:8080"),
                ("MCP_HEALTH", "on"),
                ("MCP_SHUTDOWN_DRAIN", "30"),
                ("MCP_ERAS", "legacy"),
                ("MCP_PUBLIC_URL", "https://b.test"),
            ]),
        )
        .expect("valid");
        assert_eq!(deployment.addr, "127.0.0.1:4000".parse::<SocketAddr>().expect("an address"));
        assert!(!deployment.health);
        assert_eq!(deployment.shutdown_drain, Duration::from_secs(1));
        assert_eq!(deployment.trusted_proxies, 2);
        assert_eq!(deployment.eras, Some(Eras::Dual));
        assert_eq!(deployment.public_url.as_deref(), Some("http://a.test:81"));
    }

    #[test]
    fn a_cluster_is_named_by_its_nodes() {
        for url in ["redis+cluster://10.0.0.1:7000,10.0.0.2:7000/", "redis://10.0.0.1:7000,redis://10.0.0.2:7000"] {
            assert_eq!(redis(url).expect("a cluster URL"), url);
        }
        assert!(redis("redis://10.0.0.1:7000,10.0.0.2:7000").is_err(), "each node of a list is a URL");
    }

    #[test]
    fn bad_values_name_their_variable_or_flag() {
        for (name, value) in [
            ("MCP_HTTP_ADDR", "localhost"),
            ("MCP_REDIS_URL", "127.0.0.1:6379"),
            ("MCP_REQUEST_STATE_KEY", "short"),
            ("MCP_PUBLIC_URL", "mcp.example.com"),
            ("MCP_HEALTH", "maybe"),
            ("MCP_SHUTDOWN_DRAIN", "soon"),
            ("MCP_ERAS", "2025"),
        ] {
            let message = error(&[], &[(name, value)]);
            assert!(message.starts_with(name), "{name}={value}: {message}");
        }
        let key = ("MCP_REQUEST_STATE_KEY", "0123456789abcdef0123456789abcdef");
        let message = error(&[], &[key, ("MCP_REQUEST_STATE_PREVIOUS_KEY", "short")]);
        assert!(message.starts_with("MCP_REQUEST_STATE_PREVIOUS_KEY"), "{message}");
        let message = error(&[], &[("MCP_REQUEST_STATE_PREVIOUS_KEY", "0123456789abcdef0123456789abcdef")]);
        assert!(message.contains("without MCP_REQUEST_STATE_KEY"), "{message}");
        assert!(error(&["--http", "nowhere"], &[]).starts_with("--http"));
        assert!(error(&["--redis"], &[]).contains("--redis needs"));
    }
}
