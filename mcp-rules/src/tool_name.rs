//! Tool names: 1 to 128 characters from `A-Z a-z 0-9 _ - .`, the names every
//! client can show and send back.

use std::fmt;

/// The longest tool name, in characters (every allowed character is one byte).
pub const MAX_LEN: usize = 128;

/// Whether `c` may appear in a tool name.
pub const fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Why a tool name is invalid. Its `Display` is a sentence about tool names
/// in general, so callers add which tool and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolNameError {
    /// Empty, or longer than [`MAX_LEN`].
    Length,
    /// Holds a character that is not allowed (the first one found).
    Char(char),
}

impl fmt::Display for ToolNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolNameError::Length => write!(f, "a tool name has 1 to {MAX_LEN} characters"),
            ToolNameError::Char(c) => write!(
                f,
                "a tool name may contain only ASCII letters, digits, `_`, `-` and `.`, not `{}`",
                c.escape_default()
            ),
        }
    }
}

impl std::error::Error for ToolNameError {}

/// Checks a tool name.
///
/// ```
/// use mcp_runtime_rules::tool_name::{ToolNameError, check};
///
/// assert_eq!(check("notes.search-v2_beta"), Ok(()));
/// assert_eq!(check(""), Err(ToolNameError::Length));
/// assert_eq!(check("get weather"), Err(ToolNameError::Char(' ')));
/// ```
pub fn check(name: &str) -> Result<(), ToolNameError> {
    if name.is_empty() || name.len() > MAX_LEN {
        return Err(ToolNameError::Length);
    }
    match name.chars().find(|&c| !is_name_char(c)) {
        Some(c) => Err(ToolNameError::Char(c)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_allowed_alphabet_up_to_the_limit() {
        assert_eq!(check("a"), Ok(()));
        assert_eq!(check("ABC_xyz-09.v1"), Ok(()));
        assert_eq!(check(&"x".repeat(MAX_LEN)), Ok(()));
    }

    #[test]
    fn refuses_empty_and_overlong_names() {
        assert_eq!(check(""), Err(ToolNameError::Length));
        assert_eq!(check(&"x".repeat(MAX_LEN + 1)), Err(ToolNameError::Length));
    }

    #[test]
    fn refuses_other_characters_naming_the_first() {
        for (name, bad) in [("a b", ' '), ("a/b", '/'), ("a:b", ':'), ("é", 'é'), ("a\nb", '\n'), ("a@b c", '@')] {
            assert_eq!(check(name), Err(ToolNameError::Char(bad)), "{name:?}");
        }
    }

    #[test]
    fn messages_name_the_rule() {
        assert_eq!(ToolNameError::Length.to_string(), "a tool name has 1 to 128 characters");
        assert_eq!(
            ToolNameError::Char('\n').to_string(),
            "a tool name may contain only ASCII letters, digits, `_`, `-` and `.`, not `\\n`"
        );
    }

    #[test]
    fn the_message_lists_exactly_the_allowed_symbols() {
        let message = ToolNameError::Char('!').to_string();
        let rule = message.split(", not").next().expect("the rule part");
        for c in (' '..='~').filter(|c| !c.is_ascii_alphanumeric()) {
            assert_eq!(rule.contains(&format!("`{c}`")), is_name_char(c), "{c:?} in {rule:?}");
        }
    }
}
