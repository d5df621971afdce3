//! A provider's documented rules, what each checks, and a schema's
//! violations of them.

use std::fmt;

use serde::Deserialize;

/// One documented rule of a provider.
#[derive(Debug, Clone, Deserialize)]
pub struct Rule {
    /// The profile the rule belongs to.
    pub profile: String,
    /// A stable name for the rule, used in reports and tests.
    pub id: String,
    /// What the rule checks.
    pub check: Check,
    /// The rule in words, as the provider documents it.
    pub says: String,
    /// Where the rule was read.
    pub source: Source,
}

/// A citation without a link: who documents the rule, on which page, read when.
#[derive(Debug, Clone, Deserialize)]
pub struct Source {
    /// The provider.
    pub provider: String,
    /// The title of the page the rule is on.
    pub page: String,
    /// The date the page was read (YYYY-MM-DD).
    pub read: String,
    /// How the page's text was seen (the page itself, or a restatement of it).
    #[serde(default)]
    pub seen_in: String,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, \"{}\", read {}", self.provider, self.page, self.read)
    }
}

/// The checks a rule can name; each reads its parameters from the rules file.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Check {
    /// The tool's name: ASCII letters and digits plus `extra_chars`, at
    /// most `max_length` characters.
    ToolName {
        /// Characters allowed beside ASCII letters and digits.
        extra_chars: String,
        /// The longest name allowed.
        max_length: usize,
        /// Whether the first character must be a letter or `_`.
        first_letter_or_underscore: bool,
    },
    /// Every property name, with the same parameters as [`Check::ToolName`].
    PropertyNames {
        /// Characters allowed beside ASCII letters and digits.
        extra_chars: String,
        /// The longest name allowed.
        max_length: usize,
        /// Whether the first character must be a letter or `_`.
        first_letter_or_underscore: bool,
    },
    /// The root schema's `type` must be this one.
    RootType {
        /// The required root type.
        r#type: String,
    },
    /// The root schema must not use these keywords.
    RootForbids {
        /// The keywords refused at the root.
        keywords: Vec<String>,
    },
    /// Every property of every object is listed in its `required`.
    AllRequired,
    /// Every object says `additionalProperties: false`.
    ClosedObjects,
    /// No (sub)schema uses these keywords.
    ForbiddenKeywords {
        /// The keywords refused anywhere.
        keywords: Vec<String>,
    },
    /// Every (sub)schema uses only these keywords.
    AllowedKeywords {
        /// The only keywords accepted.
        keywords: Vec<String>,
    },
    /// `type` is a single name, never a list.
    SingleType,
    /// Every `type` named is one of these.
    AllowedTypes {
        /// The types accepted.
        types: Vec<String>,
    },
    /// Every `format` is one of these.
    AllowedFormats {
        /// The formats accepted.
        formats: Vec<String>,
    },
    /// At most this many properties in the whole schema.
    MaxProperties {
        /// The limit.
        max: usize,
    },
    /// At most this many levels of nested objects (the root object is level 1).
    MaxDepth {
        /// The limit.
        max: usize,
    },
    /// At most this many `enum` values in the whole schema.
    MaxEnumValues {
        /// The limit.
        max: usize,
    },
}

/// A rule a schema (or a tool) breaks, and where.
#[derive(Debug, Clone)]
pub struct Violation {
    /// The rule broken.
    pub rule: &'static Rule,
    /// Where in the schema, as a JSON pointer (`""` for the root or the tool itself).
    pub at: String,
    /// What is wrong there.
    pub reason: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.at.is_empty() { "/" } else { &self.at };
        write!(f, "{at}: {} [{}; {}]", self.reason, self.rule.id, self.rule.source)
    }
}
