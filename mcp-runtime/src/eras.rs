//! Which protocol eras a server answers: the stateless 2026-07-28 revision,
//! the 2025-era revisions that open with `initialize`, or both at once.

use std::fmt;
use std::str::FromStr;

use crate::protocol::{PROTOCOL_VERSION, ProtocolVersion};

/// The environment variable [`ServerBuilder`](crate::ServerBuilder) reads
/// the eras from when [`eras`](crate::ServerBuilder::eras) was not called:
/// `stateless`, `session` or `dual`.
pub const ERAS_ENV: &str = "MCP_ERAS";

/// The 2025-era revisions a server negotiates with `initialize`, newest first.
/// ([`ProtocolVersion::SESSION`], as text).
pub const SESSION_VERSIONS: &[&str] =
    &[ProtocolVersion::SESSION[0].as_str(), ProtocolVersion::SESSION[1].as_str(), ProtocolVersion::SESSION[2].as_str()];

/// The former name of [`SESSION_VERSIONS`].
#[deprecated(note = "renamed `SESSION_VERSIONS`")]
pub const LEGACY_VERSIONS: &[&str] = SESSION_VERSIONS;

/// Which clients a server serves.
///
/// ```
/// use mcp_runtime::{Server, server::Eras};
///
/// // No `initialize`, no sessions, nothing kept between requests: the
/// // shape for serverless deployment.
/// let server = Server::builder("demo", "1.0.0").eras(Eras::Stateless).build()?;
/// assert_eq!(server.eras().versions(), ["2026-07-28"]);
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Eras {
    /// Both, per request: a request carrying the 2026-07-28 `_meta` is
    /// served statelessly, `initialize` opens a 2025-era session. The
    /// default (with the `session` feature, on by default; without it the
    /// default is [`Stateless`](Eras::Stateless), and asking for this or
    /// [`Session`](Eras::Session) is a [`BuildError`](crate::BuildError)).
    Dual,
    /// 2026-07-28 only: `initialize` and the other 2025-era methods are
    /// refused with an error naming the versions served, and no session
    /// is ever kept.
    Stateless,
    /// 2025-era clients only: `server/discover` is `-32601` and a request
    /// carrying the 2026-07-28 `_meta` is refused naming the versions served.
    Session,
}

impl Default for Eras {
    /// [`Dual`](Eras::Dual) when the `session` feature is on (the default),
    /// else [`Stateless`](Eras::Stateless).
    fn default() -> Self {
        if cfg!(feature = "session") { Eras::Dual } else { Eras::Stateless }
    }
}

const DUAL: &[&str] = &[PROTOCOL_VERSION, SESSION_VERSIONS[0], SESSION_VERSIONS[1], SESSION_VERSIONS[2]];

#[allow(non_upper_case_globals)]
impl Eras {
    /// The former name of [`Eras::Stateless`].
    #[deprecated(note = "renamed `Eras::Stateless`")]
    pub const Modern: Eras = Eras::Stateless;

    /// The former name of [`Eras::Session`].
    #[deprecated(note = "renamed `Eras::Session`")]
    pub const Legacy: Eras = Eras::Session;

    /// The former name of [`serves_stateless`](Self::serves_stateless).
    #[deprecated(note = "renamed `serves_stateless`")]
    pub const fn serves_modern(self) -> bool {
        self.serves_stateless()
    }

    /// The former name of [`serves_sessions`](Self::serves_sessions).
    #[deprecated(note = "renamed `serves_sessions`")]
    pub const fn serves_legacy(self) -> bool {
        self.serves_sessions()
    }

    /// The eras `text` names, given by `source` (a flag or a variable); a
    /// former word still reads, with a warning naming `source`.
    pub(crate) fn read(text: &str, source: &str) -> Result<Eras, String> {
        if let Some((former, now)) = Eras::former_word(text) {
            tracing::warn!("{source} `{former}` is deprecated: the eras are now called `{now}`");
        }
        text.parse()
    }

    /// The word `text` used for these eras before they were named
    /// stateless and session, with the word that replaces it: still read,
    /// for one release, by [`FromStr`] (so `--eras modern` and
    /// `MCP_ERAS=legacy` keep working), and warned about by
    /// [`read`](Self::read).
    fn former_word(text: &str) -> Option<(&'static str, &'static str)> {
        match text.trim().to_ascii_lowercase().as_str() {
            "modern" => Some(("modern", "stateless")),
            "modern-only" => Some(("modern-only", "stateless")),
            "legacy" => Some(("legacy", "session")),
            "legacy-only" => Some(("legacy-only", "session")),
            _ => None,
        }
    }

    /// Whether requests of the 2026-07-28 revision are served.
    pub const fn serves_stateless(self) -> bool {
        matches!(self, Eras::Dual | Eras::Stateless)
    }

    /// Whether `initialize` opens a 2025-era session.
    pub const fn serves_sessions(self) -> bool {
        matches!(self, Eras::Dual | Eras::Session)
    }

    /// Every protocol version served, newest first: what `server/discover`
    /// and an unsupported-version error list.
    pub const fn versions(self) -> &'static [&'static str] {
        match self {
            Eras::Dual => DUAL,
            Eras::Stateless => std::slice::from_ref(&PROTOCOL_VERSION),
            Eras::Session => SESSION_VERSIONS,
        }
    }
}

impl FromStr for Eras {
    type Err = String;

    /// `stateless`, `session` or `dual` (case-insensitive; `stateless-only` and
    /// `session-only` too, and, deprecated, the former `modern` and `legacy`).
    fn from_str(text: &str) -> Result<Self, String> {
        let word = text.trim().to_ascii_lowercase();
        let word = Eras::former_word(&word).map_or(word.as_str(), |(_, now)| now);
        match word {
            "dual" => Ok(Eras::Dual),
            "stateless" | "stateless-only" => Ok(Eras::Stateless),
            "session" | "session-only" => Ok(Eras::Session),
            other => Err(format!("`{other}` is not an era choice: expected `stateless`, `session` or `dual`")),
        }
    }
}

impl fmt::Display for Eras {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Eras::Dual => "dual",
            Eras::Stateless => "stateless",
            Eras::Session => "session",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_parses_back_from_its_name() {
        for eras in [Eras::Dual, Eras::Stateless, Eras::Session] {
            assert_eq!(eras.to_string().parse::<Eras>(), Ok(eras));
        }
        assert_eq!("Session-Only".parse::<Eras>(), Ok(Eras::Session));
        assert!("both".parse::<Eras>().unwrap_err().contains("`both`"));
    }

    #[test]
    #[allow(deprecated)]
    fn the_former_words_and_names_still_mean_the_same() {
        assert_eq!("modern".parse::<Eras>(), Ok(Eras::Stateless));
        assert_eq!("Legacy-Only".parse::<Eras>(), Ok(Eras::Session));
        assert_eq!(Eras::former_word(" Modern "), Some(("modern", "stateless")));
        assert_eq!(Eras::former_word("stateless"), None);
        assert_eq!(Eras::Modern, Eras::Stateless);
        assert!(matches!(Eras::Session, Eras::Legacy));
        assert_eq!(LEGACY_VERSIONS, SESSION_VERSIONS);
    }

    #[test]
    fn the_versions_served_follow_the_choice() {
        assert_eq!(Eras::Dual.versions(), ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
        assert!(!Eras::Stateless.versions().iter().any(|v| SESSION_VERSIONS.contains(v)));
        assert!(!Eras::Session.versions().contains(&PROTOCOL_VERSION));
    }
}
