//! The server card (`ServerBuilder::server_card`, SEP-2127 draft): served
//! at `<endpoint>/server-card` as `application/mcp-server-card+json`,
//! valid against the draft's schema, to anyone (no token, any origin) with
//! the draft's CORS headers, a strong ETag and 304 on a match; the domain's
//! AI Catalog pointing at it; the settings the draft refuses named by the
//! build error.

use http::header::{CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use http::{Method, StatusCode};
use http_body_util::BodyExt as _;
use mcp_runtime::card::ServerCard;
use mcp_runtime::protocol::Icon;
use mcp_runtime::transport::http::{HttpConfig, McpService};
use mcp_runtime::{BuildError, Server, ServerBuilder, entry::ToolEntry};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const PUBLIC_URL: &str = "https://notes.acme.test/mcp";

fn builder() -> ServerBuilder {
    Server::builder("notes", "2.4.1")
        .title("Acme Notes")
        .description("Search and edit team notes.")
        .website_url("https://acme.test/notes")
        .icon(Icon::new("https://acme.test/notes.png"))
        .tool(ToolEntry::new("secret_tool", || async { "x" }))
        .server_card(ServerCard::new().name("test.acme/notes").repository("https://github.com/acme/notes", "github"))
}

fn card_service(config: HttpConfig) -> McpService {
    builder().authenticated_by_layer().build().unwrap().http_service(config)
}

struct Reply {
    status: StatusCode,
    headers: http::HeaderMap,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).unwrap_or_else(|| panic!("no {name}")).to_str().unwrap()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

async fn get(service: &McpService, method: Method, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut request = http::Request::builder().method(method).uri(path).header("host", "evil.example");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = service.handle(request.body(String::new()).unwrap()).await.unwrap_or_else(|never| match never {});
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes().to_vec();
    Reply { status: parts.status, headers: parts.headers, body }
}

/// `card`'s violations of the draft schema's `ServerCard`.
fn violations(card: &Value) -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/server-card.schema.json");
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    schema["$ref"] = json!("#/$defs/ServerCard");
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    validator.iter_errors(card).map(|e| format!("{}: {e}", e.instance_path)).collect()
}

#[tokio::test]
async fn the_card_is_served_at_its_path_valid_public_and_cached() {
    let service = card_service(HttpConfig::default().public_url(PUBLIC_URL));
    // No token, and an origin no rule allows: the card is public.
    let reply = get(&service, Method::GET, "/mcp/server-card", &[("origin", "https://evil.example")]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), "application/mcp-server-card+json");
    assert_eq!(reply.header("access-control-allow-origin"), "*");
    assert_eq!(reply.header("access-control-allow-methods"), "GET");
    assert_eq!(reply.header("access-control-allow-headers"), "Content-Type, If-None-Match");
    assert_eq!(reply.header("access-control-expose-headers"), "ETag");
    assert_eq!(reply.header("cache-control"), "public, max-age=3600");
    let card = reply.json();
    assert_eq!(violations(&card), Vec::<String>::new(), "{card}");
    let versions = builder().build().unwrap().eras().versions().to_vec();
    assert_eq!(
        card,
        json!({
            "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
            "name": "test.acme/notes",
            "version": "2.4.1",
            "title": "Acme Notes",
            "description": "Search and edit team notes.",
            "websiteUrl": "https://acme.test/notes",
            "icons": [{"src": "https://acme.test/notes.png"}],
            "repository": {"url": "https://github.com/acme/notes", "source": "github"},
            "remotes": [{"type": "streamable-http", "url": PUBLIC_URL, "supportedProtocolVersions": versions}],
        })
    );

    // Revalidation: the same tag is 304 with no body, weak or strong, in a
    // list or alone; another tag is the card again.
    let etag = reply.header("etag").to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"') && etag.len() == 34, "{etag}");
    for tag in [etag.clone(), format!("W/{etag}"), format!("\"other\", {etag}"), "*".to_owned()] {
        let again = get(&service, Method::GET, "/mcp/server-card", &[("if-none-match", &tag)]).await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{tag}");
        assert!(again.body.is_empty());
        assert_eq!(again.header("etag"), etag);
    }
    let other = get(&service, Method::GET, "/mcp/server-card", &[("if-none-match", "\"other\"")]).await;
    assert_eq!((other.status, other.json()), (StatusCode::OK, card.clone()));
    // Another service of the same server (a replica) tags it alike.
    let replica = card_service(HttpConfig::default().public_url(PUBLIC_URL));
    assert_eq!(get(&replica, Method::GET, "/mcp/server-card", &[]).await.header("etag"), etag);

    let preflight = get(&service, Method::OPTIONS, "/mcp/server-card", &[]).await;
    assert_eq!(preflight.status, StatusCode::NO_CONTENT);
    assert_eq!(preflight.header("access-control-allow-origin"), "*");
    let post = get(&service, Method::POST, "/mcp/server-card", &[]).await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(!post.headers.contains_key(CONTENT_TYPE) && !post.headers.contains_key(ETAG));
    let _ = IF_NONE_MATCH;
}

