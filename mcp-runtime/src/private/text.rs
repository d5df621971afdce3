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
    /// variants), then, if that fails, as the JSON scalar it spells
    /// (`"42"` for a `u32`, `"true"` for a `bool`).
    pub(super) fn parse(self, text: &str) -> Result<T, String> {
        match (self.deserialize)(Value::String(text.to_owned())) {
            Ok(v) => Ok(v),
            Err(as_string) => match serde_json::from_str::<Value>(text) {
                Ok(scalar @ (Value::Number(_) | Value::Bool(_))) => {
                    (self.deserialize)(scalar).map_err(|e| e.to_string())
                }
                _ => Err(as_string.to_string()),
            },
        }
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
}
