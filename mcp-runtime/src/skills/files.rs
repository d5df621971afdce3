//! The files of skills: where their bytes come from (the binary, or disk),
//! their digests, and the resources that serve them.
//!
//! A file on disk is read again at each read, by the path found when the
//! tree was walked, never by a path a request names: the request names a
//! URI, which is looked up among the walked files. It is opened without
//! following a symbolic link, and served only while its bytes are the ones
//! hashed at start, so a file swapped for a link, or rewritten, after the
//! server started is refused rather than served under a stale digest.

use std::fmt;
use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::handler::outcome::RpcError;
use crate::protocol::{ErrorObject, ResourceContents};
use crate::registry::entry::ResourceEntry;
use mcp_runtime_rules::skill::{self, digest, scan};

/// Why a directory of skills cannot be served: the file and the rule.
#[derive(Debug)]
pub struct SkillsError(scan::ScanError);

impl fmt::Display for SkillsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the skills cannot be served: {}", self.0)
    }
}

impl std::error::Error for SkillsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// A skill ready to serve.
#[derive(Clone)]
pub(crate) struct LoadedSkill {
    /// Its path in URIs (`acme/billing/refunds`).
    pub(super) path: String,
    pub(super) frontmatter: Map<String, Value>,
    pub(super) files: Vec<LoadedFile>,
}

/// A skill embedded by [`skills!`](crate::skills!): what it generates.
#[doc(hidden)]
pub struct EmbeddedSkill {
    /// Its path in URIs.
    pub path: &'static str,
    /// Its files, `SKILL.md` among them.
    pub files: &'static [EmbeddedFile],
}

/// A file of an [`EmbeddedSkill`].
#[doc(hidden)]
pub struct EmbeddedFile {
    /// Its path below the skill's directory, `/`-separated.
    pub path: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
}

/// Where a file's bytes are.
#[derive(Clone)]
pub(crate) enum Source {
    /// In the binary.
    Embedded(&'static [u8]),
    /// On disk, at the path the walk found.
    Disk(Arc<Path>),
}

/// A file of a skill, with what its entry says of it.
#[derive(Clone)]
pub(crate) struct LoadedFile {
    /// Its path below the skill's directory.
    pub(crate) path: String,
    pub(crate) size: u64,
    /// `sha256:` and the hex digest.
    pub(crate) digest: String,
    source: Source,
}

/// An embedded skill, ready to serve. Its front matter was checked when it
/// was compiled, by the rules read here again.
pub(super) fn embedded(skill: &EmbeddedSkill) -> LoadedSkill {
    let frontmatter = skill
        .files
        .iter()
        .find(|f| f.path == skill::SKILL_FILE)
        .and_then(|f| std::str::from_utf8(f.bytes).ok())
        .and_then(|text| skill::frontmatter(text).ok())
        .unwrap_or_default();
    let files = skill
        .files
        .iter()
        .map(|f| LoadedFile {
            path: f.path.to_owned(),
            size: f.bytes.len() as u64,
            digest: digest(f.bytes),
            source: Source::Embedded(f.bytes),
        })
        .collect();
    LoadedSkill { path: skill.path.to_owned(), frontmatter, files }
}

/// The skills under `root`, every file hashed.
pub(super) fn from_disk(root: &Path) -> Result<Vec<LoadedSkill>, SkillsError> {
    let scanned = scan::scan(root).map_err(SkillsError)?;
    let mut skills = Vec::with_capacity(scanned.len());
    for skill in scanned {
        let mut files = Vec::with_capacity(skill.files.len());
        for file in skill.files {
            let bytes = read_confined(&file.full, skill::SIZE_MAX)
                .map_err(|error| SkillsError(scan::ScanError::Io { path: file.full.clone(), error }))?;
            files.push(LoadedFile {
                path: file.path,
                size: bytes.len() as u64,
                digest: digest(&bytes),
                source: Source::Disk(Arc::from(file.full)),
            });
        }
        skills.push(LoadedSkill { path: skill.path, frontmatter: skill.frontmatter, files });
    }
    Ok(skills)
}

/// The bytes of the regular file at `path`, at most `limit` of them. A
/// symbolic link put in the file's place is not followed: the file opened
/// must be the one the path named before it was opened (same device and
/// inode), and a regular file.
fn read_confined(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let before = std::fs::symlink_metadata(path)?;
    if !before.file_type().is_file() {
        return Err(std::io::Error::other("not a regular file (a link, a directory or a device)"));
    }
    let file = std::fs::File::open(path)?;
    let opened = file.metadata()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if (opened.dev(), opened.ino()) != (before.dev(), before.ino()) {
            return Err(std::io::Error::other("the file was replaced while it was opened"));
        }
    }
    if !opened.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::with_capacity(opened.len().min(limit) as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other("larger than it was when the server started"));
    }
    Ok(bytes)
}

/// The MIME type a file is served with, by its extension.
fn mime_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "rs" => "text/x-rust",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

impl LoadedFile {
    /// The resource serving this file of the skill at `base`
    /// (`skill://path`): `SKILL.md` listed, named and described by the
    /// front matter; the others read by URI only.
    pub(crate) fn resource(self, base: &str, frontmatter: &Map<String, Value>) -> ResourceEntry {
        let uri = format!("{base}/{}", self.path);
        let is_skill_file = self.path == skill::SKILL_FILE;
        let name = match (is_skill_file, frontmatter.get("name").and_then(Value::as_str)) {
            (true, Some(name)) => name.to_owned(),
            _ => self.path.rsplit('/').next().unwrap_or(&self.path).to_owned(),
        };
        let mime = mime_type(&self.path);
        let size = self.size;
        let file = Arc::new(self);
        let read_uri: Arc<str> = Arc::from(uri.as_str());
        let mut entry = ResourceEntry::fixed(uri, name, move || {
            let (file, uri) = (Arc::clone(&file), Arc::clone(&read_uri));
            async move { file.contents(&uri) }
        })
        .mime_type(mime)
        .size(size);
        if is_skill_file && let Some(description) = frontmatter.get("description").and_then(Value::as_str) {
            entry = entry.description(description);
        }
        if !is_skill_file {
            entry.listed = false;
        }
        entry
    }

    /// The file's contents: text when it is UTF-8, else bytes.
    fn contents(&self, uri: &str) -> Result<ResourceContents, RpcError> {
        let bytes: std::borrow::Cow<'static, [u8]> = match &self.source {
            Source::Embedded(bytes) => (*bytes).into(),
            Source::Disk(path) => {
                let bytes = read_confined(path, self.size).map_err(|e| changed(uri, &e.to_string()))?;
                if bytes.len() as u64 != self.size || digest(&bytes) != self.digest {
                    return Err(changed(uri, "its bytes are not those the server started with"));
                }
                bytes.into()
            }
        };
        let mime = mime_type(&self.path);
        let contents = match std::str::from_utf8(&bytes) {
            Ok(text) => ResourceContents::text(uri, text),
            Err(_) => ResourceContents::blob(uri, &bytes),
        };
        Ok(contents.with_mime_type(mime))
    }
}

/// A file on disk that is no longer what was hashed: an internal error,
/// since the listing's digest would not match.
fn changed(uri: &str, why: &str) -> RpcError {
    tracing::warn!(%uri, reason = why, "a skill file changed on disk since the server started; restart it to serve the new files");
    RpcError::from(ErrorObject::internal(format!(
        "The skill file {uri} changed on disk since the server started ({why}); it is served again once the server restarts"
    )))
}
