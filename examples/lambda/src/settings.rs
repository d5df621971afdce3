//! The function's settings, from its environment variables.

use std::fmt;

use mcp_runtime::server::RequestStateKey;

/// The variable holding the secret that seals `requestState`.
pub const REQUEST_STATE_KEY_VAR: &str = "MCP_REQUEST_STATE_KEY";

/// The shortest secret accepted, as for the other examples: a shorter one
/// is guessable, and it guards every instance's `requestState`.
const MIN_KEY_BYTES: usize = 32;

/// What the function is configured with.
#[derive(Clone)]
pub struct Settings {
    /// The key every instance seals and opens `requestState` with. Lambda
    /// runs as many instances as there are concurrent requests and starts
    /// new ones at will, so a key of each process's own would refuse most
    /// retries of multi round-trip requests: it is required.
    pub request_state_key: RequestStateKey,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings").finish_non_exhaustive()
    }
}

/// A setting that is missing or unusable; the message names its variable.
#[derive(Clone, PartialEq, Eq)]
pub struct SettingsError(String);

/// The message alone: `main` returning the error prints it this way, in
/// the function's log.
impl fmt::Debug for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SettingsError {}

impl Settings {
    /// Reads [`REQUEST_STATE_KEY_VAR`] from the process's environment.
    pub fn from_env() -> Result<Self, SettingsError> {
        match std::env::var(REQUEST_STATE_KEY_VAR) {
            Ok(secret) => Self::from_secret(&secret),
            Err(std::env::VarError::NotPresent) => Self::from_secret(""),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(SettingsError(format!("{REQUEST_STATE_KEY_VAR} is not valid UTF-8")))
            }
        }
    }

    /// Settings sealing `requestState` with `secret`, taken whole (spaces at
    /// its ends are part of it).
    pub fn from_secret(secret: &str) -> Result<Self, SettingsError> {
        if secret.is_empty() {
            return Err(SettingsError(format!(
                "{REQUEST_STATE_KEY_VAR} is not set: every instance of the function must seal requestState with \
                 one shared secret of at least {MIN_KEY_BYTES} random bytes (openssl rand -base64 48)"
            )));
        }
        if secret.len() < MIN_KEY_BYTES {
            return Err(SettingsError(format!(
                "{REQUEST_STATE_KEY_VAR}: {} bytes is too short a secret, use at least {MIN_KEY_BYTES} random ones \
                 (openssl rand -base64 48)",
                secret.len()
            )));
        }
        Ok(Settings { request_state_key: RequestStateKey::from_secret(secret.as_bytes()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_is_required_and_long_enough() {
        let missing = Settings::from_secret("").expect_err("required").to_string();
        assert!(missing.starts_with("MCP_REQUEST_STATE_KEY is not set"), "{missing}");
        let short = Settings::from_secret("short").expect_err("too short").to_string();
        assert!(short.starts_with("MCP_REQUEST_STATE_KEY: 5 bytes"), "{short}");
        assert!(Settings::from_secret(&"k".repeat(MIN_KEY_BYTES)).is_ok());
    }
}
