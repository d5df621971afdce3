//! What `skills!` embeds: the skills the walk found and checked, each file
//! with the absolute path `include_bytes!` reads it from.

use std::path::{Path, PathBuf};

use mcp_runtime_rules::skill::scan::{self, ScanError};
use proc_macro2::Span;

use super::input::SkillsDir;

/// The skills of one directory, sorted by path, each checked.
#[derive(Debug)]
pub(super) struct Embedded {
    /// The path literal's span, which the generated `include_bytes!` calls
    /// carry: a file removed between the walk and the read is reported
    /// there.
    pub(super) span: Span,
    pub(super) skills: Vec<Skill>,
}

/// One skill.
#[derive(Debug)]
pub(super) struct Skill {
    /// Its path in skill URIs (`acme/billing/refunds`).
    pub(super) path: String,
    /// Its files, sorted by path, `SKILL.md` among them.
    pub(super) files: Vec<File>,
}

/// One file of a skill.
#[derive(Debug)]
pub(super) struct File {
    /// Its path below the skill's directory, `/`-separated.
    pub(super) path: String,
    /// Where it is, absolute, for `include_bytes!`.
    pub(super) full: String,
}

impl Embedded {
    /// Walks `dir` with the rules a server applies to a directory on disk;
    /// any refusal is an error on the path literal, naming the file.
    pub(super) fn scan(dir: &SkillsDir) -> syn::Result<Self> {
        let error = |message: String| syn::Error::new(dir.literal.span(), format!("skills!: {message}"));
        let scanned = scan::scan(&dir.root).map_err(|e| error(as_written(e, dir).to_string()))?;
        let mut skills = Vec::with_capacity(scanned.len());
        for skill in scanned {
            let mut files = Vec::with_capacity(skill.files.len());
            for file in skill.files {
                // The walk takes only names that are URI segments, but the
                // directories above the root may have any name.
                let Some(full) = file.full.to_str() else {
                    let shown = written(&file.full, dir);
                    return Err(error(format!(
                        "{}: the path is not UTF-8, which `include_bytes!` needs",
                        shown.display()
                    )));
                };
                files.push(File { path: file.path, full: full.to_owned() });
            }
            skills.push(Skill { path: skill.path, files });
        }
        Ok(Embedded { span: dir.literal.span(), skills })
    }
}

/// `error` with its path as the user wrote it (`../skills/pdf/SKILL.md`)
/// rather than absolute: the error is spanned on the literal that path
/// starts from, and the message is the same on every machine.
fn as_written(error: ScanError, dir: &SkillsDir) -> ScanError {
    let shown = |path: PathBuf| written(&path, dir);
    match error {
        ScanError::Io { path, error } => ScanError::Io { path: shown(path), error },
        ScanError::Symlink(path) => ScanError::Symlink(shown(path)),
        ScanError::Name(path) => ScanError::Name(shown(path)),
        ScanError::TooDeep(path) => ScanError::TooDeep(shown(path)),
        ScanError::Skill { path, error } => ScanError::Skill { path: shown(path), error },
        ScanError::TooLarge { path, what } => ScanError::TooLarge { path: shown(path), what },
        ScanError::NoSkills(path) => ScanError::NoSkills(shown(path)),
    }
}

/// `path`, below the resolved root, as a path below the one written.
fn written(path: &Path, dir: &SkillsDir) -> PathBuf {
    match path.strip_prefix(&dir.root) {
        // `join("")` would add a trailing separator.
        Ok(rest) if rest.as_os_str().is_empty() => dir.written.clone(),
        Ok(rest) => dir.written.join(rest),
        Err(_) => path.to_owned(),
    }
}
