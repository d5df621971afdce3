//! What a directory of skills holds: every directory with a `SKILL.md` is
//! a skill, and every regular file under it is one of its files. The one
//! walk `skills!` makes at compile time and a server makes of a directory
//! on disk, so both serve the same files of the same tree.
//!
//! The walk is strict, since what it finds is served: a symbolic link is
//! refused (it could lead out of the tree), names that start with `.` are
//! left out (`.git`, `.DS_Store`), every name must be a plain URI segment
//! (`A-Z a-z 0-9 - . _ ~`), and a skill past the extension's limits
//! ([`FILES_MAX`] files, [`SIZE_MAX`] bytes) is refused.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{FILES_MAX, SIZE_MAX, SKILL_FILE, SkillError};

/// The deepest a file may be below the directory walked.
const MAX_DEPTH: usize = 16;

/// A skill found by [`scan`].
#[derive(Debug, Clone)]
pub struct ScannedSkill {
    /// Its path in skill URIs: the directory's path below the one walked
    /// (`acme/billing/refunds`), or the walked directory's own name when it
    /// is the skill.
    pub path: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Its `SKILL.md`'s front matter, checked.
    pub frontmatter: Map<String, Value>,
    /// Its files, sorted by path, `SKILL.md` among them.
    pub files: Vec<ScannedFile>,
}

/// A file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedFile {
    /// Its path below the skill's directory, `/`-separated.
    pub path: String,
    /// Where it is.
    pub full: PathBuf,
    /// Its size when walked.
    pub size: u64,
}

/// Why a directory of skills cannot be served.
#[derive(Debug)]
pub enum ScanError {
    /// A file or directory could not be read.
    Io {
        /// Which.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A symbolic link, which is not served.
    Symlink(PathBuf),
    /// A name that is not a plain URI segment.
    Name(PathBuf),
    /// A file deeper than the walk goes.
    TooDeep(PathBuf),
    /// A `SKILL.md` that breaks the rules, or is not UTF-8.
    Skill {
        /// The `SKILL.md`.
        path: PathBuf,
        /// What is wrong.
        error: SkillError,
    },
    /// A skill with more files or bytes than the extension allows.
    TooLarge {
        /// The skill's directory.
        path: PathBuf,
        /// Which limit.
        what: String,
    },
    /// No `SKILL.md` anywhere under the directory.
    NoSkills(PathBuf),
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ScanError::Symlink(path) => write!(
                f,
                "{} is a symbolic link: skills are served from regular files only, which cannot lead out of the directory",
                path.display()
            ),
            ScanError::Name(path) => write!(
                f,
                "{}: a skill's file and directory names are made of `A-Z a-z 0-9 - . _ ~` (they are URI segments)",
                path.display()
            ),
            ScanError::TooDeep(path) => write!(f, "{} is more than {MAX_DEPTH} directories deep", path.display()),
            ScanError::Skill { path, error } => write!(f, "{}: {error}", path.display()),
            ScanError::TooLarge { path, what } => write!(f, "the skill at {} has {what}", path.display()),
            ScanError::NoSkills(path) => write!(f, "{} holds no {SKILL_FILE}, at its root or below", path.display()),
        }
    }
}

impl std::error::Error for ScanError {}

/// Whether `name` is a plain URI segment this walk serves.
pub fn is_segment(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// The skills under `root` (which may itself be one), sorted by path.
pub fn scan(root: &Path) -> Result<Vec<ScannedSkill>, ScanError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| ScanError::Io { path, error }
    };
    let meta = fs::metadata(root).map_err(io(root))?;
    if !meta.is_dir() {
        let error = std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory");
        return Err(ScanError::Io { path: root.to_owned(), error });
    }
    let mut files = Vec::new();
    walk(root, "", 0, &mut files)?;
    // The directories holding a SKILL.md, each a skill.
    let mut skills = Vec::new();
    for file in &files {
        let Some(dir) = file.path.strip_suffix(SKILL_FILE) else { continue };
        if !(dir.is_empty() || dir.ends_with('/')) {
            continue;
        }
        let dir = dir.trim_end_matches('/');
        let path = if dir.is_empty() {
            let canonical = fs::canonicalize(root).map_err(io(root))?;
            let name = canonical.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            if !is_segment(&name) {
                return Err(ScanError::Name(root.to_owned()));
            }
            name
        } else {
            dir.to_owned()
        };
        let segment = path.rsplit('/').next().unwrap_or(&path);
        let text = fs::read(&file.full).map_err(io(&file.full))?;
        let skill_error = |error| ScanError::Skill { path: file.full.clone(), error };
        let text = String::from_utf8(text).map_err(|_| skill_error(SkillError::NoFrontmatter))?;
        let frontmatter = super::frontmatter(&text).map_err(skill_error)?;
        super::check(&frontmatter, segment).map_err(skill_error)?;
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let own: Vec<ScannedFile> = files
            .iter()
            .filter_map(|f| {
                let path = f.path.strip_prefix(&prefix)?;
                Some(ScannedFile { path: path.to_owned(), full: f.full.clone(), size: f.size })
            })
            .collect();
        let skill_dir = if dir.is_empty() { root.to_owned() } else { root.join(dir) };
        if own.len() > FILES_MAX {
            return Err(ScanError::TooLarge {
                path: skill_dir,
                what: format!("{} files, more than {FILES_MAX}", own.len()),
            });
        }
        let size: u64 = own.iter().map(|f| f.size).sum();
        if size > SIZE_MAX {
            return Err(ScanError::TooLarge { path: skill_dir, what: format!("{size} bytes, more than 16 MiB") });
        }
        skills.push(ScannedSkill { path, dir: skill_dir, frontmatter, files: own });
    }
    if skills.is_empty() {
        return Err(ScanError::NoSkills(root.to_owned()));
    }
    skills.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(skills)
}

