//! Doc comments as descriptions, processed the way clap does: one leading
//! space stripped from each line, blank lines at either end dropped, the lines
//! of a paragraph joined with a space and paragraphs separated by a blank
//! line. Done at run time (once per server build) so that
//! `#[doc = include_str!("...")]` works like a literal.

/// The description made from the `#[doc]` strings of an item, `None` when
/// there are none or they are blank.
pub fn description(docs: &[&str]) -> Option<String> {
    let lines: Vec<&str> = docs.iter().flat_map(|d| d.split('\n')).map(|l| l.strip_prefix(' ').unwrap_or(l)).collect();
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in lines {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(line.trim());
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join(" "));
    }
    if paragraphs.is_empty() { None } else { Some(paragraphs.join("\n\n")) }
}

/// An explicit `description = "..."`, kept as written.
pub fn verbatim(text: &str) -> Option<String> {
    Some(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_are_joined_and_blank_ends_dropped() {
        let docs = ["", " Adds two numbers.", " Saturates on overflow.", "", "", " Second   paragraph. ", ""];
        assert_eq!(
            description(&docs).as_deref(),
            Some("Adds two numbers. Saturates on overflow.\n\nSecond   paragraph.")
        );
        assert_eq!(description(&["\n First\n second\n"]).as_deref(), Some("First second"));
        assert_eq!(description(&[" ", ""]), None);
        assert_eq!(description(&[]), None);
    }
}
