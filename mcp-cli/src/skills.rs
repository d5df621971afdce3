//! `mcp skills list` and `mcp skills get`: a server's skills (the
//! `io.modelcontextprotocol/skills` extension), listed without reading a
//! file of them, and a skill's file printed only once the skill was loaded
//! and the file checked against its entry (size, digest, and for the
//! `SKILL.md` its front matter), by `mcp_runtime::client`.

use std::borrow::Cow;

use mcp_runtime::client::{Client, Error};
use mcp_runtime::protocol::Skill;
use serde_json::{Value, json};

use crate::args::Listed;
use crate::table;

/// The file at the root of every skill, which loading it reads.
const SKILL_FILE: &str = "SKILL.md";

/// `skills` as a table: URI, name, the first line of the description. A
/// skill's URI, not its name, tells it apart: two skills may share a name.
pub(crate) fn table(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return "(no skills)\n".to_owned();
    }
    // The columns of a resources table: a skill is named by the URI of its SKILL.md.
    let rows: Vec<Value> = skills
        .iter()
        .map(|skill| json!({"uri": skill.uri, "name": skill.name(), "description": skill.description()}))
        .collect();
    table::table(Listed::Resources, &rows)
}

/// The bytes of `file` of the skill whose `SKILL.md` is at `uri`: its entry
/// got (`skills/get`), the skill loaded (its `SKILL.md` checked), then the
/// file read and checked, unless it is the `SKILL.md` itself. `file` is a
/// path below the skill's directory, or a URI.
pub(crate) async fn file(client: &Client, uri: &str, file: &str) -> Result<Vec<u8>, Error> {
    let skill = client.get_skill(uri).await?;
    let loaded = client.load_skill(&skill).await?;
    if file == SKILL_FILE || file == uri {
        return Ok(loaded.text().as_bytes().to_vec());
    }
    loaded.read(client, file).await
}

/// `bytes` as they are written: unchanged into a pipe or a file; at a
/// terminal, text with its control characters but newlines and tabs shown
/// escaped (a server's escape sequences are not obeyed), and a file that
/// is not text not written at all (`None`).
pub(crate) fn shown(bytes: &[u8], terminal: bool) -> Option<Cow<'_, [u8]>> {
    if !terminal {
        return Some(Cow::Borrowed(bytes));
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Some(Cow::Borrowed(bytes));
    }
    let escaped: String = text
        .chars()
        .flat_map(|c| match c {
            '\n' | '\t' => vec![c],
            c if c.is_control() => c.escape_default().collect(),
            c => vec![c],
        })
        .collect();
    Some(Cow::Owned(escaped.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_unchanged_unless_at_a_terminal() {
        let text = b"# Forms\n\tfill \x1b[2J them\r\n";
        assert_eq!(shown(text, false).as_deref(), Some(&text[..]));
        assert_eq!(shown(text, true).as_deref(), Some(&b"# Forms\n\tfill \\u{1b}[2J them\\r\n"[..]));
        assert_eq!(shown(b"plain\n", true).as_deref(), Some(&b"plain\n"[..]));
        assert_eq!(shown(&[0xff, 0x00], true), None, "not text");
        assert_eq!(shown(&[0xff, 0x00], false).as_deref(), Some(&[0xff, 0x00][..]));
    }

    #[test]
    fn skills_are_a_table_of_uri_name_and_description() {
        let skill: Skill = serde_json::from_value(json!({
            "uri": "skill://acme/pdf/SKILL.md",
            "frontmatter": {"name": "pdf", "description": "Fills PDF forms.\nMore."},
            "resources": "dynamic",
        }))
        .expect("an entry");
        assert_eq!(
            table(&[skill]),
            "URI                        NAME  DESCRIPTION\nskill://acme/pdf/SKILL.md  pdf   Fills PDF forms.\n"
        );
        assert_eq!(table(&[]), "(no skills)\n");
    }
}
