//! Matching URIs against RFC 6570 templates, for resource templates.
//!
//! The grammar is `mcp_runtime_rules::uri_template`'s, the one `#[resource]`
//! checks at compile time: simple expansion `{var}` (matched as one path
//! segment: no `/`, `?` or `#`) and reserved expansion `{+var}` (anything,
//! `/` included). Other operators are rejected when the template is
//! registered, so a template never silently fails to match.

use std::fmt;

use mcp_runtime_rules::uri_template::{Operator, Part, Template};
use serde::de::value::MapDeserializer;
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Unexpected, Visitor};
use serde_json::{Map, Value};

/// A parsed URI template.
///
/// ```
/// use mcp_runtime::entry::UriTemplate;
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
    template: Template,
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
        match Template::parse(template) {
            Ok(parsed) => Ok(UriTemplate { source: template.to_owned(), template: parsed }),
            Err(e) => Err(TemplateError { template: template.to_owned(), reason: e.to_string() }),
        }
    }

    /// How many characters the template's text has before its first
    /// expression: how specific it is. When several templates match a URI,
    /// the one with the longest such prefix serves it.
    pub(crate) fn literal_prefix_len(&self) -> usize {
        match self.template.parts().first() {
            Some(Part::Literal(text)) => text.len(),
            _ => 0,
        }
    }

    /// The longest URI a template will try to match.
    pub const MAX_URI_LEN: usize = 8 * 1024;

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.template.variables()
    }

    /// Matches a URI, returning each variable's (percent-decoded) value. A
    /// reserved variable's (`{+var}`) escapes of reserved and unreserved
    /// characters stay escaped, as its expansion would have written them
    /// (`%2F` is a `/` that is not a path separator).
    ///
    /// Each variable takes the shortest value that lets the rest of the
    /// template match, the first variable first: `{+a}/{+b}` reads
    /// `x/y/z` as `a = x`, `b = y/z`. A value never ends inside a `%XX`
    /// escape. A `{var}` value whose escapes do not decode to UTF-8 fails the
    /// match; a `{+var}` one is read as written, since its expansion passes
    /// a value's own escapes through (`%C3` reads as `%C3`).
    ///
    /// A reading in which every value holds only what its expansion writes
    /// is preferred: a `{var}` holds unreserved characters and escapes, a
    /// `{+var}` reserved characters too. So a URI that a template expanded
    /// is read back as the values it was expanded from, or as values that
    /// expand to the same URI. A URI that writes other characters as they
    /// are (`users://a@b` for `users://{id}`) still matches when no such
    /// reading exists: `{var}` then stops only at `/`, `?` and `#`.
    ///
    /// ```
    /// use mcp_runtime::entry::UriTemplate;
    /// let t = UriTemplate::parse("x://{+a}-{b}").unwrap();
    /// // `a-&` expanded `a = "a-&"`; `a = "a"`, `b = "&"` would have written `%26`.
    /// assert_eq!(t.matches("x://a-&-b").unwrap()["a"], "a-&");
    /// assert_eq!(t.matches("x://a-b@c").unwrap()["b"], "b@c");
    /// ```
    ///
    /// The work is linear in the URI's length (times the template's parts,
    /// twice when the URI has no strict reading): no template makes a match
    /// backtrack. URIs longer than [`MAX_URI_LEN`](Self::MAX_URI_LEN) never
    /// match.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        if uri.len() > Self::MAX_URI_LEN {
            return None;
        }
        let parts = self.template.parts();
        match_linear(parts, uri, Reading::Strict).or_else(|| match_linear(parts, uri, Reading::Lenient))
    }
}

/// Which characters a value may hold as they stand in the URI.
#[derive(Clone, Copy)]
enum Reading {
    /// Only what the variable's expansion writes (RFC 6570, 3.2.2 and 3.2.3).
    Strict,
    /// Anything but `/`, `?` and `#` in a `{var}`; anything in a `{+var}`.
    Lenient,
}

/// Characters RFC 3986 calls unreserved: every expansion writes them as they are.
fn unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~".contains(&byte)
}

/// Characters RFC 3986 calls reserved: a `{+var}` writes them as they are.
fn reserved_char(byte: u8) -> bool {
    b":/?#[]@!$&'()*+,;=".contains(&byte)
}

/// Whether `byte`, as it stands in the URI, ends a value of an expansion
/// (`reserved` for `{+var}`) read this way. An escape's `%` never does.
fn ends_value(byte: u8, reserved: bool, reading: Reading) -> bool {
    match reading {
        Reading::Lenient => !reserved && matches!(byte, b'/' | b'?' | b'#'),
        Reading::Strict => byte != b'%' && !unreserved(byte) && !(reserved && reserved_char(byte)),
    }
}

