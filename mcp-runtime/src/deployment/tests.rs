use super::*;

fn parse(args: &[&str], vars: &[(&str, &str)]) -> Result<Deployment, DeploymentError> {
    Deployment::parse(args.iter().copied(), vars.iter().copied())
}

#[cfg_attr(not(all(feature = "http", feature = "stdio")), allow(dead_code))]
fn error(args: &[&str], vars: &[(&str, &str)]) -> String {
    parse(args, vars).expect_err("an error").to_string()
}

#[cfg(feature = "tls")]
#[test]
fn https_takes_a_certificate_and_its_key_together() {
    let deployment = parse(&["--tls-cert", "c.pem"], &[("MCP_TLS_KEY", "k.pem")]).expect("flag and variable");
    assert_eq!(deployment.http.tls, Some(("c.pem".into(), "k.pem".into())));
    assert!(error(&["--tls-key", "k.pem"], &[]).contains("go together"));
    assert!(parse(&[], &[]).expect("valid").http.tls.is_none(), "plain HTTP by default");
}

#[cfg(feature = "auth")]
#[test]
fn an_issuer_protects_the_endpoint_named_by_the_address_or_the_public_url() {
    let local = parse(&["--issuer", "http://127.0.0.1:9000", "--http", "127.0.0.1:4000"], &[]).expect("valid");
    let auth = format!("{:?}", local.authorization.expect("protected"));
    assert!(auth.contains("\"http://127.0.0.1:4000/mcp\""), "{auth}");
    let public = [("MCP_OAUTH_ISSUER", "https://auth.test"), ("MCP_PUBLIC_URL", "https://mcp.test/")];
    let auth = format!("{:?}", parse(&[], &public).expect("valid").authorization.expect("protected"));
    assert!(auth.contains("\"https://mcp.test/mcp\""), "{auth}");
    let given = parse(&["--issuer", "https://auth.test", "--resource", "https://x.test/a"], &[]).expect("valid");
    assert!(format!("{:?}", given.authorization).contains("\"https://x.test/a\""));
    assert_eq!(error(&["--resource", "https://x.test/a"], &[]), "--resource: needs --issuer (MCP_OAUTH_ISSUER)");
    assert!(parse(&[], &[]).expect("valid").authorization.is_none());
}

#[cfg(feature = "auth")]
#[test]
fn dpop_is_off_on_or_required_with_nonces_from_a_long_shared_secret() {
    let dpop = |args: &[&str], vars: &[(&str, &str)]| {
        let deployment = parse(args, vars).expect("valid");
        deployment.authorization.expect("protected").dpop.map(|dpop| format!("{dpop:?}"))
    };
    let issuer = ["--issuer", "https://auth.test"];
    assert_eq!(dpop(&issuer, &[]), None, "off by default");
    assert_eq!(dpop(&[&issuer[..], &["--dpop", "off"]].concat(), &[]), None);
    let on = dpop(&[&issuer[..], &["--dpop", "on"]].concat(), &[]).expect("on");
    assert!(on.contains("required: false") && on.contains("nonces: false"), "{on}");
    let secret = [("MCP_OAUTH_DPOP", "required"), ("MCP_OAUTH_DPOP_NONCE_SECRET", "0123456789abcdef0123456789abcdef")];
    let required = dpop(&issuer, &secret).expect("required");
    assert!(required.contains("required: true") && required.contains("nonces: true"), "{required}");
    assert!(!required.contains("0123456789abcdef"), "the secret stays out of Debug: {required}");
    assert_eq!(error(&["--dpop", "on"], &[]), "--dpop: needs --issuer (MCP_OAUTH_ISSUER)");
    assert!(error(&[&issuer[..], &["--dpop", "maybe"]].concat(), &[]).contains("not off, on or required"));
    let short = [("MCP_OAUTH_DPOP", "on"), ("MCP_OAUTH_DPOP_NONCE_SECRET", "short")];
    assert!(error(&issuer, &short).contains("at least 32 bytes"));
    let without = [("MCP_OAUTH_DPOP_NONCE_SECRET", "0123456789abcdef0123456789abcdef")];
    assert!(error(&issuer, &without).contains("needs --dpop on"));
}

#[test]
fn defaults_without_flags_or_environment() {
    let deployment = parse(&["--db", "x.db"], &[]).expect("valid");
    #[cfg(feature = "http")]
    assert_eq!(deployment.transport(), Transport::Http(DEFAULT_HTTP_ADDR.parse().expect("an address")));
    assert!(deployment.redis_url().is_none() && deployment.http.public_url.is_none());
    assert!(deployment.request_state_key.is_none() && deployment.eras.is_none() && !deployment.http.health);
    assert_eq!(deployment.args(), ["--db", "x.db"], "the server's own arguments are left to it");
    assert!(!deployment.dumps_catalog() && !deployment.wants_help());
    let deployment = parse(&["--dump-catalog=c.json", "--stdio", "-h"], &[]).expect("valid");
    assert_eq!(deployment.dump_catalog, Some(CatalogDump::File("c.json".into())));
    assert!(deployment.args().is_empty() && deployment.wants_help());
    #[cfg(feature = "stdio")]
    assert_eq!(deployment.transport(), Transport::Stdio);
}

