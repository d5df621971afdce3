//! Cross-field checks on the model: names, hints, headers and the binding of
//! URI template variables to parameters.

use crate::attr::Macro;
use crate::errors::Errors;
use crate::model::Handler;
use crate::template;

/// Runs every check, reporting all problems.
pub(crate) fn check(handler: &Handler, errors: &mut Errors) {
    if handler.kind == Macro::Tool {
        tool_name(handler, errors);
        hints(handler, errors);
        headers(handler, errors);
    }
    unique_arguments(handler, errors);
    if handler.kind == Macro::Resource {
        resource(handler, errors);
    }
}

/// Tool names: 1 to 128 characters from `A-Z a-z 0-9 _ - .` (spec §8.2).
fn tool_name(handler: &Handler, errors: &mut Errors) {
    let name = &handler.name;
    if name.is_empty() || name.len() > 128 {
        errors.at(handler.name_span, "a tool name has 1 to 128 characters");
    } else if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))) {
        errors.at(
            handler.name_span,
            format!("a tool name may contain only ASCII letters, digits, `_`, `-` and `.`, not `{c}`"),
        );
    }
}

/// Contradictory tool hints.
fn hints(handler: &Handler, errors: &mut Errors) {
    let Some(hints) = &handler.attrs.tool_hints else { return };
    if let (Some(read_only), Some(destructive)) = (hints.read_only, hints.destructive)
        && read_only.value
        && destructive.value
    {
        errors.at(destructive.span, "a `read_only` tool cannot be `destructive`: it does not change its environment");
    }
    if let (Some(read_only), Some(idempotent)) = (hints.read_only, hints.idempotent)
        && read_only.value
        && !idempotent.value
    {
        errors.at(idempotent.span, "a `read_only` tool is idempotent by definition: remove `idempotent = false`");
    }
}

/// `x-mcp-header` names: RFC 9110 tokens, unique regardless of case (§8.3).
fn headers(handler: &Handler, errors: &mut Errors) {
    let mut seen: Vec<String> = Vec::new();
    for (_, arg) in handler.arguments() {
        let Some(header) = &arg.header else { continue };
        let name = header.value();
        if name.is_empty() {
            errors.spanned(header, "a header name cannot be empty");
            continue;
        }
        if let Some(c) = name.chars().find(|c| !is_tchar(*c)) {
            errors.spanned(
                header,
                format!("`{}` is not a valid HTTP header name: `{}` is not allowed (use letters, digits and `!#$%&'*+-.^_`|~`)", name, c.escape_default()),
            );
            continue;
        }
        let lower = name.to_ascii_lowercase();
        if seen.contains(&lower) {
            errors.spanned(
                header,
                format!(
                    "the header `{name}` is already used by another argument of this tool (header names ignore case)"
                ),
            );
            continue;
        }
        seen.push(lower);
    }
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn unique_arguments(handler: &Handler, errors: &mut Errors) {
    let mut seen: Vec<&str> = Vec::new();
    for (_, arg) in handler.arguments() {
        if seen.contains(&arg.name.as_str()) {
            errors.at(arg.name_span, format!("two arguments are named `{}`", arg.name));
        } else {
            seen.push(&arg.name);
        }
    }
}

/// Template variables and arguments must match one to one; the error is on
/// the URI literal, where the template is written.
fn resource(handler: &Handler, errors: &mut Errors) {
    let Some(uri) = &handler.attrs.uri else { return };
    let variables = match template::variables(&uri.value()) {
        Ok(v) => v,
        Err(reason) => {
            errors.spanned(uri, format!("invalid URI template: {reason}"));
            return;
        }
    };
    if variables.is_empty() {
        for (_, arg) in handler.arguments() {
            errors.spanned(
                uri,
                format!(
                    "the parameter `{}` has no variable in this URI: a fixed resource takes only context parameters; add `{{{}}}` to make it a template",
                    arg.name, arg.name
                ),
            );
        }
        return;
    }
    if let Some(size) = &handler.attrs.size {
        errors.spanned(size, "`size` applies to fixed resources only: the size of a template's matches varies");
    }
    for var in &variables {
        if !handler.arguments().any(|(_, a)| a.name == var.name) {
            errors.spanned(
                uri,
                format!(
                    "the URI variable `{}` has no parameter: add a parameter `{}` to the function",
                    var.name, var.name
                ),
            );
        }
    }
    for (_, arg) in handler.arguments() {
        if !variables.iter().any(|v| v.name == arg.name) {
            errors.spanned(
                uri,
                format!(
                    "the parameter `{}` has no variable in this URI template: add `{{{}}}` to the URI, or make it a context parameter",
                    arg.name, arg.name
                ),
            );
        }
    }
}