/// Whether the `%` at `at` is followed by two hex digits.
fn escape_at(input: &[u8], at: usize) -> bool {
    input.get(at + 1..at + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
}

/// Whether a value starting at `start` may end at `end` (exclusive): on a
/// character boundary, not inside a `%XX` escape of the value.
fn may_end(input: &str, start: usize, end: usize) -> bool {
    let bytes = input.as_bytes();
    input.is_char_boundary(end) && bytes[end - 1] != b'%' && (end < start + 2 || bytes[end - 2] != b'%')
}

/// The matcher: `rest[i][p]` says whether `parts[i..]` match `input[p..]`,
/// filled from the last part back in one pass over the input each; the
/// values are then read front to back, each variable taking the first end
/// from which the rest matches, without trying again.
fn match_linear(parts: &[Part], input: &str, reading: Reading) -> Option<Map<String, Value>> {
    let bytes = input.as_bytes();
    let len = bytes.len();
    #[cfg(test)]
    tests::count_steps((parts.len() + 1) * (len + 1));
    // `stop[p]`: where a value starting at `p` must end at the latest: the
    // next malformed `%` (an escape cannot be decoded), or the next byte
    // the value may not hold read this way.
    let stops = |reserved: bool| {
        let mut stop = vec![len; len + 1];
        for p in (0..len).rev() {
            let byte = bytes[p];
            stop[p] = if (byte == b'%' && !escape_at(bytes, p)) || ends_value(byte, reserved, reading) {
                p
            } else {
                stop[p + 1]
            };
        }
        stop
    };
    let (mut simple, mut reserved) = (None, None);
    let mut rest: Vec<Vec<bool>> = vec![Vec::new(); parts.len() + 1];
    rest[parts.len()] = (0..=len).map(|p| p == len).collect();
    for (i, part) in parts.iter().enumerate().rev() {
        let next = &rest[i + 1];
        let here = match part {
            Part::Literal(literal) => {
                (0..=len).map(|p| bytes[p..].starts_with(literal.as_bytes()) && next[p + literal.len()]).collect()
            }
            Part::Expression(expression) => {
                let is_reserved = match expression.operator() {
                    Operator::Simple => false,
                    Operator::Reserved => true,
                };
                let stop = if is_reserved { &mut reserved } else { &mut simple };
                let stop = stop.get_or_insert_with(|| stops(is_reserved));
                // `good[e]`: a value may end at `e` with the rest matching from there (the
                // escape rule for `e - 2` holds for every value but a one-byte one).
                let mut first_good = vec![usize::MAX; len + 2];
                for e in (1..=len).rev() {
                    let good = next[e] && may_end(input, 0, e);
                    first_good[e] = if good { e } else { first_good[e + 1] };
                }
                (0..=len).map(|p| p < len && first_end(input, next, &first_good, stop[p], p).is_some()).collect()
            }
        };
        rest[i] = here;
    }
    if !rest[0][0] {
        return None;
    }
    let mut vars = Map::new();
    let mut at = 0;
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(literal) => at += literal.len(),
            Part::Expression(expression) => {
                // The first end from which the rest matches; `rest[i][at]` says there is one.
                let end = (at + 1..=len).find(|&e| rest[i + 1][e] && may_end(input, at, e))?;
                #[cfg(test)]
                tests::count_steps(end - at);
                let is_reserved = matches!(expression.operator(), Operator::Reserved);
                let value = percent_decode(&input[at..end], is_reserved)?;
                vars.insert(expression.variable().to_owned(), Value::String(value));
                at = end;
            }
        }
    }
    Some(vars)
}

