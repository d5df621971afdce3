//! The regular-expression mode: the query is a pattern (case-insensitive)
//! matched against each tool's fields; a match in the name ranks above
//! one in the title, then the description, then the parameters.
//!
//! The `regex` crate matches in time linear in the text, whatever the
//! pattern; what a hostile pattern could still grow is the compiled
//! automaton, which [`COMPILED_MAX`] bounds, and the pattern's own length,
//! which [`PATTERN_MAX`] bounds.

use regex::RegexBuilder;

use super::document::Document;

/// The longest pattern taken, in bytes.
pub(crate) const PATTERN_MAX: usize = 256;
/// The most memory a compiled pattern (and, separately, its lazy DFA) may
/// take.
const COMPILED_MAX: usize = 256 * 1024;

/// Every tool's score for `pattern`, or why the pattern is refused.
pub(super) fn scores(documents: &[Document], pattern: &str) -> Result<Vec<f32>, String> {
    if pattern.len() > PATTERN_MAX {
        return Err(format!("The pattern is {} bytes long; at most {PATTERN_MAX} are taken", pattern.len()));
    }
    let regex = RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(COMPILED_MAX)
        .dfa_size_limit(COMPILED_MAX)
        .build()
        .map_err(|e| format!("The pattern does not compile: {e}"))?;
    Ok(documents
        .iter()
        .map(|d| {
            let fields = [(&d.name, 4.0), (&d.title, 3.0), (&d.description, 2.0), (&d.parameters, 1.0)];
            fields.iter().filter(|(text, _)| regex.is_match(text)).map(|(_, weight)| weight).sum()
        })
        .collect())
}
