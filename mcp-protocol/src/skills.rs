//! Skills (the `io.modelcontextprotocol/skills` extension): `skills/list`,
//! `skills/get` and `resources/directory/read`. A skill is a directory of
//! files served as resources; its entry names each file with its digest
//! and size, so that a client can check what it reads.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::resources::Resource;

/// The extension's identifier, the key of its settings under
/// `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a directory resource (`resources/directory/read`).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// A skill as `skills/list` and `skills/get` describe it.
///
/// ```
/// use mcp_runtime_protocol::{Skill, SkillFiles};
///
/// let skill: Skill = serde_json::from_str(r#"{
///     "uri": "skill://pdf/SKILL.md",
///     "frontmatter": {"name": "pdf", "description": "Fills PDF forms."},
///     "resources": [{"uri": "skill://pdf/SKILL.md", "digest": "sha256:00", "size": 2}]
/// }"#)?;
/// assert!(matches!(skill.resources, SkillFiles::Listed(ref files) if files.len() == 1));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md`'s YAML front matter, as JSON.
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill, or `"dynamic"` when its content is made
    /// as it is read.
    pub resources: SkillFiles,
}

impl Skill {
    /// A skill entry.
    pub fn new(uri: impl Into<String>, frontmatter: Map<String, Value>, resources: SkillFiles) -> Self {
        Skill { uri: uri.into(), frontmatter, resources }
    }

    /// The front matter's `name`, if it is a string.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The front matter's `description`, if it is a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }
}

/// The files of a skill: every one listed, or `"dynamic"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillFiles {
    /// Every file, each once, `SKILL.md` included.
    Listed(Vec<SkillFile>),
    /// `"dynamic"`: the files are made as they are read, so no digest can
    /// be given.
    Dynamic(Dynamic),
}

/// The literal `"dynamic"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dynamic {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// One file of a skill: its URI, the SHA-256 of its bytes and their number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    /// The file's URI, under the skill's directory.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// The number of bytes.
    pub size: u64,
}

impl SkillFile {
    /// A file entry.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> Self {
        SkillFile { uri: uri.into(), digest: digest.into(), size }
    }
}

/// The result of `skills/list`: one page of skills.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The skills of this page.
    pub skills: Vec<Skill>,
    /// The cursor of the next page, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Params of `skills/get` (without `_meta`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

impl GetSkillParams {
    /// Params asking for the skill whose `SKILL.md` is at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        GetSkillParams { uri: uri.into() }
    }
}

/// The result of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillResult {
    /// The skill.
    pub skill: Skill,
}

/// Params of `resources/directory/read` (without `_meta`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadDirectoryParams {
    /// The directory's URI (no trailing `/`).
    pub uri: String,
    /// Where the page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// The result of `resources/directory/read`: the directory's direct
/// children, files and directories (`mimeType: "inode/directory"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct ReadDirectoryResult {
    /// The children of this page.
    pub resources: Vec<Resource>,
    /// The cursor of the next page, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}
