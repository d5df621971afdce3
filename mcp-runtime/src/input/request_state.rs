//! Sealed `requestState` for multi round-trip requests.
//!
//! The state travels through the client, which must be treated as an
//! attacker, so it is authenticated with HMAC-SHA256 and carries its own
//! expiry, the request it belongs to (method, tool, prompt or resource
//! name, and a digest of the arguments, so that answers given for one set of
//! arguments cannot be replayed with another) and, on an authenticated
//! server, the caller it was sealed for (another caller's state does not
//! open). A tampered, expired or misplaced state is rejected with `-32602`.
//! The key is random per process unless set, so replicas that must accept
//! each other's state share a configured key.

use std::fmt;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use crate::protocol::ErrorObject;

type HmacSha256 = Hmac<Sha256>;

const VERSION: &str = "v1";

/// The longest `requestState` opened: a request's body may hold 4 MiB
/// (the HTTP transport's default), and a state that large is refused
/// before its MAC is computed. A handler keeping more than this between
/// rounds gets `-32603` when the state is sealed, not a state that would
/// be refused on the way back.
pub(crate) const MAX_STATE_LEN: usize = 1024 * 1024;

/// The secret that seals `requestState`, and how long a state stays valid.
///
/// ```
/// use mcp_runtime::server::RequestStateKey;
/// use std::time::Duration;
/// // Every replica behind one load balancer uses the same key.
/// let key = RequestStateKey::from_secret(b"a long random secret shared by the replicas")
///     .with_lifetime(Duration::from_secs(300));
/// # let _ = key;
/// ```
///
/// Rotating the secret without failing the rounds in progress: every
/// replica gets the new secret and keeps accepting the one it replaces for
/// a while (see [`with_previous`](Self::with_previous)).
#[derive(Clone)]
pub struct RequestStateKey {
    secret: Vec<u8>,
    lifetime: Duration,
    /// The secret this one replaced, accepted (never used to seal) until
    /// the instant given.
    previous: Option<(Vec<u8>, Instant)>,
}

impl RequestStateKey {
    /// The default lifetime of a state: ten minutes.
    pub const DEFAULT_LIFETIME: Duration = Duration::from_secs(600);

    /// A key from a configured secret (use at least 32 random bytes).
    pub fn from_secret(secret: &[u8]) -> Self {
        RequestStateKey { secret: secret.to_vec(), lifetime: Self::DEFAULT_LIFETIME, previous: None }
    }

    /// The key the environment gives: [`KEY_ENV`](Self::KEY_ENV)
    /// (`MCP_REQUEST_STATE_KEY`), and during a rotation
    /// [`PREVIOUS_KEY_ENV`](Self::PREVIOUS_KEY_ENV)
    /// (`MCP_REQUEST_STATE_PREVIOUS_KEY`), accepted for
    /// [`DEFAULT_LIFETIME`](Self::DEFAULT_LIFETIME); `None` when neither is
    /// set. Each secret is taken whole (spaces at its ends are part of it)
    /// and must be at least 32 bytes; a previous key without a key is an
    /// error. What [`ServerBuilder::build`](crate::ServerBuilder::build)
    /// uses when no key is given in code.
    ///
    /// ```
    /// use mcp_runtime::server::RequestStateKey;
    ///
    /// let env = |name: &str| (name == RequestStateKey::KEY_ENV).then(|| "too short".to_owned());
    /// let error = RequestStateKey::from_variables(env).err().expect("a short secret is refused");
    /// assert!(error.contains("too short a secret"), "{error}");
    /// ```
    pub fn from_environment() -> Result<Option<Self>, String> {
        Self::from_variables(|name| std::env::var(name).ok())
    }