#[cfg(all(feature = "http", feature = "redis"))]
#[test]
fn the_environment_sets_everything() {
    let deployment = parse(
        &[],
        &[
            ("MCP_HTTP_ADDR", "0.0.0.0:8080"),
            ("MCP_REDIS_URL", "redis://redis:6379/"),
            ("MCP_REQUEST_STATE_KEY", "0123456789abcdef0123456789abcdef"),
            ("MCP_PUBLIC_URL", "https://MCP.example.com/mcp"),
            ("MCP_HEALTH", "1"),
            ("MCP_SHUTDOWN_DRAIN", "2.5"),
            ("MCP_ERAS", "stateless"),
            ("MCP_TRUSTED_PROXIES", "1"),
            ("PATH", "/bin"),
        ],
    )
    .expect("valid");
    assert_eq!(deployment.transport(), Transport::Http("0.0.0.0:8080".parse().expect("an address")));
    assert_eq!(deployment.redis_url(), Some("redis://redis:6379/"));
    assert!(deployment.request_state_key.is_some());
    let http = &deployment.http;
    assert_eq!(http.public_url.as_deref(), Some("https://MCP.example.com/mcp"));
    assert!(http.health);
    assert_eq!(http.trusted_proxies, 1);
    assert_eq!(http.shutdown_drain, std::time::Duration::from_millis(2500));
    assert_eq!(deployment.eras, Some(Eras::Stateless));
    assert!(deployment.args().is_empty());
    let shown = format!("{deployment:?}");
    assert!(!shown.contains("0123456789abcdef"), "no secret in Debug: {shown}");
}

#[test]
fn a_previous_key_is_accepted_during_a_rotation() {
    let old = "an old secret of thirty-two bytes or more";
    let new = "a new secret of thirty-two bytes or more!";
    let deployment =
        parse(&[], &[("MCP_REQUEST_STATE_KEY", new), ("MCP_REQUEST_STATE_PREVIOUS_KEY", old)]).expect("valid");
    let key = deployment.request_state_key.expect("a key");
    assert!(format!("{key:?}").contains("rotating: true"), "{key:?}");
}

#[cfg(feature = "http")]
#[test]
fn flags_win_over_the_environment() {
    let deployment = parse(
        &[
            "--http",
            "127.0.0.1:4000",
            "--no-health",
            "--eras=dual",
            "--public-url",
            "http://a.test:81",
            "--shutdown-drain",
            "1",
            "--trusted-proxies",
            "2",
        ],
        &[
            ("MCP_TRUSTED_PROXIES", "1"),
            ("MCP_HTTP_ADDR", "0.0.0.0:8080"),
            ("MCP_HEALTH", "on"),
            ("MCP_SHUTDOWN_DRAIN", "30"),
            ("MCP_ERAS", "session"),
            ("MCP_PUBLIC_URL", "https://b.test"),
        ],
    )
    .expect("valid");
    assert_eq!(deployment.transport(), Transport::Http("127.0.0.1:4000".parse().expect("an address")));
    let http = &deployment.http;
    assert!(!http.health);
    assert_eq!(http.shutdown_drain, std::time::Duration::from_secs(1));
    assert_eq!(http.trusted_proxies, 2);
    assert_eq!(deployment.eras, Some(Eras::Dual));
    assert_eq!(http.public_url.as_deref(), Some("http://a.test:81"));
}

#[cfg(all(feature = "http", feature = "stdio"))]
#[test]
fn stdio_is_asked_for_and_never_beside_http() {
    let deployment = parse(&["--stdio"], &[("MCP_HTTP_ADDR", "0.0.0.0:8080")]).expect("the flag wins");
    assert_eq!(deployment.transport(), Transport::Stdio);
    assert_eq!(error(&["--stdio", "--http", "127.0.0.1:1"], &[]), "--stdio: and --http: serve one or the other");
}

#[cfg(all(feature = "http", feature = "redis"))]
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
        ("MCP_TRUSTED_PROXIES", "all"),
    ] {
        let message = error(&[], &[(name, value)]);
        assert!(message.starts_with(&format!("{name}: ")), "{name}={value}: {message}");
        assert!(!message[name.len()..].contains(name), "named once: {message}");
    }
    let key = ("MCP_REQUEST_STATE_KEY", "0123456789abcdef0123456789abcdef");
    let message = error(&[], &[key, ("MCP_REQUEST_STATE_PREVIOUS_KEY", "short")]);
    assert!(message.starts_with("MCP_REQUEST_STATE_PREVIOUS_KEY: 5 bytes"), "{message}");
    let message = error(&[], &[("MCP_REQUEST_STATE_PREVIOUS_KEY", "0123456789abcdef0123456789abcdef")]);
    assert!(message.contains("without MCP_REQUEST_STATE_KEY"), "{message}");
    assert!(error(&["--http", "nowhere"], &[]).starts_with("--http: `nowhere`"));
    assert_eq!(error(&["--redis"], &[]), "--redis: needs a URL such as redis://127.0.0.1:6379/");
    assert!(!error(&[], &[("MCP_REQUEST_STATE_KEY", "hunter2-xyz")]).contains("hunter2"), "no secret echoed");
}

#[test]
fn the_help_names_only_what_this_build_reads() {
    let usage = Deployment::usage();
    assert!(usage.contains("--dump-catalog") && usage.contains("MCP_REQUEST_STATE_KEY"), "{usage}");
    assert_eq!(usage.contains("--redis"), cfg!(feature = "redis"), "{usage}");
    assert_eq!(usage.contains("--tls-cert"), cfg!(feature = "tls"), "{usage}");
    assert_eq!(usage.contains("--issuer"), cfg!(feature = "auth"), "{usage}");
}

#[cfg(not(feature = "redis"))]
#[test]
fn a_setting_this_build_cannot_honour_is_refused() {
    let refused = parse(&[], &[("MCP_REDIS_URL", "redis://127.0.0.1:6379/")]).expect_err("no redis feature");
    assert_eq!(refused, DeploymentError::NeedsFeature { setting: "MCP_REDIS_URL", feature: "redis" });
    assert!(refused.to_string().contains("the `redis` feature of mcp-runtime"), "{refused}");
}