#[tokio::test]
async fn the_domains_catalog_points_at_the_card_or_carries_it() {
    let service = card_service(HttpConfig::default().public_url(PUBLIC_URL));
    let reply = get(&service, Method::GET, "/.well-known/ai-catalog.json", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), "application/ai-catalog+json");
    assert_eq!(reply.header("access-control-allow-origin"), "*");
    assert_eq!(
        reply.json(),
        json!({"specVersion": "1.0", "entries": [{
            "identifier": "urn:air:acme.test:mcp:notes",
            "type": "application/mcp-server-card+json",
            "url": "https://notes.acme.test/mcp/server-card",
        }]})
    );

    // Without a public URL the card names no remote (the request's `Host`
    // is anyone's to write), and the catalog carries the card itself.
    let local = card_service(HttpConfig::default());
    let card = get(&local, Method::GET, "/mcp/server-card", &[]).await.json();
    assert!(card.get("remotes").is_none(), "{card}");
    assert_eq!(violations(&card), Vec::<String>::new());
    let catalog = get(&local, Method::GET, "/.well-known/ai-catalog.json", &[]).await.json();
    assert_eq!(catalog["entries"][0]["data"], card);
}

#[tokio::test]
async fn the_standalone_server_serves_the_card_beside_its_endpoint() {
    async fn fetch(addr: std::net::SocketAddr, path: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!("GET {path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).await.unwrap();
        text
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = HttpConfig::default().endpoint("/v1/mcp");
    tokio::spawn(builder().build().unwrap().serve_http_with_shutdown(listener, config, std::future::pending()));
    let card = fetch(addr, "/v1/mcp/server-card").await;
    assert!(card.starts_with("HTTP/1.1 200"), "{card}");
    assert!(card.contains("\"name\":\"test.acme/notes\""), "{card}");
    assert!(fetch(addr, "/.well-known/ai-catalog.json").await.starts_with("HTTP/1.1 200"));
    assert!(fetch(addr, "/mcp/server-card").await.starts_with("HTTP/1.1 404"));

    // A server without a card has neither document.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let bare = listener.local_addr().unwrap();
    let server = Server::builder("bare", "1.0.0").tool(ToolEntry::new("t", || async { "x" })).build().unwrap();
    tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), std::future::pending()));
    assert!(fetch(bare, "/mcp/server-card").await.starts_with("HTTP/1.1 404"));
    assert!(fetch(bare, "/.well-known/ai-catalog.json").await.starts_with("HTTP/1.1 404"));
}

#[test]
fn a_setting_the_draft_refuses_is_a_build_error_naming_it() {
    let setting = |builder: ServerBuilder| match builder.build() {
        Err(BuildError::Setting { setting, reason }) => (setting, reason),
        other => panic!("expected a setting error, got {other:?}"),
    };
    let (name, reason) =
        setting(Server::builder("notes", "1.0.0").description("Notes.").server_card(ServerCard::new()));
    assert_eq!(name, "ServerCard::name (the server's name is used without it)");
    assert!(reason.contains("`notes` is not in reverse-DNS form"), "{reason}");
    let (name, _) = setting(Server::builder("io.example/notes", "1.0.0").server_card(ServerCard::new()));
    assert_eq!(name, "ServerBuilder::description");
    let (name, reason) = setting(
        Server::builder("notes", "^1.0").description("Notes.").server_card(ServerCard::new().name("io.example/notes")),
    );
    assert_eq!(name, "Server::builder (its version)");
    assert!(reason.contains("is a range"), "{reason}");
    let (name, _) = setting(
        Server::builder("notes", "1.0.0")
            .description("Notes.")
            .server_card(ServerCard::new().name("io.example/no/tes")),
    );
    assert_eq!(name, "ServerCard::name");
    // The server's own name serves when it has the form.
    Server::builder("io.example/notes", "1.0.0").description("Notes.").server_card(ServerCard::new()).build().unwrap();
}