    /// [`from_environment`](Self::from_environment), with the variables
    /// read from `var`.
    pub fn from_variables(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, String> {
        const MIN_BYTES: usize = 32;
        let secret = |name: &str| match var(name).filter(|v| !v.is_empty()) {
            Some(secret) if secret.len() < MIN_BYTES => Err(format!(
                "{name}: {} bytes is too short a secret, use at least {MIN_BYTES} random ones (openssl rand -base64 48)",
                secret.len()
            )),
            other => Ok(other),
        };
        match (secret(Self::KEY_ENV)?, secret(Self::PREVIOUS_KEY_ENV)?) {
            (None, None) => Ok(None),
            (None, Some(_)) => {
                Err(format!("{} is set without {}, the key it precedes", Self::PREVIOUS_KEY_ENV, Self::KEY_ENV))
            }
            (Some(key), None) => Ok(Some(Self::from_secret(key.as_bytes()))),
            (Some(key), Some(previous)) => {
                Ok(Some(Self::from_secret(key.as_bytes()).with_previous(previous.as_bytes(), Self::DEFAULT_LIFETIME)))
            }
        }
    }

    /// The variable holding the secret every replica shares.
    pub const KEY_ENV: &'static str = "MCP_REQUEST_STATE_KEY";

    /// The variable holding, during a rotation, the secret
    /// [`KEY_ENV`](Self::KEY_ENV)'s replaces.
    pub const PREVIOUS_KEY_ENV: &'static str = "MCP_REQUEST_STATE_PREVIOUS_KEY";

    /// A fresh random key, valid for this process only.
    pub fn random() -> Self {
        let mut secret = vec![0u8; 32];
        if getrandom::fill(&mut secret).is_err() {
            // No OS randomness: fall back to per-process entropy from the
            // standard library's randomly seeded hasher.
            use std::hash::{BuildHasher, Hasher};
            for chunk in secret.chunks_mut(8) {
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos());
                chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
            }
        }
        RequestStateKey { secret, lifetime: Self::DEFAULT_LIFETIME, previous: None }
    }

    /// Sets how long a sealed state is accepted.
    pub fn with_lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime = lifetime;
        self
    }

    /// Also accepts, for `window` from now, states sealed with `secret`:
    /// the secret this key replaces. New states are always sealed with this
    /// key's own secret. A state lives at most its
    /// [lifetime](Self::with_lifetime), so a window that long lets every
    /// round begun before the rotation finish; afterwards the previous
    /// secret is refused like any other, and can be dropped from the
    /// configuration.
    ///
    /// ```
    /// use mcp_runtime::server::RequestStateKey;
    /// // Every replica, during the rotation: the new secret, and the old one
    /// // for as long as a state sealed with it may live.
    /// let key = RequestStateKey::from_secret(b"the new secret, 32 bytes or more....")
    ///     .with_previous(b"the old secret, 32 bytes or more....", RequestStateKey::DEFAULT_LIFETIME);
    /// # let _ = key;
    /// ```
    pub fn with_previous(mut self, secret: &[u8], window: Duration) -> Self {
        let until = Instant::now().checked_add(window).unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
        self.previous = Some((secret.to_vec(), until));
        self
    }

    fn mac(&self) -> HmacSha256 {
        mac_of(&self.secret)
    }

    /// Whether `tag` authenticates `version.body`: with this key's secret,
    /// or with the previous one while its window lasts.
    fn authentic(&self, version: &str, body: &str, tag: &[u8]) -> bool {
        let verify = |mut mac: HmacSha256| {
            mac.update(version.as_bytes());
            mac.update(b".");
            mac.update(body.as_bytes());
            mac.verify_slice(tag).is_ok()
        };
        verify(self.mac())
            || self.previous.as_ref().is_some_and(|(old, until)| Instant::now() < *until && verify(mac_of(old)))
    }

    /// Seals `state` for the request `method` on `target` with arguments
    /// of digest `digest` (see [`arguments_digest`]), made by `caller` (the
    /// [identity](crate::auth::Principal) of an authenticated caller).
    pub(crate) fn seal(
        &self,
        method: &str,
        target: &str,
        digest: Option<&str>,
        caller: Option<&[u8; 16]>,
        state: &SealedState,
    ) -> String {
        let caller = caller.map(|identity| URL_SAFE_NO_PAD.encode(identity));
        let payload = Payload {
            m: method,
            t: target,
            d: digest,
            c: caller.as_deref(),
            exp: now_ms().saturating_add(self.lifetime.as_millis() as u64),
            a: &state.answers,
            s: state.app.as_ref(),
        };
        let json = serde_json::to_vec(&payload).unwrap_or_default();
        let body = URL_SAFE_NO_PAD.encode(json);
        let mut mac = self.mac();
        mac.update(VERSION.as_bytes());
        mac.update(b".");
        mac.update(body.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{VERSION}.{body}.{tag}")
    }

    /// Opens a state sealed for `method` on `target` with arguments of
    /// digest `digest`, by `caller`, checking its MAC, its expiry and where
    /// and whose it is.
    pub(crate) fn open(
        &self,
        method: &str,
        target: &str,
        digest: Option<&str>,
        caller: Option<&[u8; 16]>,
        sealed: &str,
    ) -> Result<OpenedState, ErrorObject> {
        let invalid = |why: &str| ErrorObject::invalid_params(format!("Invalid requestState: {why}"));
        if sealed.len() > MAX_STATE_LEN {
            return Err(invalid(&format!("longer than {MAX_STATE_LEN} bytes, so not one this server sent")));
        }
        let mut parts = sealed.split('.');
        let (Some(version), Some(body), Some(tag), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("malformed"));
        };
        if version != VERSION {
            return Err(invalid("unknown format"));
        }
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| invalid("malformed"))?;
        if tag.len() < 16 || !self.authentic(version, body, &tag) {
            return Err(invalid("integrity check failed"));
        }
        let json = URL_SAFE_NO_PAD.decode(body).map_err(|_| invalid("malformed"))?;
        let payload: OwnedPayload = serde_json::from_slice(&json).map_err(|_| invalid("malformed"))?;
        if payload.m != method || payload.t != target {
            return Err(invalid("it belongs to another request"));
        }
        if payload.d.as_deref() != digest {
            return Err(invalid("it was issued for other arguments; send the same arguments as the first request"));
        }
        if payload.c != caller.map(|identity| URL_SAFE_NO_PAD.encode(identity)) {
            return Err(invalid("it was issued to another caller"));
        }
        if payload.exp < now_ms() {
            return Err(invalid("expired; start the request again"));
        }
        // The MAC names the state: sealing the same payload again (within
        // the same millisecond) is the only way to make one of the same id.
        let mut id = [0u8; 16];
        id.copy_from_slice(&tag[..16]);
        Ok(OpenedState {
            state: SealedState { answers: payload.a, app: payload.s },
            round: Round { id, expires_at_ms: payload.exp },
        })
    }
}