/// The first end of a value starting at `start` (and ending by `stop`)
/// from which the rest matches (`next`), `first_good` the first such end
/// at or after each position for values of two bytes or more.
fn first_end(input: &str, next: &[bool], first_good: &[usize], stop: usize, start: usize) -> Option<usize> {
    let one = start + 1;
    if one <= stop && next[one] && may_end(input, start, one) {
        return Some(one);
    }
    let end = *first_good.get(start + 2)?;
    (end <= stop).then_some(end)
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

/// Decodes `%XX` escapes. A reserved expansion (`{+var}`) writes unreserved
/// and reserved characters as they are and passes a value's own escapes
/// through (RFC 6570, 3.2.3): an escape of such a character in its part of
/// a URI was in the value, and is kept (`%2F` stays `%2F`, not `/`), so
/// that the value expands to the URI it was read from. For the same reason
/// a reserved value whose escapes are no UTF-8 text is read as written.
fn percent_decode(s: &str, reserved: bool) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            let byte = u8::from_str_radix(hex, 16).ok()?;
            if reserved && (unreserved(byte) || reserved_char(byte)) {
                out.extend_from_slice(&bytes[i..i + 3]);
            } else {
                out.push(byte);
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().or_else(|| reserved.then(|| s.to_owned()))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde_json::json;

    use super::*;

    thread_local! {
        /// Positions the matcher visited on this thread: its work, counted
        /// rather than timed.
        static STEPS: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn count_steps(steps: usize) {
        STEPS.with(|count| count.set(count.get() + steps));
    }

    fn steps_of(run: impl FnOnce()) -> usize {
        STEPS.with(|count| count.set(0));
        run();
        STEPS.with(Cell::get)
    }

    #[test]
    fn matching_is_linear_in_the_uri() {
        // A backtracking matcher tries every split of the `x`s between the
        // variables before failing on the last byte: about n^4 steps here.
        let t = UriTemplate::parse("x://{+a}x{+b}x{+c}x{+d}/{e}").expect("a valid template");
        let parts = 10;
        for n in [100, 1000, UriTemplate::MAX_URI_LEN - 10] {
            let uri = format!("x://{}/", "x".repeat(n));
            // No strict reading, then no lenient one: two passes.
            let steps = steps_of(|| assert!(t.matches(&uri).is_none()));
            assert!(steps <= 2 * (parts + 1) * (uri.len() + 1), "{steps} steps for {n} bytes");
            let uri = format!("x://{}/e", "x".repeat(n));
            let steps = steps_of(|| assert!(t.matches(&uri).is_some()));
            assert!(steps <= (parts + 2) * (uri.len() + 1), "{steps} steps for {n} bytes");
        }
    }

    #[test]
    fn values_take_the_shortest_split_and_keep_escapes_whole() {
        let t = UriTemplate::parse("x://{+a}/{+b}").expect("a valid template");
        let v = t.matches("x://p/q/r").expect("a match");
        assert_eq!((&v["a"], &v["b"]), (&json!("p"), &json!("q/r")));
        // `%41` is one character of the value: `a` cannot end after `%4`.
        let t = UriTemplate::parse("x://{a}1{b}").expect("a valid template");
        let v = t.matches("x://%41%411z").expect("a match");
        assert_eq!((&v["a"], &v["b"]), (&json!("AA"), &json!("z")));
        // A malformed escape or one that is not UTF-8 never matches.
        let t = UriTemplate::parse("x://{a}").expect("a valid template");
        assert!(t.matches("x://%4").is_none());
        assert!(t.matches("x://%zz").is_none());
        assert!(t.matches("x://%C3").is_none());
        assert_eq!(t.matches("x://%C3%A9").expect("a match")["a"], "é");
        // A `{+var}` passes a value's own escapes through: `%C3` was written as it is.
        let t = UriTemplate::parse("x://{+a}").expect("a valid template");
        assert_eq!(t.matches("x://%C3/%41").expect("a match")["a"], "%C3/%41");
        assert_eq!(t.matches("x://%C3%A9/%41").expect("a match")["a"], "é/%41");
        assert!(t.matches("x://").is_none(), "a value is never empty");
    }

    #[test]
    fn a_reading_the_expansion_could_have_written_comes_first() {
        // `{+v0}` expanded `aa&`: the shortest `v0` would leave `&aA` to `{v1}`,
        // which writes `&` as `%26`, so that reading is not the URI's.
        let t = UriTemplate::parse("a://{+v0}a{v1}a").expect("a valid template");
        let v = t.matches("a://aa&aAa").expect("a match");
        assert_eq!((&v["v0"], &v["v1"]), (&json!("aa&"), &json!("A")));
        // With no such reading, a `{var}` holds what the URI wrote as it is.
        let t = UriTemplate::parse("users://{id}/{+rest}").expect("a valid template");
        let v = t.matches("users://a@b c/d e").expect("a lenient match");
        assert_eq!((&v["id"], &v["rest"]), (&json!("a@b c"), &json!("d e")));
        assert!(t.matches("users://a/b").is_some());
        assert!(t.matches("users://a?b/c").is_none(), "`?` still ends a `{{var}}`");
    }

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
        // An escaped reserved character was escaped in the value: it stays so.
        let v = t.matches("repo://%23me/a%2Fb%23c%20").unwrap();
        assert_eq!(v["owner"], "#me");
        assert_eq!(v["path"], "a%2Fb%23c ");
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
    fn errors_name_the_template_and_the_fault() {
        let message = |template: &str| UriTemplate::parse(template).expect_err(template).to_string();
        assert_eq!(message("x://{a"), "invalid URI template `x://{a`: an expression has no closing `}`");
        assert_eq!(message("x://a}"), "invalid URI template `x://a}`: a `}` has no opening `{`");
        assert_eq!(message("x://{+}"), "invalid URI template `x://{+}`: an expression has no variable name");
        assert_eq!(
            message("x://{a}{b}"),
            "invalid URI template `x://{a}{b}`: two expressions must be separated by literal text"
        );
        assert_eq!(
            message("x://{+a,b}"),
            "invalid URI template `x://{+a,b}`: `{+a,b}` uses `,`; only `{var}` and `{+var}` expressions are supported"
        );
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
