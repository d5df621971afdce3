//! The server card (SEP-2127, a draft): a public JSON document that
//! describes the server before any connection (who it is, where and how
//! to connect, which protocol versions it speaks), served over HTTP at
//! `<MCP endpoint>/server-card` as `application/mcp-server-card+json`, and
//! pointed at from the domain's AI Catalog at
//! `/.well-known/ai-catalog.json`.
//!
//! The card is built from what the server already says of itself in
//! `server/discover` (its version, title, description, website and
//! icons, and the versions it serves), so that the two never disagree,
//! and from [`HttpConfig::public_url`](crate::transport::http::HttpConfig::public_url),
//! its one remote. It has no tools, resources, prompts or capabilities:
//! those depend on the caller and are asked for once connected. Without
//! a public URL the card has no `remotes` (a server cannot know the name
//! it is reached by without trusting the request's `Host`, which anyone
//! can write) and the catalog carries the card itself rather than its URL.
//!
//! Both documents are answered to anyone, before the `Origin`/`Host`
//! check and without a token, with `Access-Control-Allow-Origin: *`, a
//! strong `ETag` (the same on every replica: a digest of the document)
//! and `Cache-Control: public, max-age=3600`; a request whose
//! `If-None-Match` matches gets `304 Not Modified`. Serve them over HTTPS
//! in production, as the draft requires.
//!
//! ```
//! use mcp_runtime::{Server, card::ServerCard};
//!
//! let server = Server::builder("notes", "2.4.1")
//!     .title("Acme Notes")
//!     .description("Search and edit team notes.")
//!     .server_card(ServerCard::new().name("test.acme/notes"))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

use serde_json::{Map, Value, json};

use crate::protocol::Implementation;
use crate::registry::error::BuildError;

/// The card's media type.
pub const CARD_MEDIA_TYPE: &str = "application/mcp-server-card+json";
/// The AI Catalog's media type.
pub const CATALOG_MEDIA_TYPE: &str = "application/ai-catalog+json";
/// The JSON Schema every card names in `$schema`.
pub const CARD_SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/// Where the card is, below the MCP endpoint's path.
pub const CARD_PATH_SUFFIX: &str = "/server-card";
/// Where the domain's AI Catalog is.
pub const CATALOG_PATH: &str = "/.well-known/ai-catalog.json";

/// What the card says beyond what the server says of itself
/// ([`ServerBuilder::server_card`](crate::ServerBuilder::server_card)).
#[derive(Clone, Debug, Default)]
pub struct ServerCard {
    name: Option<String>,
    repository: Option<(String, String)>,
}

impl ServerCard {
    /// A card named as the server is (which then must be a reverse-DNS
    /// name such as `io.example/notes`).
    pub fn new() -> Self {
        ServerCard::default()
    }

    /// The card's name, in the reverse-DNS form the draft requires: a
    /// domain you control, reversed, a `/` and a name (`io.example/notes`;
    /// letters, digits, `.` and `-` before the slash, and `_` after it
    /// too). Without it, the server's own name is used.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The server's source repository: its URL and where it is hosted
    /// (`"github"`, say).
    pub fn repository(mut self, url: impl Into<String>, source: impl Into<String>) -> Self {
        self.repository = Some((url.into(), source.into()));
        self
    }

    /// The card's document without its remotes, checked against the
    /// draft's rules: each broken rule names the setting to change.
    pub(crate) fn document(&self, info: &Implementation) -> Result<Card, BuildError> {
        let setting = |setting: &'static str, reason: String| BuildError::Setting { setting, reason };
        let (name, name_setting) = match &self.name {
            Some(name) => (name.as_str(), "ServerCard::name"),
            None => (info.name.as_str(), "ServerCard::name (the server's name is used without it)"),
        };
        if let Err(reason) = check_name(name) {
            return Err(setting(name_setting, format!("the server card's name `{name}` {reason}")));
        }
        if let Err(reason) = check_version(&info.version) {
            return Err(setting("Server::builder (its version)", format!("the server card's version {reason}")));
        }
        let description = info.description.as_deref().unwrap_or_default();
        if !(1..=100).contains(&description.chars().count()) {
            return Err(setting(
                "ServerBuilder::description",
                "the server card needs the server's description, of 1 to 100 characters".into(),
            ));
        }
        let mut card = Map::new();
        card.insert("$schema".into(), CARD_SCHEMA.into());
        card.insert("name".into(), name.into());
        card.insert("version".into(), info.version.clone().into());
        card.insert("description".into(), description.into());
        if let Some(title) = &info.title {
            if !(1..=100).contains(&title.chars().count()) {
                let reason = "the server card takes a title of 1 to 100 characters".into();
                return Err(setting("ServerBuilder::title", reason));
            }
            card.insert("title".into(), title.clone().into());
        }
        if let Some(url) = &info.website_url {
            card.insert("websiteUrl".into(), url.clone().into());
        }
        if !info.icons.is_empty() {
            card.insert("icons".into(), serde_json::to_value(&info.icons).unwrap_or(Value::Null));
        }
        if let Some((url, source)) = &self.repository {
            card.insert("repository".into(), json!({"url": url, "source": source}));
        }
        Ok(Card { name: name.to_owned(), document: card })
    }
}

