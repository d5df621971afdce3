//! Per-request and per-result `_meta`: protocol version, client capabilities,
//! client and server identity, log level and progress token.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::icon::Icon;
use super::member::{MemberName, RawMember, read_members};

/// `_meta` key of the protocol version a request speaks.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities of one request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's self-description.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level a request opts in to.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server's self-description on every result.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key tagging every frame of a `subscriptions/listen` stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key of a progress token.
pub const META_PROGRESS_TOKEN: &str = "progressToken";

/// The name and version of a client or server, with optional display data.
///
/// ```
/// use mcp_runtime_protocol::Implementation;
/// let me = Implementation::new("notes", "1.2.0");
/// assert_eq!(serde_json::to_value(&me).unwrap(), serde_json::json!({"name":"notes","version":"1.2.0"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons a client may show.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
}

impl Implementation {
    /// An implementation with just a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: Vec::new(),
        }
    }
}

/// The capabilities a client declares on one request.
///
/// Every map is open: unknown keys are kept in `other` and never rejected.
///
/// ```
/// use mcp_runtime_protocol::ClientCapabilities;
/// let caps: ClientCapabilities =
///     serde_json::from_str(r#"{"elicitation":{},"roots":null,"x-ext":{"a":1}}"#).unwrap();
/// assert!(caps.elicitation.is_some_and(|e| e.supports_form()));
/// assert!(caps.roots.is_none());
/// assert_eq!(caps.other["x-ext"]["a"], 1);
/// assert!(serde_json::from_str::<ClientCapabilities>(r#"{"roots":{},"roots":{}}"#).is_err());
/// assert!(serde_json::from_str::<ClientCapabilities>("[]").is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Roots listing (deprecated feature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Map<String, Value>>,
    /// Sampling (deprecated feature), with optional `context` and `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Elicitation: `{}` means form mode only; `url` enables URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Extensions, keyed by prefixed id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Keys this revision does not define.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Typed builders, so a client (or a test) never spells capabilities as
/// JSON. Each adds to what is already declared.
///
/// ```
/// use mcp_runtime_protocol::ClientCapabilities;
/// let caps = ClientCapabilities::default().with_elicitation().with_url_elicitation().with_sampling_tools().with_roots();
/// assert_eq!(
///     serde_json::to_value(&caps).unwrap(),
///     serde_json::json!({"roots": {}, "sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}}),
/// );
/// ```
impl ClientCapabilities {
    /// Declares form-mode elicitation (`elicitation.form`).
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_elicitation();
    /// assert!(caps.elicitation.is_some_and(|e| e.supports_form() && !e.supports_url()));
    /// ```
    pub fn with_elicitation(mut self) -> Self {
        self.elicitation.get_or_insert_with(Default::default).form.get_or_insert_with(Map::new);
        self
    }

    /// Declares URL-mode elicitation (`elicitation.url`). On its own it
    /// declares URL mode only: add [`with_elicitation`](Self::with_elicitation)
    /// for forms too.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_url_elicitation();
    /// assert!(caps.elicitation.is_some_and(|e| e.supports_url() && !e.supports_form()));
    /// ```
    pub fn with_url_elicitation(mut self) -> Self {
        self.elicitation.get_or_insert_with(Default::default).url.get_or_insert_with(Map::new);
        self
    }

    /// Declares sampling (`sampling: {}`): plain requests, without tools and
    /// with no `includeContext` other than `"none"`.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_sampling();
    /// assert_eq!(serde_json::to_value(&caps).unwrap(), serde_json::json!({"sampling": {}}));
    /// ```
    pub fn with_sampling(mut self) -> Self {
        self.sampling.get_or_insert_with(Default::default);
        self
    }

    /// Declares sampling with tools (`sampling.tools`): the server may put
    /// `tools` and `toolChoice` in a sampling request.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_sampling_tools();
    /// assert_eq!(serde_json::to_value(&caps).unwrap(), serde_json::json!({"sampling": {"tools": {}}}));
    /// ```
    pub fn with_sampling_tools(mut self) -> Self {
        self.sampling.get_or_insert_with(Default::default).tools.get_or_insert_with(Map::new);
        self
    }

    /// Declares sampling with context (`sampling.context`): the server may
    /// ask for an `includeContext` other than `"none"`.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_sampling_context();
    /// assert_eq!(serde_json::to_value(&caps).unwrap(), serde_json::json!({"sampling": {"context": {}}}));
    /// ```
    pub fn with_sampling_context(mut self) -> Self {
        self.sampling.get_or_insert_with(Default::default).context.get_or_insert_with(Map::new);
        self
    }

    /// Declares roots (`roots: {}`).
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// assert!(ClientCapabilities::default().with_roots().roots.is_some());
    /// ```
    pub fn with_roots(mut self) -> Self {
        self.roots.get_or_insert_with(Map::new);
        self
    }

