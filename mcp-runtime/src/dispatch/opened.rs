//! A retry's `requestState` opened before the request's layers run
//! ([`Opened`]): what the layers are told of the round is what the state
//! says.

use crate::input::request_state::{OpenedState, Round};
use crate::protocol::ErrorObject;

/// A retry's `requestState`, opened (or refused), with the digest of the
/// arguments it was opened against.
pub(crate) struct Opened {
    pub(crate) digest: Option<String>,
    pub(crate) state: Result<OpenedState, ErrorObject>,
}

impl Opened {
    /// The round the state resumes, if it opened.
    pub(crate) fn round(&self) -> Option<Round> {
        self.state.as_ref().ok().map(|opened| opened.round)
    }
}
