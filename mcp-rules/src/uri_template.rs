//! URI templates (RFC 6570) as the framework supports them: literal text and
//! expressions of one variable each, simple `{var}` or reserved `{+var}`,
//! with literal text between any two expressions.
//!
//! Those are the operators real servers use, and the ones whose values can
//! be read back from a URI. Every other template is refused with the reason,
//! so a template never registers only to fail to match: `#[resource]`
//! refuses it at compile time, and the runtime when a server is built.
//!
//! ```
//! use mcp_runtime_rules::uri_template::{Operator, Part, Template};
//!
//! let template = Template::parse("repo://{owner}/{+path}").unwrap();
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["owner", "path"]);
//! let Part::Expression(path) = &template.parts()[3] else { panic!("an expression") };
//! assert_eq!(path.operator(), Operator::Reserved);
//!
//! let error = Template::parse("search://results{?query}").unwrap_err();
//! assert_eq!(error.at(), 17);
//! assert_eq!(
//!     error.to_string(),
//!     "`{?query}` uses `?`; only `{var}` and `{+var}` expressions are supported",
//! );
//! ```

use std::fmt;

/// Whether `c` may appear in a variable name: ASCII letters, digits, `_`
/// and `.` (RFC 6570's `varchar`, without percent-encoded octets).
pub const fn is_variable_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.')
}

/// A parsed template: its literal text and expressions, in order.
///
/// Writing it back (`Display`) gives the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

/// A piece of a [`Template`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text that stands for itself, never empty, with no `{` or `}`.
    Literal(String),
    /// A `{...}` expression.
    Expression(Expression),
}

/// One `{...}` expression: an operator and a variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    operator: Operator,
    variable: String,
}

impl Expression {
    /// How the variable's value is expanded.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The variable's name: not empty, every character
    /// [`is_variable_char`].
    pub fn variable(&self) -> &str {
        &self.variable
    }
}

/// The expression operators the framework supports.
///
/// Not `#[non_exhaustive]` on purpose: the crates are released together, and
/// a matcher that does not handle a new operator should not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `{var}`, simple string expansion: every reserved character of the
    /// value is percent-encoded, so it stays within one path segment.
    Simple,
    /// `{+var}`, reserved expansion: reserved characters such as `/` pass
    /// through.
    Reserved,
}

impl Operator {
    /// The character after `{` that selects the operator, if any.
    pub const fn prefix(self) -> &'static str {
        match self {
            Operator::Simple => "",
            Operator::Reserved => "+",
        }
    }
}

/// Why a template is not one the framework supports. Its `Display` is a
/// sentence about the template, without the template itself, so callers add
/// which template and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// A `}` outside an expression.
    Unopened {
        /// The byte offset of the `}`.
        at: usize,
    },
    /// A `{` without a `}` after it.
    Unclosed {
        /// The byte offset of the `{`.
        at: usize,
    },
    /// `{}` or `{+}`.
    NoVariable {
        /// The byte offset of the `{`.
        at: usize,
    },
    /// An expression with another operator (`{?query}`), a list of
    /// variables (`{a,b}`), a modifier (`{var:3}`) or a character that no
    /// variable name holds.
    Unsupported {
        /// The byte offset of `found`.
        at: usize,
        /// The expression as written, braces included.
        expression: String,
        /// The first character that is neither the operator nor part of a
        /// variable name.
        found: char,
    },
    /// Two expressions with nothing between them (`{a}{b}`): where one
    /// value ends and the next begins could not be read back from a URI.
    Adjacent {
        /// The byte offset of the second expression's `{`.
        at: usize,
    },
}

