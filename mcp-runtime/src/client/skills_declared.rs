//! What the skills client keeps and says apart from its requests: what
//! the server declared of the extension ([`Declared`]), held by every
//! [`Client`](super::Client), and why a skill was refused
//! ([`SkillRefusal`]), which [`Error`](super::Error) carries. Kept apart
//! so that neither the client nor its errors depend on the skills client.

use std::sync::Arc;

use crate::protocol::SKILLS_EXTENSION;

/// What the server declared of the extension, found out by the first
/// request that needs it and kept for the client's life (with its clones).
pub(crate) type Declared = Arc<tokio::sync::OnceCell<Option<Settings>>>;

/// The extension's settings, as the server declared them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// `directoryRead: true`: `resources/directory/read` is served.
    pub(crate) directory_read: bool,
}

/// Why the client refused a skill, a file of one, or a skills request:
/// nothing of what was refused is used, and a request refused before it
/// was sent is not sent. The error [`Error::Skill`](super::Error::Skill) carries it.
///
/// A check that fails is the server's doing (or of what stands between):
/// the skill changed since its entry was got, or the server serves what it
/// does not list. Get the entry again ([`Client::get_skill`](super::Client::get_skill)) and load that.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillRefusal {
    /// The server did not declare the skills extension
    /// (`capabilities.extensions["io.modelcontextprotocol/skills"]`):
    /// `method` was not sent.
    #[error("the server does not declare the skills extension (`{SKILLS_EXTENSION}`): `{method}` was not sent")]
    NotDeclared {
        /// The request not sent.
        method: &'static str,
    },
    /// The server did not declare `directoryRead: true`:
    /// `resources/directory/read` was not sent.
    #[error("the server does not declare `directoryRead` for skills: `resources/directory/read` was not sent")]
    NoDirectoryRead,
    /// The skill's entry breaks the extension's rules (no entry of its own
    /// `SKILL.md`, a malformed digest, more files or bytes than a host
    /// must accept): nothing of it was read.
    #[error("the entry of skill {skill} is refused: {reason}; nothing of it was read")]
    Entry {
        /// The skill's URI.
        skill: String,
        /// What is wrong.
        reason: String,
    },
    /// A file that the entry the skill was loaded from does not list (or
    /// a path that leaves the skill's directory): not read.
    #[error("`{file}` is not a file the entry of skill {skill} lists: it was not read")]
    Unlisted {
        /// The skill's URI.
        skill: String,
        /// The path or URI asked for.
        file: String,
    },
    /// The bytes read are not as many as the entry lists.
    #[error("{uri} has {read} bytes where its entry lists {listed}: refused")]
    Size {
        /// The file's URI.
        uri: String,
        /// The entry's `size`.
        listed: u64,
        /// The bytes read.
        read: u64,
    },
    /// The bytes read do not have the digest the entry lists.
    #[error("{uri} has the digest {read} where its entry lists {listed}: refused")]
    Digest {
        /// The file's URI.
        uri: String,
        /// The entry's `digest`.
        listed: String,
        /// The digest of the bytes read.
        read: String,
    },
    /// The `SKILL.md`'s front matter is not the entry's `frontmatter`.
    #[error("the front matter of {uri} differs from its entry's in {}: refused", fields.join(", "))]
    Frontmatter {
        /// The `SKILL.md`'s URI.
        uri: String,
        /// The fields that differ (missing on one side, or another value),
        /// sorted.
        fields: Vec<String>,
    },
    /// What the server answered is not a file's bytes: no contents of the
    /// URI, a blob that is not base64, or a `SKILL.md` that is not UTF-8 or
    /// has no front matter that reads.
    #[error("{uri} cannot be read as a skill's file: {reason}")]
    Unreadable {
        /// The file's URI.
        uri: String,
        /// What is wrong.
        reason: String,
    },
}
