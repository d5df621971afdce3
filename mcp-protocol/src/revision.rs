//! The revisions of the protocol this crate knows, and what each one has,
//! so that code asks a revision a question (`has_sessions`, `knows_titles`)
//! instead of comparing dates.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A revision of the Model Context Protocol. Revisions order by date, so
/// `version >= ProtocolVersion::V2025_06_18` reads "2025-06-18 or later";
/// the predicates say what the code means.
///
/// ```
/// use mcp_runtime_protocol::ProtocolVersion;
///
/// let version: ProtocolVersion = "2025-06-18".parse()?;
/// assert!(version.has_sessions() && version.knows_titles() && !version.has_batches());
/// assert_eq!(ProtocolVersion::LATEST.as_str(), "2026-07-28");
/// assert!(ProtocolVersion::LATEST.is_stateless());
/// assert!("2024-11-05".parse::<ProtocolVersion>().is_err(), "not one this crate speaks");
/// # Ok::<(), mcp_runtime_protocol::UnknownProtocolVersion>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2025-03-26: sessions opened with `initialize`, JSON-RPC batches,
    /// Streamable HTTP.
    V2025_03_26,
    /// 2025-06-18: titles, structured tool output, elicitation; no batches.
    V2025_06_18,
    /// 2025-11-25: icons and descriptions of implementations, URL-mode
    /// elicitation, event streams a server may close and a client resumes.
    V2025_11_25,
    /// 2026-07-28: stateless; no `initialize`, every request describes
    /// itself in `params._meta`, `server/discover`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// The newest revision, which this crate's types describe.
    pub const LATEST: Self = ProtocolVersion::V2026_07_28;
    /// The newest revision with sessions: what a client offers in
    /// `initialize`.
    pub const LATEST_SESSION: Self = ProtocolVersion::V2025_11_25;
    /// Every revision, newest first.
    pub const ALL: [Self; 4] = [Self::V2026_07_28, Self::V2025_11_25, Self::V2025_06_18, Self::V2025_03_26];
    /// The revisions with sessions (opened with `initialize`), newest first.
    pub const SESSION: [Self; 3] = [Self::V2025_11_25, Self::V2025_06_18, Self::V2025_03_26];

    /// The revision as written on the wire: `2026-07-28`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision `text` names exactly, if this crate knows it.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|version| version.as_str() == text)
    }

    /// Whether `text` names a revision of the 2025 session era, known to
    /// this crate or not (`2025-` and a date): what a transport reads, before
    /// anything else, as a request of a session rather than a stateless one.
    ///
    /// ```
    /// use mcp_runtime_protocol::ProtocolVersion;
    /// assert!(ProtocolVersion::names_session_era(b"2025-06-18"));
    /// assert!(ProtocolVersion::names_session_era(b"2025-12-31"));
    /// assert!(!ProtocolVersion::names_session_era(b"2026-07-28"));
    /// ```
    pub fn names_session_era(text: &[u8]) -> bool {
        text.starts_with(b"2025-")
    }

    /// Whether clients open a session with `initialize` (every revision
    /// before 2026-07-28).
    pub const fn has_sessions(self) -> bool {
        !self.is_stateless()
    }

    /// Whether every request describes itself and no session exists
    /// (2026-07-28).
    pub const fn is_stateless(self) -> bool {
        matches!(self, ProtocolVersion::V2026_07_28)
    }

    /// Whether JSON-RPC batches (an array of messages) are allowed: only in
    /// 2025-03-26.
    pub const fn has_batches(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// Whether definitions and implementations have a `title` (2025-06-18
    /// on).
    pub const fn knows_titles(self) -> bool {
        !matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// Whether tools have structured output (`outputSchema`,
    /// `structuredContent`; 2025-06-18 on).
    pub const fn has_structured_output(self) -> bool {
        !matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// Whether implementations have `description`, `icons` and
    /// `websiteUrl`, and definitions `icons` (2025-11-25 on).
    pub const fn knows_icons(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28)
    }

    /// Whether tool definitions have `execution` (how a tool runs as a
    /// task; 2025-11-25 on).
    pub const fn has_tool_execution(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28)
    }

    /// Whether a form field may have a default of any type and titled
    /// choices (`oneOf` of `const` and `title`; 2025-11-25 on): before,
    /// only a boolean has a default, and choices are `enum` with
    /// `enumNames`.
    pub const fn has_titled_choices(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28)
    }

    /// Whether a server may close a session's event stream after an event
    /// with an id (and a `retry`), for the client to resume it with
    /// `Last-Event-ID` (2025-11-25).
    pub const fn resumes_closed_streams(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A protocol version this crate does not know, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProtocolVersion(pub String);

impl fmt::Display for UnknownProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known = ProtocolVersion::ALL.map(ProtocolVersion::as_str).join(", ");
        write!(f, "protocol version {:?} is not one of {known}", self.0)
    }
}