impl ParseError {
    /// The byte offset in the template of what is wrong.
    pub fn at(&self) -> usize {
        match *self {
            ParseError::Unopened { at }
            | ParseError::Unclosed { at }
            | ParseError::NoVariable { at }
            | ParseError::Unsupported { at, .. }
            | ParseError::Adjacent { at } => at,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unopened { .. } => write!(f, "a `}}` has no opening `{{`"),
            ParseError::Unclosed { .. } => write!(f, "an expression has no closing `}}`"),
            ParseError::NoVariable { .. } => write!(f, "an expression has no variable name"),
            ParseError::Unsupported { expression, found, .. } => {
                write!(f, "`{expression}` uses `{found}`; only `{{var}}` and `{{+var}}` expressions are supported")
            }
            ParseError::Adjacent { .. } => write!(f, "two expressions must be separated by literal text"),
        }
    }
}

impl std::error::Error for ParseError {}

impl Template {
    /// Parses a template, reporting the first fault from the left.
    ///
    /// ```
    /// use mcp_runtime_rules::uri_template::{ParseError, Template};
    ///
    /// assert!(Template::parse("users://{id}/profile").is_ok());
    /// assert_eq!(Template::parse("x://{a}{b}"), Err(ParseError::Adjacent { at: 7 }));
    /// assert_eq!(Template::parse("x://{a"), Err(ParseError::Unclosed { at: 4 }));
    /// ```
    pub fn parse(template: &str) -> Result<Self, ParseError> {
        let mut parts = Vec::new();
        let mut offset = 0;
        while let Some(open) = template[offset..].find('{').map(|i| offset + i) {
            let literal = &template[offset..open];
            if let Some(close) = literal.find('}') {
                return Err(ParseError::Unopened { at: offset + close });
            }
            if !literal.is_empty() {
                parts.push(Part::Literal(literal.to_owned()));
            }
            let close = match template[open..].find('}') {
                Some(i) => open + i,
                None => return Err(ParseError::Unclosed { at: open }),
            };
            let body = &template[open + 1..close];
            let (operator, variable) = match body.strip_prefix('+') {
                Some(name) => (Operator::Reserved, name),
                None => (Operator::Simple, body),
            };
            if variable.is_empty() {
                return Err(ParseError::NoVariable { at: open });
            }
            if let Some((i, found)) = variable.char_indices().find(|&(_, c)| !is_variable_char(c)) {
                let at = close - variable.len() + i;
                return Err(ParseError::Unsupported { at, expression: template[open..=close].to_owned(), found });
            }
            if matches!(parts.last(), Some(Part::Expression(_))) {
                return Err(ParseError::Adjacent { at: open });
            }
            parts.push(Part::Expression(Expression { operator, variable: variable.to_owned() }));
            offset = close + 1;
        }
        let literal = &template[offset..];
        if let Some(close) = literal.find('}') {
            return Err(ParseError::Unopened { at: offset + close });
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal.to_owned()));
        }
        Ok(Template { parts })
    }

    /// The literals and expressions, in order; no two expressions are next
    /// to each other.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The expressions, in order.
    pub fn expressions(&self) -> impl Iterator<Item = &Expression> {
        self.parts.iter().filter_map(|part| match part {
            Part::Expression(expression) => Some(expression),
            Part::Literal(_) => None,
        })
    }

    /// The variable names, in order (a name may appear more than once).
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.expressions().map(Expression::variable)
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                Part::Literal(text) => f.write_str(text)?,
                Part::Expression(e) => write!(f, "{{{}{}}}", e.operator.prefix(), e.variable)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(text: &str) -> Part {
        Part::Literal(text.to_owned())
    }

    fn expression(operator: Operator, variable: &str) -> Part {
        Part::Expression(Expression { operator, variable: variable.to_owned() })
    }

    #[test]
    fn parses_the_supported_operators() {
        let template = Template::parse("repo://{owner}/{+path}").expect("a valid template");
        assert_eq!(
            template.parts(),
            [
                literal("repo://"),
                expression(Operator::Simple, "owner"),
                literal("/"),
                expression(Operator::Reserved, "path")
            ]
        );
        assert_eq!(template.variables().collect::<Vec<_>>(), ["owner", "path"]);
        assert_eq!(Template::parse("test://static").expect("a fixed URI").parts(), [literal("test://static")]);
        assert_eq!(Template::parse("").expect("the empty template").parts(), []);
        let starts_with_one = Template::parse("{+base}/x").expect("a template starting with an expression");
        assert_eq!(starts_with_one.parts()[0], expression(Operator::Reserved, "base"));
    }

    #[test]
    fn rejects_what_the_runtime_cannot_match() {
        assert!(Template::parse("x://{?q}").is_err());
        assert!(Template::parse("x://{a}{b}").is_err());
        assert!(Template::parse("x://{a").is_err());
        assert!(Template::parse("x://a}").is_err());
        assert!(Template::parse("x://{}").is_err());
    }

    #[test]
    fn errors_point_at_the_fault() {
        let cases = [
            ("x://a}", ParseError::Unopened { at: 5 }),
            ("x://a}/{b}", ParseError::Unopened { at: 5 }),
            ("x://{a}/b}", ParseError::Unopened { at: 9 }),
            ("x://{a", ParseError::Unclosed { at: 4 }),
            ("x://{a}/{b", ParseError::Unclosed { at: 8 }),
            ("x://{}", ParseError::NoVariable { at: 4 }),
            ("x://{+}", ParseError::NoVariable { at: 4 }),
            ("x://{a}{b}", ParseError::Adjacent { at: 7 }),
            ("x://{?q}", ParseError::Unsupported { at: 5, expression: "{?q}".into(), found: '?' }),
            ("x://{+a,b}", ParseError::Unsupported { at: 7, expression: "{+a,b}".into(), found: ',' }),
            ("x://{++a}", ParseError::Unsupported { at: 6, expression: "{++a}".into(), found: '+' }),
            ("x://{é}", ParseError::Unsupported { at: 5, expression: "{é}".into(), found: 'é' }),
            ("x://{a{b}", ParseError::Unsupported { at: 6, expression: "{a{b}".into(), found: '{' }),
        ];
        for (template, error) in cases {
            assert_eq!(Template::parse(template), Err(error), "{template}");
        }
    }

    #[test]
    fn the_first_fault_from_the_left_is_reported() {
        // The unsupported expression comes before the two being adjacent is noticed.
        assert!(matches!(Template::parse("x://{a}{?b}"), Err(ParseError::Unsupported { found: '?', .. })));
        assert_eq!(Template::parse("x://a}{"), Err(ParseError::Unopened { at: 5 }));
        assert_eq!(Template::parse("x://{a}{}"), Err(ParseError::NoVariable { at: 7 }));
    }

    #[test]
    fn messages_name_the_fault_without_the_template() {
        let message = |template: &str| Template::parse(template).map(|_| ()).unwrap_err().to_string();
        assert_eq!(message("x://a}"), "a `}` has no opening `{`");
        assert_eq!(message("x://{a"), "an expression has no closing `}`");
        assert_eq!(message("x://{}"), "an expression has no variable name");
        assert_eq!(message("x://{a}{b}"), "two expressions must be separated by literal text");
        assert_eq!(
            message("search://results{?query}"),
            "`{?query}` uses `?`; only `{var}` and `{+var}` expressions are supported"
        );
    }

    #[test]
    fn a_template_writes_back_as_parsed() {
        for text in ["", "x://static", "{a}", "{+a}/b", "x://{a}.{b_c}/{+d.e}?q=1", "f://é/{v.1}x"] {
            assert_eq!(Template::parse(text).map(|t| t.to_string()).as_deref(), Ok(text));
        }
    }

    #[test]
    fn variable_names_are_ascii_words_and_dots() {
        for c in '\0'..='\u{7f}' {
            assert_eq!(is_variable_char(c), c.is_ascii_alphanumeric() || c == '_' || c == '.', "{c:?}");
        }
        assert!(!is_variable_char('é'));
    }
}
