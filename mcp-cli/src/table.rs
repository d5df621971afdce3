//! A list as a person reads it: one line per item, in columns (a name or
//! URI, and the first line of its description), instead of the JSON that
//! `--json` prints for scripts.

use std::fmt::Write as _;

use serde_json::Value;

use crate::args::Listed;
use crate::form::printable;

/// The widest a column other than the last is made: a long name is cut
/// rather than pushing every description off the screen.
const MAX_COLUMN: usize = 40;
/// The most characters of a description shown on its line.
const MAX_DESCRIPTION: usize = 80;

/// `items` (as the server listed them) as a table with a header line.
pub(crate) fn table(listed: Listed, items: &[Value]) -> String {
    let (noun, columns): (&str, &[(&str, &str)]) = match listed {
        Listed::Tools => ("tools", &[("NAME", "name"), ("DESCRIPTION", "description")]),
        Listed::Prompts => ("prompts", &[("NAME", "name"), ("DESCRIPTION", "description")]),
        Listed::Resources => ("resources", &[("URI", "uri"), ("NAME", "name"), ("DESCRIPTION", "description")]),
        Listed::Templates => {
            ("resource templates", &[("URI TEMPLATE", "uriTemplate"), ("NAME", "name"), ("DESCRIPTION", "description")])
        }
    };
    if items.is_empty() {
        return format!("(no {noun})\n");
    }
    let rows: Vec<Vec<String>> =
        items.iter().map(|item| columns.iter().map(|(_, key)| cell(item, key)).collect()).collect();
    let widths: Vec<usize> = (0..columns.len())
        .map(|at| {
            let widest = rows.iter().map(|row| row[at].chars().count()).max().unwrap_or(0);
            widest.max(columns[at].0.len()).min(MAX_COLUMN)
        })
        .collect();
    let mut out = String::new();
    let header: Vec<String> = columns.iter().map(|(title, _)| (*title).to_owned()).collect();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (at, text) in row.iter().enumerate() {
            if at + 1 == row.len() {
                line.push_str(text);
            } else {
                let _ = write!(line, "{:width$}  ", cut(text, MAX_COLUMN), width = widths[at]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The text of `key` in `item`: a description's first line (a title when
/// there is no description), shown printable.
fn cell(item: &Value, key: &str) -> String {
    let text = |key: &str| item.get(key).and_then(Value::as_str).filter(|t| !t.trim().is_empty());
    match key {
        "description" => {
            let first =
                text("description").or_else(|| text("title")).and_then(|t| t.lines().find(|l| !l.trim().is_empty()));
            cut(&printable(first.unwrap_or_default().trim()), MAX_DESCRIPTION)
        }
        _ => printable(text(key).unwrap_or("-")),
    }
}

/// `text` cut to `most` characters, the last one `…` when cut.
fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_owned();
    }
    let mut kept: String = text.chars().take(most.saturating_sub(1)).collect();
    kept.push('…');
    kept
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_line_per_item_with_the_first_line_of_its_description_in_columns() {
        let tools = [
            json!({"name": "add", "description": "Adds two numbers.\n\nMore detail."}),
            json!({"name": "delete_note", "title": "Delete a note"}),
            json!({"name": "x\u{1b}[2J", "description": "a".repeat(100)}),
        ];
        let shown = table(Listed::Tools, &tools);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[0], "NAME         DESCRIPTION");
        assert_eq!(lines[1], "add          Adds two numbers.");
        assert_eq!(lines[2], "delete_note  Delete a note");
        assert_eq!(lines[3], format!("x\\u{{1b}}[2J   {}…", "a".repeat(79)));
        assert_eq!(table(Listed::Prompts, &[]), "(no prompts)\n");
        let templates = table(Listed::Templates, &[json!({"uriTemplate": "notes://{id}", "name": "note"})]);
        assert_eq!(templates, "URI TEMPLATE  NAME  DESCRIPTION\nnotes://{id}  note\n");
    }
}
