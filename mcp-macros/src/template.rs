//! URI templates checked at compile time, with the same grammar the runtime
//! matches (`{var}` and `{+var}`), so a template that compiles always
//! registers.

/// One variable of a template.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Variable {
    pub(crate) name: String,
    pub(crate) reserved: bool,
}

/// The variables of `template`, or why it is not a supported template.
pub(crate) fn variables(template: &str) -> Result<Vec<Variable>, String> {
    let mut vars = Vec::new();
    let mut rest = template;
    let mut last_was_var = false;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            if rest[..open].contains('}') {
                return Err("a `}` has no opening `{`".into());
            }
            last_was_var = false;
        }
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or("an expression has no closing `}`")?;
        let expr = &after[..close];
        let (reserved, name) = match expr.strip_prefix('+') {
            Some(n) => (true, n),
            None => (false, expr),
        };
        if name.is_empty() {
            return Err("an expression has no variable name".into());
        }
        if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.')) {
            return Err(format!("`{{{expr}}}` uses `{c}`; only `{{var}}` and `{{+var}}` expressions are supported"));
        }
        if last_was_var {
            return Err("two expressions must be separated by literal text".into());
        }
        if vars.iter().any(|v: &Variable| v.name == name) {
            return Err(format!("the variable `{name}` appears twice"));
        }
        vars.push(Variable { name: name.to_owned(), reserved });
        last_was_var = true;
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err("a `}` has no opening `{`".into());
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_supported_operators() {
        let vars = variables("repo://{owner}/{+path}").unwrap_or_default();
        assert_eq!(vars.len(), 2);
        assert_eq!(vars[1], Variable { name: "path".into(), reserved: true });
        assert_eq!(variables("test://static"), Ok(Vec::new()));
    }

    #[test]
    fn rejects_what_the_runtime_cannot_match() {
        assert!(variables("x://{?q}").is_err());
        assert!(variables("x://{a}{b}").is_err());
        assert!(variables("x://{a").is_err());
        assert!(variables("x://a}").is_err());
        assert!(variables("x://{}").is_err());
        assert!(variables("x://{a}/{a}").is_err());
    }
}