fn mac_of(secret: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length.
    HmacSha256::new_from_slice(secret).unwrap_or_else(|_| unreachable!("HMAC takes any key length"))
}

impl fmt::Debug for RequestStateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateKey")
            .field("lifetime", &self.lifetime)
            .field("rotating", &self.previous.as_ref().is_some_and(|(_, until)| Instant::now() < *until))
            .finish_non_exhaustive()
    }
}

/// A state that opened: what it carries, and the round it resumes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct OpenedState {
    pub(crate) state: SealedState,
    pub(crate) round: Round,
}

/// A later round of a request: one that carried a state this server sealed
/// for its caller, which opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Round {
    /// Names the sealed state the round carried (the first half of its
    /// MAC): the same state replayed is the same id.
    pub(crate) id: [u8; 16],
    /// When the state stops opening, in milliseconds since the Unix epoch.
    pub(crate) expires_at_ms: u64,
}

/// What a sealed state carries between rounds: the answers received so far
/// and the handler's own state.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SealedState {
    pub(crate) answers: Map<String, Value>,
    pub(crate) app: Option<Value>,
}

#[derive(Serialize)]
struct Payload<'a> {
    m: &'a str,
    t: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    d: Option<&'a str>,
    /// The caller it was sealed for, on an authenticated server.
    #[serde(skip_serializing_if = "Option::is_none")]
    c: Option<&'a str>,
    exp: u64,
    a: &'a Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'a Value>,
}

#[derive(Deserialize)]
struct OwnedPayload {
    m: String,
    t: String,
    #[serde(default)]
    d: Option<String>,
    #[serde(default)]
    c: Option<String>,
    exp: u64,
    #[serde(default)]
    a: Map<String, Value>,
    /// Present is `Some`, even `null`: a handler that saved `null` gets it back.
    #[serde(default, deserialize_with = "present")]
    s: Option<Value>,
}

/// A member that is there, whatever its value (`Option`'s own reading
/// takes `null` for absent).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A digest of a request's arguments: SHA-256 of their canonical JSON (keys
/// sorted at every level, no whitespace), so a client that sends the same
/// arguments again with another spacing or key order still matches.
pub(crate) fn arguments_digest(arguments: &Map<String, Value>) -> String {
    let mut canonical = Vec::new();
    write_object(arguments, &mut canonical);
    URL_SAFE_NO_PAD.encode(Sha256::digest(&canonical))
}

