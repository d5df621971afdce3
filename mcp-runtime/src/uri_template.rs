//! Matching URIs against RFC 6570 templates, for resource templates.
//!
//! The operators real servers use are supported: simple expansion `{var}`
//! (one path segment: no `/`, `?` or `#`) and reserved expansion `{+var}`
//! (anything, `/` included). Other operators are rejected when the template
//! is registered, so a template never silently fails to match.

use std::fmt;

use serde::de::value::MapDeserializer;
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Unexpected, Visitor};
use serde_json::{Map, Value};

/// A parsed URI template.
///
/// ```
/// use mcp_runtime::UriTemplate;
/// let t = UriTemplate::parse("files://{+path}").unwrap();
/// let vars = t.matches("files://src/main.rs").unwrap();
/// assert_eq!(vars["path"], "src/main.rs");
/// let t = UriTemplate::parse("users://{id}/profile").unwrap();
/// assert!(t.matches("users://7/profile").is_some());
/// assert!(t.matches("users://7/8/profile").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
}

/// Why a template could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The template.
    pub template: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid URI template `{}`: {}", self.template, self.reason)
    }
}

impl std::error::Error for TemplateError {}

impl UriTemplate {
    /// Parses a template with `{var}` and `{+var}` expressions.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let err = |reason: String| TemplateError { template: template.to_owned(), reason };
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after.find('}').ok_or_else(|| err("an expression has no closing `}`".into()))?;
            let expr = &after[..close];
            let (reserved, name) = match expr.strip_prefix('+') {
                Some(n) => (true, n),
                None => (false, expr),
            };
            if name.is_empty() {
                return Err(err("an expression has no variable name".into()));
            }
            if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.')) {
                return Err(err(format!(
                    "`{{{expr}}}` uses `{c}`; only `{{var}}` and `{{+var}}` expressions are supported"
                )));
            }
            if matches!(parts.last(), Some(Part::Var { .. })) {
                return Err(err("two expressions must be separated by literal text".into()));
            }
            parts.push(Part::Var { name: name.to_owned(), reserved });
            rest = &after[close + 1..];
        }
        if rest.contains('}') {
            return Err(err("a `}` has no opening `{`".into()));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { source: template.to_owned(), parts })
    }

    /// The longest URI a template will try to match.
    pub const MAX_URI_LEN: usize = 8 * 1024;

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Matches a URI, returning each variable's (percent-decoded) value.
    ///
    /// URIs longer than [`MAX_URI_LEN`](Self::MAX_URI_LEN) never match, which
    /// bounds the cost of backtracking on hostile input.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        if uri.len() > Self::MAX_URI_LEN {
            return None;
        }
        let mut vars = Map::new();
        if match_parts(&self.parts, uri, &mut vars) { Some(vars) } else { None }
    }
}

fn match_parts(parts: &[Part], input: &str, vars: &mut Map<String, Value>) -> bool {
    match parts.split_first() {
        None => input.is_empty(),
        Some((Part::Literal(lit), rest)) => {
            input.strip_prefix(lit.as_str()).is_some_and(|tail| match_parts(rest, tail, vars))
        }
        Some((Part::Var { name, reserved }, rest)) => {
            // Candidate ends for the variable: every position up to the first
            // forbidden character (for simple expansion), tried longest last
            // so the next literal decides where the value stops.
            let limit = if *reserved { input.len() } else { input.find(['/', '?', '#']).unwrap_or(input.len()) };
            let next_literal = match rest.first() {
                Some(Part::Literal(l)) => Some(l.as_str()),
                _ => None,
            };
            for end in (1..=limit).filter(|&i| input.is_char_boundary(i)) {
                if next_literal.is_some_and(|l| !input[end..].starts_with(l)) {
                    continue;
                }
                if let Some(value) = percent_decode(&input[..end])
                    && match_parts(rest, &input[end..], vars)
                {
                    vars.insert(name.clone(), Value::String(value));
                    return true;
                }
            }
            false
        }
    }
}

/// Builds `T` from matched variables. Each value is text, read as whatever
/// `T` asks for: `"42"` is a string to a `String` field and a number to a
/// `u32` one, so handlers can take typed variables.
pub(crate) fn deserialize_variables<T: DeserializeOwned>(variables: &Map<String, Value>) -> Result<T, String> {
    let pairs = variables.iter().map(|(k, v)| (k.as_str(), Variable(v.as_str().unwrap_or_default())));
    T::deserialize(MapDeserializer::new(pairs)).map_err(|e: de::value::Error| e.to_string())
}

/// One variable's text as a deserializer that parses it on demand.
struct Variable<'a>(&'a str);

macro_rules! parse_variable {
    ($($method:ident => $visit:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            match self.0.parse() {
                Ok(v) => visitor.$visit(v),
                Err(_) => Err(de::Error::invalid_value(Unexpected::Str(self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Variable<'de> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_borrowed_str(self.0)
    }

    parse_variable!(
        deserialize_bool => visit_bool,
        deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128,
        deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32,
        deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128,
        deserialize_f32 => visit_f32,
        deserialize_f64 => visit_f64,
    );

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(de::value::BorrowedStrDeserializer::new(self.0))
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, de::value::Error> for Variable<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_simple_and_reserved() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert_eq!(t.matches("test://template/123/data").unwrap()["id"], "123");
        assert!(t.matches("test://template//data").is_none());
        assert!(t.matches("test://template/1/2/data").is_none());
        let t = UriTemplate::parse("repo://{owner}/{+path}").unwrap();
        let v = t.matches("repo://me/a/b%20c").unwrap();
        assert_eq!(v["owner"], "me");
        assert_eq!(v["path"], "a/b c");
    }

    #[test]
    fn variables_deserialize_into_typed_fields() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Vars {
            id: u32,
            name: String,
            flag: Option<bool>,
        }
        let t = UriTemplate::parse("x://{id}/{name}/{flag}").expect("a valid template");
        let vars = t.matches("x://42/007/true").expect("a match");
        let parsed: Vars = deserialize_variables(&vars).expect("typed variables");
        assert_eq!(parsed, Vars { id: 42, name: "007".into(), flag: Some(true) });
        let vars = t.matches("x://forty/a/true").expect("a match");
        assert!(deserialize_variables::<Vars>(&vars).expect_err("not a number").contains("forty"));
    }

    #[test]
    fn rejects_unsupported_operators() {
        assert!(UriTemplate::parse("x://{?q}").is_err());
        assert!(UriTemplate::parse("x://{a}{b}").is_err());
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
        assert_eq!(UriTemplate::parse("x://{a}/{b}").unwrap().variables().collect::<Vec<_>>(), ["a", "b"]);
    }
}