    /// Declares the extension `id` (a prefixed id such as
    /// `io.modelcontextprotocol/tasks`) with its settings, replacing an
    /// earlier declaration of it.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_extension("com.example/trace", serde_json::json!({}));
    /// assert_eq!(caps.extensions.unwrap()["com.example/trace"], serde_json::json!({}));
    /// ```
    pub fn with_extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.extensions.get_or_insert_with(Map::new).insert(id.into(), settings);
        self
    }

    /// Declares the experimental capability `name` with its settings,
    /// replacing an earlier declaration of it.
    ///
    /// ```
    /// # use mcp_runtime_protocol::ClientCapabilities;
    /// let caps = ClientCapabilities::default().with_experimental("drafts", serde_json::json!({"v": 2}));
    /// assert_eq!(caps.experimental.unwrap()["drafts"]["v"], 2);
    /// ```
    pub fn with_experimental(mut self, name: impl Into<String>, settings: Value) -> Self {
        self.experimental.get_or_insert_with(Map::new).insert(name.into(), settings);
        self
    }
}

// Read by hand rather than derived: `#[serde(flatten)]` would buffer every
// member before sorting them out, on every request.
impl<'de> Deserialize<'de> for ClientCapabilities {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;

        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = ClientCapabilities;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of client capabilities")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ClientCapabilities, A::Error> {
                fn once<'de, A: serde::de::MapAccess<'de>, T: Deserialize<'de>>(
                    map: &mut A,
                    slot: &mut Option<T>,
                    seen: &mut bool,
                    name: &'static str,
                ) -> Result<(), A::Error> {
                    if std::mem::replace(seen, true) {
                        return Err(serde::de::Error::duplicate_field(name));
                    }
                    *slot = map.next_value()?;
                    Ok(())
                }
                let mut caps = ClientCapabilities::default();
                let mut seen = [false; 5];
                while let Some(MemberName(key)) = map.next_key::<MemberName<'de>>()? {
                    match &*key {
                        "experimental" => once(&mut map, &mut caps.experimental, &mut seen[0], "experimental")?,
                        "roots" => once(&mut map, &mut caps.roots, &mut seen[1], "roots")?,
                        "sampling" => once(&mut map, &mut caps.sampling, &mut seen[2], "sampling")?,
                        "elicitation" => once(&mut map, &mut caps.elicitation, &mut seen[3], "elicitation")?,
                        "extensions" => once(&mut map, &mut caps.extensions, &mut seen[4], "extensions")?,
                        _ => {
                            caps.other.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                Ok(caps)
            }
        }

        deserializer.deserialize_map(Visit)
    }
}

/// The `sampling` client capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingCapability {
    /// Present when the client honours `includeContext`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// Present when the client accepts `tools` in a sampling request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Map<String, Value>>,
    /// Keys this revision does not define.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The `elicitation` client capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Map<String, Value>>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Map<String, Value>>,
    /// Keys this revision does not define.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl ElicitationCapability {
    /// Form mode is supported: declared explicitly, or implied by an empty object.
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// Severity of a log message, in ascending order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug detail.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Action must be taken.
    Alert,
    /// System is unusable.
    Emergency,
}

impl LoggingLevel {
    /// The wire name of the level.
    pub const fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LoggingLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        serde_json::from_value(Value::String(s.to_owned())).map_err(|_| format!("unknown log level `{s}`"))
    }
}

/// A progress token: a string or a number chosen by the client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// A string token.
    String(String),
    /// A numeric token.
    Number(serde_json::Number),
}

impl ProgressToken {
    /// The token a JSON value holds: a string or a number, nothing else.
    fn from_value(value: Value) -> Option<Self> {
        match value {
            Value::String(s) => Some(ProgressToken::String(s)),
            Value::Number(n) => Some(ProgressToken::Number(n)),
            _ => None,
        }
    }
}

/// The validated `params._meta` of one request.
///
/// It is the only source of what the client is and supports: nothing is
/// remembered between requests.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: String,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo`, when sent.
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel`, when sent: the client's opt-in to log messages.
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`, when sent: the client's opt-in to progress notifications.
    pub progress_token: Option<ProgressToken>,
    /// Every other key (trace context, extension keys), passed through untouched.
    pub other: Map<String, Value>,
}

impl RequestMeta {
    /// A meta object for the given version with no capabilities, as a test
    /// client would send.
    pub fn new(protocol_version: impl Into<String>) -> Self {
        RequestMeta {
            protocol_version: protocol_version.into(),
            client_capabilities: ClientCapabilities::default(),
            client_info: None,
            log_level: None,
            progress_token: None,
            other: Map::new(),
        }
    }

    /// Reads and validates a `_meta` object. The error names the offending key.
    pub fn from_value(meta: Map<String, Value>) -> Result<Self, String> {
        Self::from_json(&Value::Object(meta).to_string())
    }

    /// Reads and validates the JSON text of a `_meta` object, straight into
    /// typed fields (unknown keys are kept in `other`). The error names the
    /// offending key.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let wire: WireMeta<'_> = serde_json::from_str(text).map_err(|e| {
            if text.trim_start().starts_with('{') {
                format!("`_meta` could not be read: {e}")
            } else {
                "`_meta` must be an object".to_owned()
            }
        })?;
        wire.validate()
    }

    /// The `_meta` object as a client sends it (what its
    /// [`Serialize`] writes, as a value).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| Value::Object(Map::new()))
    }
}

