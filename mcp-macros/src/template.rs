//! URI templates checked at compile time, by the grammar the runtime parses
//! them with (`mcp_runtime_rules::uri_template`), so a template that
//! compiles always registers.

use mcp_runtime_rules::uri_template::Template;

/// The variable names of `template`, in order, or why it is not a supported
/// template.
///
/// Beyond the grammar, each variable appears once: it binds one parameter.
/// The runtime matches `{a}/{a}` with the last value winning, which a
/// handler could not tell from the first.
pub(crate) fn variables(template: &str) -> Result<Vec<String>, String> {
    let template = Template::parse(template).map_err(|e| e.to_string())?;
    let mut names: Vec<String> = Vec::new();
    for name in template.variables() {
        if names.iter().any(|n| n == name) {
            return Err(format!("the variable `{name}` appears twice"));
        }
        names.push(name.to_owned());
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_variables_in_order() {
        assert_eq!(variables("repo://{owner}/{+path}"), Ok(vec!["owner".to_owned(), "path".to_owned()]));
        assert_eq!(variables("test://static"), Ok(Vec::new()));
    }

    #[test]
    fn a_variable_appears_once() {
        assert_eq!(variables("x://{a}/{+a}"), Err("the variable `a` appears twice".to_owned()));
    }

    #[test]
    fn grammar_errors_are_the_shared_sentences() {
        assert_eq!(variables("x://{a}{b}"), Err("two expressions must be separated by literal text".to_owned()));
        assert_eq!(
            variables("x://{?q}"),
            Err("`{?q}` uses `?`; only `{var}` and `{+var}` expressions are supported".to_owned())
        );
    }
}