/// Every regular file under `dir`, its path below the root `prefix`ed.
fn walk(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<ScannedFile>) -> Result<(), ScanError> {
    if depth > MAX_DEPTH {
        return Err(ScanError::TooDeep(dir.to_owned()));
    }
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| ScanError::Io { path, error }
    };
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        entries.push(entry.path());
    }
    entries.sort();
    for full in entries {
        let Some(name) = full.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            return Err(ScanError::Name(full));
        };
        if name.starts_with('.') {
            continue;
        }
        // Never followed: the link itself is looked at.
        let meta = fs::symlink_metadata(&full).map_err(io(&full))?;
        if meta.file_type().is_symlink() {
            return Err(ScanError::Symlink(full));
        }
        if !is_segment(&name) {
            return Err(ScanError::Name(full));
        }
        let path = format!("{prefix}{name}");
        if meta.is_dir() {
            walk(&full, &format!("{path}/"), depth + 1, out)?;
        } else if meta.is_file() {
            out.push(ScannedFile { path, full, size: meta.len() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!(
            "mcp-rules-scan-{}-{}",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
        ));
        for (path, text) in files {
            let full = root.join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        }
        root
    }

    const PDF: &str = "---\nname: pdf\ndescription: PDFs.\n---\n";

    #[test]
    fn every_directory_with_a_skill_file_is_a_skill_with_every_file_below() {
        let root = tree(&[
            ("pdf/SKILL.md", PDF),
            ("pdf/references/FORMS.md", "forms"),
            ("pdf/.hidden", "x"),
            ("acme/inner/SKILL.md", "---\nname: inner\ndescription: I.\n---\n"),
            ("README.md", "not a skill"),
        ]);
        let skills = scan(&root).unwrap();
        let paths: Vec<&str> = skills.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["acme/inner", "pdf"]);
        let files: Vec<&str> = skills[1].files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(files, ["SKILL.md", "references/FORMS.md"]);
        assert_eq!(skills[1].files[1].size, 5);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_skill_at_the_root_is_named_by_the_directory() {
        let root = tree(&[("pdf/SKILL.md", PDF)]);
        let skills = scan(&root.join("pdf")).unwrap();
        assert_eq!(skills[0].path, "pdf");
        assert!(matches!(scan(&root.join("pdf/SKILL.md")), Err(ScanError::Io { .. })));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn links_odd_names_bad_front_matter_and_empty_trees_are_refused() {
        let root = tree(&[("pdf/SKILL.md", PDF)]);
        std::os::unix::fs::symlink("/etc/hostname", root.join("pdf/host")).unwrap();
        assert!(matches!(scan(&root), Err(ScanError::Symlink(_))));
        fs::remove_file(root.join("pdf/host")).unwrap();
        fs::write(root.join("pdf/my file.md"), "x").unwrap();
        assert!(matches!(scan(&root), Err(ScanError::Name(_))));
        fs::remove_file(root.join("pdf/my file.md")).unwrap();
        fs::write(root.join("pdf/SKILL.md"), "---\nname: other\ndescription: d\n---\n").unwrap();
        assert!(matches!(scan(&root), Err(ScanError::Skill { error: SkillError::NameMismatch { .. }, .. })));
        fs::remove_dir_all(root.join("pdf")).unwrap();
        assert!(matches!(scan(&root), Err(ScanError::NoSkills(_))));
        fs::remove_dir_all(root).unwrap();
    }
}