/// A checked card, without its remotes.
#[derive(Clone, Debug)]
pub(crate) struct Card {
    name: String,
    document: Map<String, Value>,
}

impl Card {
    /// The card as served: with its one remote at `url` (the MCP
    /// endpoint's public URL), speaking `versions`.
    pub(crate) fn with_remote(&self, url: Option<&str>, versions: &[&str]) -> Value {
        let mut card = self.document.clone();
        if let Some(url) = url {
            let remote = json!({"type": "streamable-http", "url": url, "supportedProtocolVersions": versions});
            card.insert("remotes".into(), Value::Array(vec![remote]));
        }
        Value::Object(card)
    }

    /// The AI Catalog of one entry, this card: by its URL when it has one,
    /// else the card itself.
    pub(crate) fn catalog(&self, card_url: Option<&str>, card: &Value) -> Value {
        let (domain, name) = self.name.split_once('/').unwrap_or((&self.name, ""));
        // The card's name reverses its publisher's domain; the catalog's
        // identifier names it in reading order.
        let publisher: Vec<&str> = domain.split('.').rev().collect();
        let mut entry = json!({
            "identifier": format!("urn:air:{}:mcp:{name}", publisher.join(".")),
            "type": CARD_MEDIA_TYPE,
        });
        match card_url {
            Some(url) => entry["url"] = url.into(),
            None => entry["data"] = card.clone(),
        }
        json!({"specVersion": "1.0", "entries": [entry]})
    }
}

/// The draft's rule for names: `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3 to
/// 200 characters.
fn check_name(name: &str) -> Result<(), &'static str> {
    let Some((domain, rest)) = name.split_once('/') else {
        return Err("is not in reverse-DNS form (`io.example/notes`): it has no `/`");
    };
    let domain_ok = !domain.is_empty() && domain.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'));
    let rest_ok =
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !(domain_ok && rest_ok) {
        return Err("is not in reverse-DNS form (`io.example/notes`): letters, digits, `.` and `-`, one `/`, then \
             letters, digits, `.`, `_` and `-`");
    }
    if !(3..=200).contains(&name.len()) {
        return Err("must be 3 to 200 characters long");
    }
    Ok(())
}

/// The draft refuses version ranges (`^1.2.3`, `1.x`, `>=1`) and versions
/// over 255 characters.
fn check_version(version: &str) -> Result<(), &'static str> {
    if version.is_empty() || version.len() > 255 {
        return Err("must be 1 to 255 characters long");
    }
    let range = version.starts_with(['^', '~', '>', '<', '='])
        || version.contains(' ')
        || version.split('.').any(|part| matches!(part, "x" | "X" | "*"));
    if range {
        return Err("is a range; a card names one version (semver, such as `1.2.3`)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_drafts_pattern() {
        for name in ["io.example/notes", "test.acme/notes_v2", "a-b.c/d.e-f_g"] {
            assert_eq!(check_name(name), Ok(()), "{name}");
        }
        for name in ["notes", "/notes", "io.example/", "io_example/notes", "io.example/no tes", "a/b/c", "a/"] {
            assert!(check_name(name).is_err(), "{name}");
        }
        assert!(check_name(&format!("io.example/{}", "n".repeat(200))).is_err());
    }

    #[test]
    fn versions_are_one_version_not_a_range() {
        for version in ["1.2.3", "2.4.1-beta.1", "2026.12.05"] {
            assert_eq!(check_version(version), Ok(()), "{version}");
        }
        for version in ["^1.2.3", "1.x", ">=1", "~1.2", "1.2.*", "", "1 - 2"] {
            assert!(check_version(version).is_err(), "{version}");
        }
    }

    #[test]
    fn the_catalog_names_the_publisher_in_reading_order() {
        let mut info = Implementation::new("notes", "2.4.1");
        info.description = Some("Search and edit team notes.".into());
        let card = ServerCard::new().name("test.acme/notes").document(&info).unwrap();
        let served = card.with_remote(Some("https://eu.notes.acme.test/mcp"), &["2026-07-28"]);
        let catalog = card.catalog(Some("https://eu.notes.acme.test/mcp/server-card"), &served);
        assert_eq!(catalog["entries"][0]["identifier"], "urn:air:acme.test:mcp:notes");
        assert_eq!(catalog["entries"][0]["url"], "https://eu.notes.acme.test/mcp/server-card");
        let inline = card.catalog(None, &served);
        assert_eq!(inline["entries"][0]["data"], served);
    }
}