/// The `_meta` object as a client sends it, written straight out: the keys
/// this revision defines from their fields, every other key from `other`
/// (where a key this revision defines is the field's, not `other`'s).
///
/// ```
/// use mcp_runtime_protocol::{LoggingLevel, RequestMeta};
/// let mut meta = RequestMeta::new("2026-07-28");
/// meta.log_level = Some(LoggingLevel::Info);
/// let sent = serde_json::to_value(&meta).unwrap();
/// assert_eq!(sent["io.modelcontextprotocol/logLevel"], "info");
/// assert_eq!(RequestMeta::from_json(&sent.to_string()).unwrap(), meta);
/// ```
impl Serialize for RequestMeta {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        const DEFINED: [&str; 5] =
            [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN];
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.other.iter().filter(|(key, _)| !DEFINED.contains(&key.as_str())) {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry(META_PROTOCOL_VERSION, &self.protocol_version)?;
        map.serialize_entry(META_CLIENT_CAPABILITIES, &self.client_capabilities)?;
        if let Some(info) = &self.client_info {
            map.serialize_entry(META_CLIENT_INFO, info)?;
        }
        if let Some(level) = self.log_level {
            map.serialize_entry(META_LOG_LEVEL, level.as_str())?;
        }
        if let Some(token) = &self.progress_token {
            map.serialize_entry(META_PROGRESS_TOKEN, token)?;
        }
        map.end()
    }
}

/// `_meta` as it arrives: the keys this revision defines kept as raw JSON
/// (checked one by one afterwards, for precise errors), every other key in
/// `other`. Reading into this directly, rather than into a map of values
/// first, keeps the most common request path free of needless allocations.
struct WireMeta<'a> {
    protocol_version: Option<&'a RawValue>,
    client_capabilities: Option<&'a RawValue>,
    client_info: Option<&'a RawValue>,
    log_level: Option<&'a RawValue>,
    progress_token: Option<&'a RawValue>,
    other: Map<String, Value>,
}

impl WireMeta<'_> {
    fn validate(self) -> Result<RequestMeta, String> {
        let field = |key: &str| format!("`_meta.{key}`");
        let protocol_version = match self.protocol_version {
            Some(raw) => serde_json::from_str::<String>(raw.get())
                .map_err(|_| format!("{} must be a string", field(META_PROTOCOL_VERSION)))?,
            None => return Err(format!("missing {}", field(META_PROTOCOL_VERSION))),
        };
        let client_capabilities = match self.client_capabilities {
            Some(raw) if raw.get() == "{}" => ClientCapabilities::default(),
            Some(raw) if raw.get().starts_with('{') => serde_json::from_str(raw.get())
                .map_err(|e| format!("invalid {}: {e}", field(META_CLIENT_CAPABILITIES)))?,
            Some(_) => return Err(format!("{} must be an object", field(META_CLIENT_CAPABILITIES))),
            None => return Err(format!("missing {}", field(META_CLIENT_CAPABILITIES))),
        };
        let client_info = match self.client_info {
            Some(raw) => {
                Some(serde_json::from_str(raw.get()).map_err(|e| format!("invalid {}: {e}", field(META_CLIENT_INFO)))?)
            }
            None => None,
        };
        let log_level = match self.log_level {
            Some(raw) => {
                let level: String = serde_json::from_str(raw.get())
                    .map_err(|_| format!("{} must be a string", field(META_LOG_LEVEL)))?;
                Some(level.parse().map_err(|e| format!("invalid {}: {e}", field(META_LOG_LEVEL)))?)
            }
            None => None,
        };
        let progress_token = match self.progress_token {
            Some(raw) => Some(
                serde_json::from_str(raw.get())
                    .ok()
                    .and_then(ProgressToken::from_value)
                    .ok_or_else(|| format!("{} must be a string or a number", field(META_PROGRESS_TOKEN)))?,
            ),
            None => None,
        };
        Ok(RequestMeta {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
            other: self.other,
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for WireMeta<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);

        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = WireMeta<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<WireMeta<'a>, A::Error> {
                const NAMES: [&str; 5] = [
                    META_PROTOCOL_VERSION,
                    META_CLIENT_CAPABILITIES,
                    META_CLIENT_INFO,
                    META_LOG_LEVEL,
                    META_PROGRESS_TOKEN,
                ];
                let mut members = [RawMember::default(); NAMES.len()];
                let mut other = Map::new();
                read_members(&mut map, &NAMES, &mut members, |map, name| {
                    other.insert(name.into_owned(), map.next_value()?);
                    Ok(())
                })?;
                // Which of two values counts would be a guess, and the
                // version is compared with a header.
                if let Some((name, _)) = NAMES.iter().zip(&members).find(|(_, member)| member.repeated) {
                    return Err(serde::de::Error::duplicate_field(name));
                }
                let [protocol_version, client_capabilities, client_info, log_level, progress_token] =
                    members.map(|member| member.value);
                Ok(WireMeta { protocol_version, client_capabilities, client_info, log_level, progress_token, other })
            }
        }

        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}
