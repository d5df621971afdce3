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
        crate::view::check_tool(handler.attrs.view_uri.as_ref(), handler.attrs.visibility.as_ref(), errors);
    }
    if handler.kind == Macro::Prompt && handler.name.is_empty() {
        errors.at(handler.name_span, "a prompt name cannot be empty");
    }
    literals(handler, errors);
    scopes(handler, errors);
    unique_arguments(handler, errors);
    if handler.kind == Macro::Resource {
        resource(handler, errors);
    }
}

/// Tool names, by the rule the runtime's builder applies too.
fn tool_name(handler: &Handler, errors: &mut Errors) {
    if let Err(e) = mcp_runtime_rules::tool_name::check(&handler.name) {
        errors.at(handler.name_span, e.to_string());
    }
}

/// `scopes = [...]`, by the rule the runtime's builder applies too (RFC
/// 6749 scope tokens, none twice, at least one), each fault at its literal.
fn scopes(handler: &Handler, errors: &mut Errors) {
    use mcp_runtime_rules::scope::{self, ScopeError};
    let Some(declared) = &handler.attrs.scopes else { return };
    if declared.scopes.is_empty() {
        let message = format!("{}: remove `scopes = []`, or name a scope", ScopeError::EmptyList);
        errors.at(declared.span, message);
        return;
    }
    let mut seen: Vec<String> = Vec::new();
    for literal in &declared.scopes {
        let value = literal.value();
        if let Err(e) = scope::check(&value) {
            errors.spanned(literal, format!("`{}` is not a valid OAuth scope: {e}", value.escape_default()));
        } else if seen.contains(&value) {
            errors.spanned(literal, ScopeError::Duplicate(value.clone()).to_string());
        }
        seen.push(value);
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

/// `x-mcp-header` names: RFC 9110 tokens, unique regardless of case (HTTP header names are),
/// by the rules the runtime applies to a hand-written schema too.
fn headers(handler: &Handler, errors: &mut Errors) {
    use mcp_runtime_rules::header::{self, HeaderNameError};
    let mut seen: Vec<String> = Vec::new();
    for (_, arg) in handler.arguments() {
        let Some(header) = &arg.header else { continue };
        let name = header.value();
        match header::check_name(&name) {
            Ok(()) => {}
            Err(e @ HeaderNameError::Empty) => {
                errors.spanned(header, e.to_string());
                continue;
            }
            Err(e @ HeaderNameError::Char(_)) => {
                errors.spanned(header, format!("`{name}` is not a valid HTTP header name: {e}"));
                continue;
            }
        }
        let key = header::lookup_key(&name);
        if seen.contains(&key) {
            errors.spanned(
                header,
                format!(
                    "the header `{name}` is already used by another argument of this tool (header names ignore case)"
                ),
            );
            continue;
        }
        seen.push(key);
    }
}

/// Values written as literals that can be checked now rather than by a
/// client: icon URIs and a resource's `last_modified` date.
fn literals(handler: &Handler, errors: &mut Errors) {
    for icon in handler.attrs.icons.iter().flatten() {
        if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(uri), .. }) = icon
            && !has_scheme(&uri.value())
        {
            errors.spanned(
                uri,
                "an icon is a URI with a scheme, such as `https://example.com/icon.png` or a `data:` URI",
            );
        }
    }
    let last_modified = handler.attrs.content_hints.as_ref().and_then(|h| h.last_modified.as_ref());
    if let Some(date) = last_modified
        && !is_iso_date(&date.value())
    {
        errors.spanned(
            date,
            "`last_modified` is an ISO 8601 date or date-time, such as `2026-07-28` or `2026-07-28T09:30:00Z`",
        );
    }
}

/// `YYYY-MM-DD`, optionally followed by `T` and a time.
fn is_iso_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes.get(range).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10)
        && (bytes.len() == 10 || bytes.get(10).is_some_and(|b| matches!(b, b'T' | b't')))
}

/// `scheme ":"`, where a scheme is a letter then letters, digits, `+`, `-`
/// or `.` (RFC 3986 §3.1).
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// A name without case, `_`, `-` or `.`: `userId`, `user_id` and `user.id` alike.
fn loose(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-' | '.')).map(|c| c.to_ascii_lowercase()).collect()
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Words a parameter can only take as a raw identifier (`r#type`).
fn is_keyword(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
        "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
        "move", "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type",
        "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
    ];
    KEYWORDS.contains(&name)
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
    if let Some(view) = &handler.attrs.view {
        let is_template = template::variables(&uri.value()).is_ok_and(|v| !v.is_empty());
        crate::view::check_resource(view, uri, is_template, handler.attrs.mime_type.as_ref(), errors);
    }
    // A template may start with an expression that gives the scheme.
    if !uri.value().starts_with('{') && !has_scheme(&uri.value()) {
        errors.spanned(
            uri,
            "a resource URI starts with a scheme (RFC 3986), such as `docs://readme` or `file:///notes/{id}`",
        );
        return;
    }
    let variables = match template::variables(&uri.value()) {
        Ok(v) => v,
        Err(reason) => {
            errors.spanned(uri, format!("invalid URI template: {reason}"));
            return;
        }
    };
    if variables.is_empty() {
        // The rule `ServerBuilder::build` applies to a fixed resource, found here first.
        if let Err(e) = mcp_runtime_rules::uri::check_absolute(&uri.value()) {
            errors.spanned(
                uri,
                format!(
                    "a resource URI is an absolute URI (RFC 3986): {e}; percent-encode other characters, such as `%20` for a space"
                ),
            );
        }
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
    // A parameter that looks meant for a variable it does not match gets
    // one error, with the rename that fixes both sides.
    let mut explained: Vec<&str> = Vec::new();
    for var in &variables {
        if handler.arguments().any(|(_, a)| &a.name == var) {
            continue;
        }
        let near =
            handler.arguments().map(|(_, a)| a).find(|a| !variables.contains(&a.name) && loose(&a.name) == loose(var));
        let fix = match near {
            Some(arg) => {
                explained.push(&arg.name);
                format!("the parameter `{}` looks meant for it: add `#[arg(rename = {:?})]` to it", arg.name, var)
            }
            None if is_keyword(var) => format!(
                "add a parameter `r#{}`, or bind a parameter of another name with `#[arg(rename = {:?})]`",
                var, var
            ),
            None if !is_identifier(var) => {
                format!("add a parameter marked `#[arg(rename = {:?})]`", var)
            }
            None => format!(
                "add a parameter `{}` to the function, or bind a parameter of another name with `#[arg(rename = {:?})]`",
                var, var
            ),
        };
        errors.spanned(uri, format!("the URI variable `{}` has no parameter: {fix}", var));
    }
    for (_, arg) in handler.arguments() {
        if explained.contains(&arg.name.as_str()) {
            continue;
        }
        if !variables.contains(&arg.name) {
            errors.spanned(
                uri,
                format!(
                    "the parameter `{}` has no variable in this URI template: add `{{{}}}` to the URI, bind it to a variable of another name with `#[arg(rename = \"...\")]`, or make it a context parameter",
                    arg.name, arg.name
                ),
            );
        }
    }
}
