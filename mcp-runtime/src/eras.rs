//! Which protocol eras a server answers: the stateless 2026-07-28 revision,
//! the 2025-era revisions that open with `initialize`, or both at once.

use std::fmt;
use std::str::FromStr;

use crate::protocol::{PROTOCOL_VERSION, ProtocolVersion};

/// The environment variable [`ServerBuilder`](crate::ServerBuilder) reads
/// the eras from when [`eras`](crate::ServerBuilder::eras) was not called:
/// `modern`, `legacy` or `dual`.
pub const ERAS_ENV: &str = "MCP_ERAS";

/// The 2025-era revisions a server negotiates with `initialize`, newest first.
/// ([`ProtocolVersion::SESSION`], as text).
pub const LEGACY_VERSIONS: &[&str] =
    &[ProtocolVersion::SESSION[0].as_str(), ProtocolVersion::SESSION[1].as_str(), ProtocolVersion::SESSION[2].as_str()];

/// Which clients a server serves.
///
/// ```
/// use mcp_runtime::{Server, server::Eras};
///
/// // No `initialize`, no sessions, nothing kept between requests: the
/// // shape for serverless deployment.
/// let server = Server::builder("demo", "1.0.0").eras(Eras::Modern).build()?;
/// assert_eq!(server.eras().versions(), ["2026-07-28"]);
/// # Ok::<(), mcp_runtime::BuildError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Eras {
    /// Both, per request: a request carrying the 2026-07-28 `_meta` is
    /// served statelessly, `initialize` opens a 2025-era session. The
    /// default (with the `legacy` feature, on by default; without it the
    /// default is [`Modern`](Eras::Modern), and asking for this or
    /// [`Legacy`](Eras::Legacy) is a [`BuildError`](crate::BuildError)).
    Dual,
    /// 2026-07-28 only: `initialize` and the other 2025-era methods are
    /// refused with an error naming the versions served, and no session
    /// is ever kept.
    Modern,
    /// 2025-era clients only: `server/discover` is `-32601` and a request
    /// carrying the 2026-07-28 `_meta` is refused naming the versions served.
    Legacy,
}

impl Default for Eras {
    /// [`Dual`](Eras::Dual) when the `legacy` feature is on (the default),
    /// else [`Modern`](Eras::Modern).
    fn default() -> Self {
        if cfg!(feature = "legacy") { Eras::Dual } else { Eras::Modern }
    }
}

const DUAL: &[&str] = &[PROTOCOL_VERSION, LEGACY_VERSIONS[0], LEGACY_VERSIONS[1], LEGACY_VERSIONS[2]];

impl Eras {
    /// Whether requests of the 2026-07-28 revision are served.
    pub const fn serves_modern(self) -> bool {
        matches!(self, Eras::Dual | Eras::Modern)
    }

    /// Whether `initialize` opens a 2025-era session.
    pub const fn serves_legacy(self) -> bool {
        matches!(self, Eras::Dual | Eras::Legacy)
    }

    /// Every protocol version served, newest first: what `server/discover`
    /// and an unsupported-version error list.
    pub const fn versions(self) -> &'static [&'static str] {
        match self {
            Eras::Dual => DUAL,
            Eras::Modern => std::slice::from_ref(&PROTOCOL_VERSION),
            Eras::Legacy => LEGACY_VERSIONS,
        }
    }
}

impl FromStr for Eras {
    type Err = String;

    /// `modern`, `legacy` or `dual` (case-insensitive; `modern-only` and
    /// `legacy-only` too).
    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "dual" => Ok(Eras::Dual),
            "modern" | "modern-only" => Ok(Eras::Modern),
            "legacy" | "legacy-only" => Ok(Eras::Legacy),
            other => Err(format!("`{other}` is not an era choice: expected `modern`, `legacy` or `dual`")),
        }
    }
}

impl fmt::Display for Eras {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Eras::Dual => "dual",
            Eras::Modern => "modern",
            Eras::Legacy => "legacy",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_parses_back_from_its_name() {
        for eras in [Eras::Dual, Eras::Modern, Eras::Legacy] {
            assert_eq!(eras.to_string().parse::<Eras>(), Ok(eras));
        }
        assert_eq!("Legacy-Only".parse::<Eras>(), Ok(Eras::Legacy));
        assert!("both".parse::<Eras>().unwrap_err().contains("`both`"));
    }

    #[test]
    fn the_versions_served_follow_the_choice() {
        assert_eq!(Eras::Dual.versions(), ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
        assert!(!Eras::Modern.versions().iter().any(|v| LEGACY_VERSIONS.contains(v)));
        assert!(!Eras::Legacy.versions().contains(&PROTOCOL_VERSION));
    }
}
