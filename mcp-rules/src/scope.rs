//! OAuth scopes: the tokens `scopes = [...]` on `#[tool]`, `#[resource]`
//! and `#[prompt]` (and the builder entries' `scopes`) declare, checked
//! against RFC 6749 §3.3 so that a scope the framework accepts can be
//! granted by an authorization server and named in a `WWW-Authenticate`
//! challenge (whose `scope="..."` is a space-separated list of them).

use std::fmt;

/// Whether `c` may appear in a scope token: RFC 6749 §3.3,
/// `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )` (visible ASCII but `"`
/// and `\`).
pub const fn is_scope_char(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E')
}

/// Why a scope, or a list of scopes, is invalid. Its `Display` is a
/// sentence about scopes in general, so callers add which entry and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeError {
    /// The list names no scope: an entry with scopes needs at least one.
    EmptyList,
    /// An empty string.
    Empty,
    /// Holds a character RFC 6749 does not allow in a scope token (the
    /// first one found).
    Char(char),
    /// The same scope twice in one list.
    Duplicate(String),
}

impl fmt::Display for ScopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScopeError::EmptyList => write!(f, "a list of scopes names at least one scope"),
            ScopeError::Empty => write!(f, "a scope is not empty"),
            ScopeError::Char(c) => write!(
                f,
                "a scope (RFC 6749 §3.3) holds only visible ASCII characters other than `\"` and `\\`, not `{}`",
                c.escape_default()
            ),
            ScopeError::Duplicate(scope) => write!(f, "the scope `{scope}` is named twice"),
        }
    }
}

impl std::error::Error for ScopeError {}

/// Checks one scope token.
///
/// ```
/// use mcp_runtime_rules::scope::{ScopeError, check};
///
/// assert_eq!(check("notes:write"), Ok(()));
/// assert_eq!(check("https://api.example.com/files.read"), Ok(()));
/// assert_eq!(check(""), Err(ScopeError::Empty));
/// assert_eq!(check("notes write"), Err(ScopeError::Char(' ')));
/// assert_eq!(check("é"), Err(ScopeError::Char('é')));
/// ```
pub fn check(scope: &str) -> Result<(), ScopeError> {
    if scope.is_empty() {
        return Err(ScopeError::Empty);
    }
    match scope.chars().find(|&c| !is_scope_char(c)) {
        Some(c) => Err(ScopeError::Char(c)),
        None => Ok(()),
    }
}

/// Checks a list of scopes: at least one, each a valid token, none twice.
/// On an error, also says which scope (its position) is at fault, so a
/// macro can point at it; `None` for an empty list.
///
/// ```
/// use mcp_runtime_rules::scope::{ScopeError, check_list};
///
/// assert_eq!(check_list(&["notes:read", "notes:write"]), Ok(()));
/// assert_eq!(check_list::<&str>(&[]), Err((None, ScopeError::EmptyList)));
/// assert_eq!(check_list(&["a", "a"]), Err((Some(1), ScopeError::Duplicate("a".into()))));
/// assert_eq!(check_list(&["a", "b\"c"]), Err((Some(1), ScopeError::Char('"'))));
/// ```
pub fn check_list<S: AsRef<str>>(scopes: &[S]) -> Result<(), (Option<usize>, ScopeError)> {
    if scopes.is_empty() {
        return Err((None, ScopeError::EmptyList));
    }
    for (i, scope) in scopes.iter().enumerate() {
        let scope = scope.as_ref();
        check(scope).map_err(|e| (Some(i), e))?;
        if scopes[..i].iter().any(|s| s.as_ref() == scope) {
            return Err((Some(i), ScopeError::Duplicate(scope.to_owned())));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_character_but_quote_and_backslash_is_allowed() {
        for c in '\0'..='\u{7f}' {
            let expected = c.is_ascii_graphic() && c != '"' && c != '\\';
            assert_eq!(is_scope_char(c), expected, "{c:?}");
        }
        assert!(!is_scope_char('é'));
    }

    #[test]
    fn a_list_is_refused_at_its_first_fault() {
        assert_eq!(check_list(&["ok", "", "x y"]), Err((Some(1), ScopeError::Empty)));
        assert_eq!(check_list(&["a\\b"]), Err((Some(0), ScopeError::Char('\\'))));
        assert!(ScopeError::Char(' ').to_string().contains("RFC 6749"));
    }
}
