//! Skills (the `io.modelcontextprotocol/skills` extension): the naming
//! rule, the front matter of a `SKILL.md` and what it must hold, read the
//! same way by `skills!` at compile time, by a server at run time and by a
//! client checking what it fetched.
//!
//! ```
//! use mcp_runtime_rules::skill;
//!
//! let text = "---\nname: pdf-processing\ndescription: Fill PDF forms.\n---\n# PDF\n";
//! let front = skill::frontmatter(text).unwrap();
//! assert_eq!(front["name"], "pdf-processing");
//! assert!(skill::check(&front, "pdf-processing").is_ok());
//! assert!(skill::check(&front, "pdf").is_err());
//! assert!(skill::check_name("PDF").is_err());
//! ```

pub mod scan;
pub mod yaml;

use std::fmt;

use serde_json::{Map, Value};

pub use self::yaml::YamlError;

/// The file at the root of every skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The URI scheme of skill files.
pub const SCHEME: &str = "skill";
/// The longest skill name, in characters.
pub const NAME_MAX: usize = 64;
/// The longest description, in characters (the Agent Skills format's limit).
pub const DESCRIPTION_MAX: usize = 1024;
/// The most files one skill should have (hosts accept up to this many).
pub const FILES_MAX: usize = 512;
/// The most bytes one skill's files should total (hosts accept up to this).
pub const SIZE_MAX: u64 = 16 * 1024 * 1024;

/// Why a skill's name or front matter breaks the rules. Its `Display` says
/// what is wrong in general terms; callers add which skill and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillError {
    /// The file does not open with a `---` line, or the block is not closed.
    NoFrontmatter,
    /// The front matter is not YAML this mapping reads.
    Yaml(YamlError),
    /// The front matter is YAML but not a mapping.
    NotMapping,
    /// A required field is missing or not a non-empty string.
    Missing(&'static str),
    /// The name breaks the naming rule; the reason.
    Name(String),
    /// The description is longer than [`DESCRIPTION_MAX`].
    DescriptionLength(usize),
    /// The name is not the last segment of the skill's path.
    NameMismatch {
        /// The front matter's `name`.
        name: String,
        /// The directory's last segment.
        segment: String,
    },
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkillError::NoFrontmatter => {
                write!(f, "a SKILL.md opens with YAML front matter between two `---` lines")
            }
            SkillError::Yaml(e) => write!(f, "the front matter is not readable: {e}"),
            SkillError::NotMapping => write!(f, "the front matter is not a mapping of fields"),
            SkillError::Missing(field) => write!(f, "the front matter has no `{field}` (a non-empty string)"),
            SkillError::Name(reason) => write!(f, "the skill name is invalid: {reason}"),
            SkillError::DescriptionLength(len) => {
                write!(f, "the description has {len} characters, more than {DESCRIPTION_MAX}")
            }
            SkillError::NameMismatch { name, segment } => write!(
                f,
                "the skill is named `{name}` but its directory is `{segment}`: a skill's name is its directory's"
            ),
        }
    }
}

impl std::error::Error for SkillError {}

/// Checks a skill name: 1 to 64 characters of `a-z 0-9 -`, no hyphen
/// first, last or twice in a row.
///
/// ```
/// use mcp_runtime_rules::skill::check_name;
///
/// assert!(check_name("git-workflow").is_ok());
/// for bad in ["", "Git", "-git", "git-", "git--flow", "git_flow"] {
///     assert!(check_name(bad).is_err(), "{bad}");
/// }
/// ```
pub fn check_name(name: &str) -> Result<(), SkillError> {
    let reason = if name.is_empty() || name.chars().count() > NAME_MAX {
        Some(format!("a skill name has 1 to {NAME_MAX} characters"))
    } else if let Some(c) = name.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')) {
        Some(format!("a skill name has only lowercase ASCII letters, digits and `-`, not `{}`", c.escape_default()))
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("a skill name neither starts nor ends with `-`".to_owned())
    } else if name.contains("--") {
        Some("a skill name has no `--`".to_owned())
    } else {
        None
    };
    match reason {
        Some(reason) => Err(SkillError::Name(reason)),
        None => Ok(()),
    }
}