impl std::error::Error for UnknownProtocolVersion {}

impl FromStr for ProtocolVersion {
    type Err = UnknownProtocolVersion;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text).ok_or_else(|| UnknownProtocolVersion(text.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revision_reads_back_from_its_text_and_orders_by_date() {
        for version in ProtocolVersion::ALL {
            assert_eq!(version.as_str().parse::<ProtocolVersion>(), Ok(version));
            let json = serde_json::to_string(&version).expect("serializes");
            assert_eq!(serde_json::from_str::<ProtocolVersion>(&json).expect("reads"), version);
        }
        let mut dates: Vec<_> = ProtocolVersion::ALL.map(ProtocolVersion::as_str).to_vec();
        dates.sort_unstable();
        let mut ordered = ProtocolVersion::ALL.to_vec();
        ordered.sort_unstable();
        assert_eq!(ordered.iter().map(|v| v.as_str()).collect::<Vec<_>>(), dates);
        assert_eq!(
            ProtocolVersion::SESSION.to_vec(),
            ProtocolVersion::ALL.into_iter().filter(|v| v.has_sessions()).collect::<Vec<_>>()
        );
        assert_eq!(ProtocolVersion::SESSION[0], ProtocolVersion::LATEST_SESSION);
        assert_eq!(ProtocolVersion::LATEST.as_str(), crate::PROTOCOL_VERSION);
    }

    #[test]
    fn unknown_versions_are_errors_naming_the_known_ones() {
        let error = " 2025-11-25".parse::<ProtocolVersion>().expect_err("exact text only");
        assert_eq!(
            error.to_string(),
            "protocol version \" 2025-11-25\" is not one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26"
        );
        assert!(serde_json::from_str::<ProtocolVersion>("\"2024-11-05\"").is_err());
    }

    #[test]
    fn what_each_revision_has() {
        use ProtocolVersion::*;
        let has =
            |f: fn(ProtocolVersion) -> bool| ProtocolVersion::ALL.into_iter().filter(|v| f(*v)).collect::<Vec<_>>();
        assert_eq!(has(ProtocolVersion::has_batches), [V2025_03_26]);
        assert_eq!(has(ProtocolVersion::knows_titles), [V2026_07_28, V2025_11_25, V2025_06_18]);
        assert_eq!(has(ProtocolVersion::has_structured_output), [V2026_07_28, V2025_11_25, V2025_06_18]);
        assert_eq!(has(ProtocolVersion::knows_icons), [V2026_07_28, V2025_11_25]);
        assert_eq!(has(ProtocolVersion::has_tool_execution), [V2026_07_28, V2025_11_25]);
        assert_eq!(has(ProtocolVersion::has_titled_choices), [V2026_07_28, V2025_11_25]);
        assert_eq!(has(ProtocolVersion::resumes_closed_streams), [V2025_11_25]);
        assert_eq!(has(ProtocolVersion::is_stateless), [V2026_07_28]);
    }
}
