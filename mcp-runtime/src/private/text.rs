//! Parameters whose values arrive as strings: prompt arguments and URI
//! template variables, parsed into the parameter's type.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// How to parse one string-valued parameter of type `T`.
pub struct TextArg<T> {
    deserialize: fn(Value) -> Result<T, serde_json::Error>,
}

impl<T> Clone for TextArg<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for TextArg<T> {}

impl<T: DeserializeOwned> TextArg<T> {
    pub(super) fn new() -> Self {
        TextArg { deserialize: |value| T::deserialize(value) }
    }
}

impl<T> TextArg<T> {
    /// Whether the parameter may be absent (its type takes `null`, as
    /// `Option<T>` does).
    pub fn accepts_null(self) -> bool {
        (self.deserialize)(Value::Null).is_ok()
    }

    /// An absent value: `None` for optional types, an error otherwise.
    pub(super) fn absent(self) -> Option<T> {
        (self.deserialize)(Value::Null).ok()
    }

    /// Parses `text`: first as the string itself (`String`, unit enum
    /// variants), then, if that fails, as the JSON it spells (`"42"` for a
    /// `u32`, `"true"` for a `bool`, `["a","b"]` for a `Vec<String>`, an
    /// object for a struct), and last as a comma-separated list (`"a,b"`,
    /// as an RFC 6570 template expands a list).
    pub(super) fn parse(self, text: &str) -> Result<T, String> {
        let as_string = match (self.deserialize)(Value::String(text.to_owned())) {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        if let Ok(json) = serde_json::from_str::<Value>(text)
            && !json.is_string()
        {
            return (self.deserialize)(json).map_err(|e| e.to_string());
        }
        let strings: Vec<Value> = text.split(',').map(|item| Value::String(item.to_owned())).collect();
        if let Ok(v) = (self.deserialize)(Value::Array(strings.clone())) {
            return Ok(v);
        }
        // Items that spell numbers or booleans, for a `Vec<u32>`.
        let scalars = strings.into_iter().map(|item| match item.as_str().map(serde_json::from_str::<Value>) {
            Some(Ok(scalar @ (Value::Number(_) | Value::Bool(_)))) => scalar,
            _ => item,
        });
        (self.deserialize)(Value::Array(scalars.collect())).map_err(|_| as_string.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_parse_into_scalars() {
        assert_eq!(TextArg::<u32>::new().parse("42"), Ok(42));
        assert_eq!(TextArg::<String>::new().parse("42"), Ok("42".to_owned()));
        assert_eq!(TextArg::<Option<u32>>::new().parse("7"), Ok(Some(7)));
        assert_eq!(TextArg::<bool>::new().parse("true"), Ok(true));
        assert!(TextArg::<u32>::new().parse("x").is_err_and(|e| e.contains("expected u32")));
        assert!(TextArg::<u8>::new().parse("300").is_err());
        assert!(TextArg::<Option<u32>>::new().accepts_null());
        assert!(!TextArg::<u32>::new().accepts_null());
    }

    #[test]
    fn lists_and_objects_are_read_from_json_text_or_commas() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Point {
            x: i32,
            y: i32,
        }
        let tags = TextArg::<Vec<String>>::new();
        assert_eq!(tags.parse(r#"["a","b,c"]"#), Ok(vec!["a".to_owned(), "b,c".to_owned()]));
        assert_eq!(tags.parse("a,b"), Ok(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(tags.parse("a"), Ok(vec!["a".to_owned()]));
        assert_eq!(TextArg::<Vec<u32>>::new().parse("1,2"), Ok(vec![1, 2]));
        assert_eq!(TextArg::<Point>::new().parse(r#"{"x":1,"y":2}"#), Ok(Point { x: 1, y: 2 }));
        // A string stays the text it is, commas and brackets included.
        assert_eq!(TextArg::<String>::new().parse("[1,2]"), Ok("[1,2]".to_owned()));
        assert_eq!(TextArg::<String>::new().parse("a,b"), Ok("a,b".to_owned()));
        // What fits no reading keeps the message of the first.
        assert!(TextArg::<Vec<u32>>::new().parse("1,x").is_err_and(|e| e.contains("expected a sequence")));
        assert!(TextArg::<Point>::new().parse(r#"{"x":1}"#).is_err_and(|e| e.contains("missing field `y`")));
    }
}