/// The YAML text of a `SKILL.md`'s front matter (a byte-order mark first is
/// allowed), and the body after it.
pub fn split(text: &str) -> Result<(&str, &str), SkillError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, rest) = text.split_once('\n').ok_or(SkillError::NoFrontmatter)?;
    if first.trim_end() != "---" {
        return Err(SkillError::NoFrontmatter);
    }
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(SkillError::NoFrontmatter)
}

/// The front matter of a `SKILL.md` as JSON: the mapping its YAML holds.
pub fn frontmatter(text: &str) -> Result<Map<String, Value>, SkillError> {
    let (yaml, _) = split(text)?;
    match yaml::to_json(yaml).map_err(SkillError::Yaml)? {
        Value::Object(map) => Ok(map),
        _ => Err(SkillError::NotMapping),
    }
}

/// Checks what a skill's front matter must hold: a `name` that obeys the
/// naming rule and is `segment` (the last segment of the skill's path),
/// and a non-empty `description`.
pub fn check(frontmatter: &Map<String, Value>, segment: &str) -> Result<(), SkillError> {
    let name = required(frontmatter, "name")?;
    check_name(name)?;
    let description = required(frontmatter, "description")?;
    let len = description.chars().count();
    if len > DESCRIPTION_MAX {
        return Err(SkillError::DescriptionLength(len));
    }
    if name != segment {
        return Err(SkillError::NameMismatch { name: name.to_owned(), segment: segment.to_owned() });
    }
    Ok(())
}

fn required<'a>(frontmatter: &'a Map<String, Value>, field: &'static str) -> Result<&'a str, SkillError> {
    match frontmatter.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        _ => Err(SkillError::Missing(field)),
    }
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`: a skill file's
/// `digest`.
///
/// ```
/// use mcp_runtime_rules::skill::{digest, is_digest};
///
/// let d = digest(b"abc");
/// assert_eq!(d, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
/// assert!(is_digest(&d));
/// assert!(!is_digest(&d.to_uppercase()));
/// ```
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in sha2::Sha256::digest(bytes) {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Whether `digest` is `sha256:` and 64 lowercase hex digits.
pub fn is_digest(digest: &str) -> bool {
    digest
        .strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// The path of a skill-relative file with only plain segments: no empty
/// segment, no `.` or `..`, no backslash. What a server serves and a
/// client resolves against a skill's root.
pub fn is_plain_path(path: &str) -> bool {
    !path.is_empty()
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != ".." && !segment.contains('\\'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn front_matter_is_the_block_between_the_first_two_fences() {
        let text = "\u{feff}---\r\nname: a\r\ndescription: b\r\n---\r\nbody\n";
        assert_eq!(frontmatter(text).unwrap(), json!({"name": "a", "description": "b"}).as_object().cloned().unwrap());
        assert_eq!(split("---\nx: 1\n---\nrest").unwrap(), ("x: 1\n", "rest"));
        assert_eq!(split("# no front matter\n"), Err(SkillError::NoFrontmatter));
        assert_eq!(split("---\nname: a\n"), Err(SkillError::NoFrontmatter));
        assert_eq!(frontmatter("---\n- a\n---\n"), Err(SkillError::NotMapping));
    }

    #[test]
    fn name_description_and_segment_are_checked() {
        let ok = frontmatter("---\nname: pdf\ndescription: Reads PDFs.\n---\n").unwrap();
        assert_eq!(check(&ok, "pdf"), Ok(()));
        assert!(matches!(check(&ok, "other"), Err(SkillError::NameMismatch { .. })));
        let no_description = frontmatter("---\nname: pdf\n---\n").unwrap();
        assert_eq!(check(&no_description, "pdf"), Err(SkillError::Missing("description")));
        let number = frontmatter("---\nname: 12\ndescription: d\n---\n").unwrap();
        assert_eq!(check(&number, "12"), Err(SkillError::Missing("name")));
        let long = frontmatter(&format!("---\nname: a\ndescription: {}\n---\n", "x".repeat(1025))).unwrap();
        assert_eq!(check(&long, "a"), Err(SkillError::DescriptionLength(1025)));
        assert!(check_name(&"a".repeat(64)).is_ok());
        assert!(check_name(&"a".repeat(65)).is_err());
    }

    #[test]
    fn plain_paths_have_no_dot_segments() {
        assert!(is_plain_path("references/FORMS.md"));
        for bad in ["", "/a", "a//b", "a/../b", "./a", "a\\b", "a/"] {
            assert!(!is_plain_path(bad), "{bad}");
        }
    }
}
