//! Header names of tool arguments mirrored into HTTP headers
//! (`#[arg(header = "Name")]`, the `x-mcp-header` schema annotation, sent as
//! `Mcp-Param-{Name}`).

use std::fmt;

/// The input-schema keyword that marks a property as mirrored; its value is
/// the header name after [`PREFIX`].
pub const SCHEMA_KEYWORD: &str = "x-mcp-header";

/// The prefix of every mirrored argument's header.
pub const PREFIX: &str = "Mcp-Param-";

/// The symbols an RFC 9110 token allows besides ASCII letters and digits.
pub const TOKEN_SYMBOLS: &str = "!#$%&'*+-.^_`|~";

/// The JSON Schema `type`s of the properties that may be mirrored.
pub const MIRRORED_TYPES: &[&str] = &["string", "integer", "boolean"];

/// Whether `c` is an RFC 9110 `tchar`.
pub const fn is_token_char(c: char) -> bool {
    if c.is_ascii_alphanumeric() {
        return true;
    }
    let symbols = TOKEN_SYMBOLS.as_bytes();
    let mut i = 0;
    while i < symbols.len() {
        if symbols[i] as char == c {
            return true;
        }
        i += 1;
    }
    false
}

/// Why a header name is invalid. Its `Display` completes a sentence that
/// names the header and where it was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderNameError {
    /// The name is empty.
    Empty,
    /// The name holds a character that is not a `tchar` (the first one found).
    Char(char),
}

impl fmt::Display for HeaderNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderNameError::Empty => f.write_str("a header name cannot be empty"),
            HeaderNameError::Char(c) => {
                write!(f, "`{}` is not allowed (use letters, digits and `{TOKEN_SYMBOLS}`)", c.escape_default())
            }
        }
    }
}

impl std::error::Error for HeaderNameError {}

/// Checks the name after `Mcp-Param-`: a non-empty RFC 9110 token.
///
/// ```
/// use mcp_runtime_rules::header::{HeaderNameError, check_name};
///
/// assert_eq!(check_name("Dry-Run"), Ok(()));
/// assert_eq!(check_name(""), Err(HeaderNameError::Empty));
/// assert_eq!(check_name("dry run"), Err(HeaderNameError::Char(' ')));
/// ```
pub fn check_name(name: &str) -> Result<(), HeaderNameError> {
    if name.is_empty() {
        return Err(HeaderNameError::Empty);
    }
    match name.chars().find(|&c| !is_token_char(c)) {
        Some(c) => Err(HeaderNameError::Char(c)),
        None => Ok(()),
    }
}

/// The header's identity: `mcp-param-{name}` in lower case. Header names
/// ignore case, so two arguments clash exactly when their keys are equal,
/// and a request's header map is searched by this key.
///
/// ```
/// assert_eq!(mcp_runtime_rules::header::lookup_key("Dry-Run"), "mcp-param-dry-run");
/// ```
pub fn lookup_key(name: &str) -> String {
    let mut key = PREFIX.to_ascii_lowercase();
    key.extend(name.chars().map(|c| c.to_ascii_lowercase()));
    key
}

/// Whether a property of JSON Schema `type` `ty` may be mirrored.
pub fn is_mirrored_type(ty: &str) -> bool {
    MIRRORED_TYPES.contains(&ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_characters_are_letters_digits_and_the_rfc_symbols() {
        for c in "azAZ09!#$%&'*+-.^_`|~".chars() {
            assert!(is_token_char(c), "{c:?}");
        }
        for c in " \t\"(),/:;<=>?@[\\]{}é\u{7f}".chars() {
            assert!(!is_token_char(c), "{c:?}");
        }
    }

    #[test]
    fn names_are_non_empty_tokens() {
        assert_eq!(check_name("Region"), Ok(()));
        assert_eq!(check_name("x"), Ok(()));
        assert_eq!(check_name(""), Err(HeaderNameError::Empty));
        assert_eq!(check_name("colon:"), Err(HeaderNameError::Char(':')));
        assert_eq!(check_name("Ünï"), Err(HeaderNameError::Char('Ü')));
    }

    #[test]
    fn keys_ignore_case() {
        assert_eq!(lookup_key("Region"), lookup_key("REGION"));
        assert_ne!(lookup_key("Region"), lookup_key("Regions"));
        assert_eq!(lookup_key("A"), "mcp-param-a");
    }

    #[test]
    fn only_scalar_types_are_mirrored() {
        for ty in ["string", "integer", "boolean"] {
            assert!(is_mirrored_type(ty));
        }
        for ty in ["number", "array", "object", "null"] {
            assert!(!is_mirrored_type(ty));
        }
    }
}
