//! A result another server wrote, passed on as its JSON text: what a
//! gateway answers a forwarded call with, without reading the result into
//! values and writing it again. Only its envelope is read
//! ([`Peeked::read`]): its `resultType` (which decides what the forwarder
//! does next), the shape of a tool result's members, and whether its
//! `_meta` names a server. What the blocks hold is the other server's, and
//! passes as it wrote it.

// Without the `client` feature no remote is mounted, and nothing relays.
#![cfg_attr(not(feature = "client"), allow(dead_code))]

use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use crate::protocol::META_SERVER_INFO;

/// What a result's text says of itself, read without reading its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Peeked {
    /// Its `resultType`; `None` when it has none (a 2025-era server's
    /// results, which are all complete).
    pub(crate) kind: Option<Kind>,
    /// Whether it has `content`, an array of blocks each of a type this
    /// revision defines (what makes a tool result).
    pub(crate) has_content: bool,
    /// `None`: no `_meta`; else whether its `_meta` names a server.
    pub(crate) names_server: Option<bool>,
}

/// The `resultType`s a forwarder acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Complete,
    InputRequired,
    Task,
}

impl Peeked {
    /// Reads the envelope of `text`, which must be one JSON object. A
    /// `resultType` this revision does not define, members of the wrong
    /// kind, or a block of no type it defines, is an error saying so.
    pub(crate) fn read(text: &str) -> Result<Peeked, String> {
        // A struct reads from an array too, its members in order.
        if !text.trim_start().starts_with('{') {
            return Err("a result that is not an object".to_owned());
        }
        let peek: Peek = serde_json::from_str(text).map_err(|e| e.to_string())?;
        Ok(Peeked { kind: peek.result_type, has_content: peek.content.is_some(), names_server: peek.meta.map(|m| m.0) })
    }
}

/// The content block types of this revision.
const BLOCK_TYPES: [&str; 5] = ["text", "image", "audio", "resource_link", "resource"];

/// A complete tool result as another server wrote it, and what is known of
/// it: for [`Response::passed_result`](crate::response::Response::passed_result).
#[derive(Debug)]
pub(crate) struct PassedResult {
    /// One JSON object (checked by [`Peeked::read`]).
    pub(crate) text: String,
    pub(crate) peeked: Peeked,
}

/// The members of a result that are read; every other is skipped. Nothing
/// read is kept but what [`Peeked`] says.
#[derive(Deserialize)]
struct Peek {
    #[serde(rename = "resultType", default)]
    result_type: Option<Kind>,
    #[serde(default)]
    content: Option<Vec<Block>>,
    // Read to be a boolean, as a tool result's must be.
    #[serde(rename = "isError", default)]
    _is_error: Option<bool>,
    #[serde(rename = "_meta", default)]
    meta: Option<MetaNamesServer>,
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(OneOf("a `resultType`", |kind| match kind {
            "complete" => Some(Kind::Complete),
            "input_required" => Some(Kind::InputRequired),
            "task" => Some(Kind::Task),
            _ => None,
        }))
    }
}

/// A content block: its type, which must be one of this revision's; the
/// rest skipped.
#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type")]
    _kind: BlockType,
}

/// A block type of this revision.
struct BlockType;

impl<'de> Deserialize<'de> for BlockType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_str(OneOf("a content block type", |kind| BLOCK_TYPES.contains(&kind).then_some(BlockType)))
    }
}

/// A string read as one of the values `of` knows (named `what` in errors),
/// without keeping it.
struct OneOf<T>(&'static str, fn(&str) -> Option<T>);

impl<T> Visitor<'_> for OneOf<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
    fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<T, E> {
        (self.1)(value)
            .ok_or_else(|| E::custom(format!("{} of `{value}`, which this revision does not define", self.0)))
    }
}

/// Whether a `_meta` object has the server's self-description; its values
/// skipped.
struct MetaNamesServer(bool);

impl<'de> Deserialize<'de> for MetaNamesServer {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = MetaNamesServer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a `_meta` object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaNamesServer, A::Error> {
                let mut names = false;
                while let Some(is_info) = map.next_key_seed(IsKey(META_SERVER_INFO))? {
                    names |= is_info;
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(MetaNamesServer(names))
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// Whether a key is `self.0`, read without keeping it.
struct IsKey(&'static str);

impl<'de> DeserializeSeed<'de> for IsKey {
    type Value = bool;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for IsKey {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peeked(text: &str) -> Result<Peeked, String> {
        Peeked::read(text)
    }

    #[test]
    fn the_envelope_is_read_and_the_blocks_left_as_written() {
        let read = peeked(
            r#"{"resultType":"complete","content":[{"type":"text","text":"hi","x":[1]}],"isError":false,
                "_meta":{"a":{"b":[]},"io.modelcontextprotocol/serverInfo":{"name":"r"}},"extra":1}"#,
        );
        assert_eq!(read, Ok(Peeked { kind: Some(Kind::Complete), has_content: true, names_server: Some(true) }));
        // A 2025-era server's result: no resultType; a `_meta` of its own.
        let read = peeked(r#"{"content":[],"_meta":{"k\u0065y":1}}"#);
        assert_eq!(read, Ok(Peeked { kind: None, has_content: true, names_server: Some(false) }));
        // An escaped key is the key it spells.
        let read = peeked(r#"{"content":[],"_meta":{"io.modelcontextprotocol\/serverInfo":{}}}"#);
        assert_eq!(read.map(|p| p.names_server), Ok(Some(true)));
        let read = peeked(r#"{"resultType":"input_required","inputRequests":{}}"#);
        assert_eq!(read, Ok(Peeked { kind: Some(Kind::InputRequired), has_content: false, names_server: None }));
        assert_eq!(peeked(r#"{"resultType":"task","taskId":"t"}"#).map(|p| p.kind), Ok(Some(Kind::Task)));
    }

    #[test]
    fn what_no_forwarder_can_pass_on_is_refused() {
        for text in [
            r#"{"resultType":"later","content":[]}"#,
            r#"{"resultType":7}"#,
            r#"{"content":{"type":"text"}}"#,
            r#"{"content":[{"type":"video"}]}"#,
            r#"{"content":[{"text":"no type"}]}"#,
            r#"{"content":[{"type":7}]}"#,
            r#"{"content":["text"]}"#,
            r#"{"content":[],"isError":"yes"}"#,
            r#"{"content":[],"_meta":[]}"#,
            r#"{"content":[],"content":[]}"#,
            r#"[null,null,null,null]"#,
            r#"{"content":[]} {}"#,
            r#"{"content":[]}}"#,
            r#"{"content":["#,
            "7",
        ] {
            assert!(peeked(text).is_err(), "{text}");
        }
    }
}
