//! Skills (the `io.modelcontextprotocol/skills` extension): directories of
//! instructions and supporting files, each with a `SKILL.md`, served as
//! resources under `skill://` with `skills/list`, `skills/get` and
//! `resources/directory/read`.
//!
//! A set of skills comes from a directory embedded in the binary at
//! compile time ([`skills!`](crate::skills!), its front matter checked
//! then), or read from disk when the server starts ([`Skills::dir`]).
//! Either way, every directory holding a `SKILL.md` is a skill, named by
//! its path below the directory given (`acme/billing/refunds` serves
//! `skill://acme/billing/refunds/SKILL.md`), and every regular file under it
//! is one of its files, listed with its SHA-256 digest and size so that a
//! client can check what it reads. The `SKILL.md` of each skill is in
//! `resources/list` (as `text/markdown`, named and described by its front
//! matter); its other files are read by URI, and listed by
//! `resources/directory/read`.
//!
//! ```
//! use mcp_runtime::{Server, skills::Skills};
//!
//! # let root = std::env::temp_dir().join(format!("skills-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(root.join("pdf-processing"))?;
//! # std::fs::write(root.join("pdf-processing/SKILL.md"), "---\nname: pdf-processing\ndescription: Fill PDF forms.\n---\n")?;
//! let server = Server::builder("docs", "1.0.0").skills(Skills::dir(&root)?).build()?;
//! assert!(server.capabilities().extensions.unwrap().contains_key("io.modelcontextprotocol/skills"));
//! # std::fs::remove_dir_all(root)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod files;

use std::path::Path;

use self::files::LoadedSkill;
pub use self::files::SkillsError;
pub use self::files::{EmbeddedFile, EmbeddedSkill};
use crate::protocol::{Skill, SkillFile, SkillFiles};
use crate::registry::entry::ResourceEntry;

/// Skills to serve: from [`skills!`](crate::skills!) or [`Skills::dir`],
/// given to [`ServerBuilder::skills`](crate::ServerBuilder::skills).
#[derive(Clone, Default)]
pub struct Skills {
    skills: Vec<LoadedSkill>,
}

impl Skills {
    /// No skills.
    pub fn new() -> Self {
        Skills::default()
    }

    /// The skills under `root` on disk (which may itself be one skill),
    /// read when this is called: the tree is walked, every `SKILL.md`
    /// checked and every file hashed. Reads later open only those files,
    /// and serve one only while its bytes are still the ones hashed.
    ///
    /// Refused, with the file named: a symbolic link anywhere in the tree
    /// (it could lead out of it), a name that is not a plain URI segment,
    /// a `SKILL.md` without a valid `name` and `description` or whose name
    /// is not its directory's, a skill of more than 512 files or 16 MiB,
    /// and a tree with no `SKILL.md` at all. Names starting with `.` are
    /// left out.
    pub fn dir(root: impl AsRef<Path>) -> Result<Self, SkillsError> {
        files::from_disk(root.as_ref()).map(|skills| Skills { skills })
    }

    /// These skills and `other`'s.
    pub fn and(mut self, other: Skills) -> Self {
        self.skills.extend(other.skills);
        self
    }

    /// How many skills there are.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skills [`skills!`](crate::skills!) embedded.
    #[doc(hidden)]
    pub fn __embedded(skills: &'static [EmbeddedSkill]) -> Self {
        Skills { skills: skills.iter().map(files::embedded).collect() }
    }

    /// The skills as the catalog holds them: each one's entry, and the
    /// resources that serve its files.
    pub(crate) fn into_entries(self) -> (Vec<Skill>, Vec<ResourceEntry>) {
        let mut entries = Vec::with_capacity(self.skills.len());
        let mut resources = Vec::new();
        for skill in self.skills {
            let base = format!("{}://{}", mcp_runtime_rules::skill::SCHEME, skill.path);
            let uri = format!("{base}/{}", mcp_runtime_rules::skill::SKILL_FILE);
            let listed = skill
                .files
                .iter()
                .map(|f| SkillFile::new(format!("{base}/{}", f.path), f.digest.clone(), f.size))
                .collect();
            for file in skill.files {
                resources.push(file.resource(&base, &skill.frontmatter));
            }
            let entry = Skill::new(uri, skill.frontmatter, SkillFiles::Listed(listed));
            entries.push(entry);
        }
        (entries, resources)
    }
}

impl std::fmt::Debug for Skills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.skills.iter().map(|s| &s.path)).finish()
    }
}