/// [`arguments_digest`] of a tool's raw arguments (absent: none, as `{}`).
/// Text that does not read as an object (a lone surrogate escape, which the
/// tool's own reader may skip) is digested as it is.
pub(crate) fn tool_arguments_digest(arguments: Option<&RawValue>) -> String {
    match arguments.map(|raw| serde_json::from_str::<Map<String, Value>>(raw.get())) {
        None => arguments_digest(&Map::new()),
        Some(Ok(map)) => arguments_digest(&map),
        Some(Err(_)) => {
            let raw = arguments.map(RawValue::get).unwrap_or_default();
            URL_SAFE_NO_PAD.encode(Sha256::digest(format!("raw:{raw}")))
        }
    }
}

fn write_object(map: &Map<String, Value>, out: &mut Vec<u8>) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_scalar(key, out);
        out.push(b':');
        write_canonical(value, out);
    }
    out.push(b'}');
}

fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => write_object(map, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

fn write_scalar(value: &impl Serialize, out: &mut Vec<u8>) {
    // Writing a string or a scalar `Value` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(out, value);
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_in_a_state_come_back_exactly() {
        // Read from a client's arguments, written into the state, read back: the same f64.
        let key = RequestStateKey::from_secret(b"k");
        for text in ["70000000000000000000000062", "7e25", "0.30000000000000004", "1.7976931348623157e308", "5e-324"] {
            let app: Value = serde_json::from_str(text).expect("a number");
            let sealed =
                key.seal("tools/call", "t", None, None, &SealedState { answers: Map::new(), app: Some(app.clone()) });
            let opened = key.open("tools/call", "t", None, None, &sealed).expect("opens");
            assert_eq!(opened.state.app, Some(app), "{text}");
        }
    }

    #[test]
    fn a_saved_null_comes_back_as_saved() {
        let key = RequestStateKey::from_secret(b"k");
        for app in [None, Some(Value::Null), Some(json!(0))] {
            let sealed =
                key.seal("tools/call", "t", None, None, &SealedState { answers: Map::new(), app: app.clone() });
            assert_eq!(key.open("tools/call", "t", None, None, &sealed).expect("opens").state.app, app);
        }
    }

    #[test]
    fn a_state_is_bounded_before_it_is_checked() {
        let key = RequestStateKey::from_secret(b"k");
        let big = SealedState { answers: Map::new(), app: Some(Value::String("x".repeat(MAX_STATE_LEN))) };
        let sealed = key.seal("tools/call", "t", None, None, &big);
        assert!(sealed.len() > MAX_STATE_LEN);
        let error = key.open("tools/call", "t", None, None, &sealed).expect_err("too long");
        assert_eq!(error.code, -32602);
        assert!(error.message.contains("longer than"), "{}", error.message);
    }

    fn state() -> SealedState {
        let mut answers = Map::new();
        answers.insert("step1".into(), json!({"action": "accept"}));
        SealedState { answers, app: Some(json!({"n": 1})) }
    }

    #[test]
    fn round_trips_and_rejects_tampering() {
        let key = RequestStateKey::random();
        let sealed = key.seal("tools/call", "t", None, None, &state());
        assert_eq!(key.open("tools/call", "t", None, None, &sealed).unwrap().state, state());
        assert!(key.open("tools/call", "t", None, None, &format!("{sealed}x")).is_err());
        assert!(key.open("tools/call", "other", None, None, &sealed).is_err());
        assert!(key.open("prompts/get", "t", None, None, &sealed).is_err());
        assert!(RequestStateKey::random().open("tools/call", "t", None, None, &sealed).is_err());
        assert!(key.open("tools/call", "t", None, None, "garbage").is_err());
    }

    #[test]
    fn a_state_is_bound_to_its_arguments() {
        let key = RequestStateKey::random();
        let sealed = key.seal("tools/call", "t", Some("digest-a"), None, &state());
        assert!(key.open("tools/call", "t", Some("digest-a"), None, &sealed).is_ok());
        assert!(key.open("tools/call", "t", Some("digest-b"), None, &sealed).is_err());
        assert!(key.open("tools/call", "t", None, None, &sealed).is_err());
        let unbound = key.seal("tools/call", "t", None, None, &state());
        assert!(key.open("tools/call", "t", Some("digest-a"), None, &unbound).is_err());
    }

    #[test]
    fn the_digest_ignores_spacing_and_key_order_only() {
        let digest = |text: &str| match serde_json::from_str(text) {
            Ok(Value::Object(map)) => arguments_digest(&map),
            _ => panic!("not an object: {text}"),
        };
        let a = digest(r#"{"path":"/tmp/a","opts":{"x":1,"y":[true,null]}}"#);
        assert_eq!(a, digest(r#"{ "opts": {"y": [true, null], "x": 1}, "path": "/tmp/a" }"#));
        assert_eq!(a, digest(r#"{"path":"\/tmp\/a","opts":{"x":1,"y":[true,null]}}"#));
        assert_ne!(a, digest(r#"{"path":"/etc/passwd","opts":{"x":1,"y":[true,null]}}"#));
        assert_ne!(a, digest(r#"{"path":"/tmp/a","opts":{"x":2,"y":[true,null]}}"#));
        assert_ne!(a, digest(r#"{"path":"/tmp/a","opts":{"x":1,"y":[null,true]}}"#));
        assert_ne!(digest("{}"), digest(r#"{"extra":null}"#));
    }

    #[test]
    fn a_state_opens_for_the_caller_it_was_sealed_for_only() {
        let key = RequestStateKey::random();
        let (alice, bob) = ([1u8; 16], [2u8; 16]);
        let sealed = key.seal("tools/call", "t", None, Some(&alice), &state());
        assert!(key.open("tools/call", "t", None, Some(&alice), &sealed).is_ok());
        let error = key.open("tools/call", "t", None, Some(&bob), &sealed).expect_err("another caller's");
        assert!(error.message.contains("another caller"), "{}", error.message);
        assert!(key.open("tools/call", "t", None, None, &sealed).is_err(), "nor without a caller");
        let anonymous = key.seal("tools/call", "t", None, None, &state());
        assert!(key.open("tools/call", "t", None, Some(&alice), &anonymous).is_err(), "nor sealed without one");
    }

    #[test]
    fn a_state_is_named_by_its_seal() {
        let key = RequestStateKey::random();
        let one = key.seal("tools/call", "t", None, None, &state());
        let again = key.open("tools/call", "t", None, None, &one).unwrap().round;
        assert_eq!(again, key.open("tools/call", "t", None, None, &one).unwrap().round, "the same state, the same id");
        let mut other = state();
        other.answers.insert("step2".into(), json!(true));
        let two = key.seal("tools/call", "t", None, None, &other);
        assert_ne!(again.id, key.open("tools/call", "t", None, None, &two).unwrap().round.id);
    }

    #[test]
    fn a_rotated_key_accepts_the_previous_secret_for_its_window_only() {
        let old = RequestStateKey::from_secret(b"old");
        let sealed_before = old.seal("tools/call", "t", None, None, &state());
        let rotated = RequestStateKey::from_secret(b"new").with_previous(b"old", Duration::from_secs(60));
        assert_eq!(rotated.open("tools/call", "t", None, None, &sealed_before).unwrap().state, state());
        // New states are sealed with the new secret only.
        let sealed_after = rotated.seal("tools/call", "t", None, None, &state());
        assert!(RequestStateKey::from_secret(b"new").open("tools/call", "t", None, None, &sealed_after).is_ok());
        assert!(old.open("tools/call", "t", None, None, &sealed_after).is_err());
        // The previous secret is for the window only, and only that one.
        let closed = RequestStateKey::from_secret(b"new").with_previous(b"old", Duration::ZERO);
        assert!(closed.open("tools/call", "t", None, None, &sealed_before).is_err());
        let other = RequestStateKey::from_secret(b"new").with_previous(b"another", Duration::from_secs(60));
        assert!(other.open("tools/call", "t", None, None, &sealed_before).is_err());
        // The rest of the checks still apply to a state of the previous secret.
        assert!(rotated.open("tools/call", "other", None, None, &sealed_before).is_err());
    }

    #[test]
    fn shared_secret_works_across_instances_and_expires() {
        let a = RequestStateKey::from_secret(b"shared");
        let b = RequestStateKey::from_secret(b"shared");
        let sealed = a.seal("tools/call", "t", None, None, &state());
        assert!(b.open("tools/call", "t", None, None, &sealed).is_ok());
        let expired = a.clone().with_lifetime(Duration::ZERO).seal("tools/call", "t", None, None, &state());
        std::thread::sleep(Duration::from_millis(5));
        assert!(b.open("tools/call", "t", None, None, &expired).is_err());
    }
}
