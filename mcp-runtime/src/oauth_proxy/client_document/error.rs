//! Why a client id's document cannot be used.

use std::net::IpAddr;
use std::time::Duration;

/// Why a client id's document cannot be used, in words for the client's
/// developer (they reach them as an `error_description`, or on the error
/// page the person sees).
#[derive(Debug, thiserror::Error)]
pub(crate) enum DocumentError {
    /// The client id is not an `https` URL (or `http`, where allowed).
    #[error("the client id is not an https URL")]
    NotHttps,
    /// The client id is a URL no document may have.
    #[error("the client id is not a usable document URL: {0}")]
    InvalidUrl(&'static str),
    /// The host is, or resolves to, an address that is not public.
    #[error("the document's host resolves to a private address ({0})")]
    PrivateAddress(IpAddr),
    /// No answer: the host unknown, no connection, TLS failed, the
    /// connection broken. Another try may succeed.
    #[error("the document could not be fetched: {0}")]
    Unreachable(String),
    /// No whole answer within the policy's timeout.
    #[error("fetching the document took longer than {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// A redirect, which is not followed: the client id must be where the
    /// document is.
    #[error(
        "the document server answered {0}, a redirect, which is not followed: the client id must be the document's own URL"
    )]
    Redirect(u16),
    /// A status other than 200.
    #[error("the document server answered {0}")]
    Status(u16),
    /// A `Content-Type` other than `application/json`.
    #[error("the document's content type is {0}, not application/json")]
    ContentType(String),
    /// A document larger than the policy's limit.
    #[error("the document is larger than {0} bytes")]
    TooLarge(usize),
    /// A body that is not a JSON object.
    #[error("the document is not a JSON object: {0}")]
    NotJson(String),
    /// A document whose `client_id` is not the URL it was fetched from.
    #[error("the document's client_id is not its URL: {0}")]
    ClientIdMismatch(String),
    /// A document with no redirect URI, or an empty list of them.
    #[error("the document names no redirect_uris")]
    NoRedirectUris,
    /// A document with a secret: it is public, so whatever secret it holds
    /// is known to everyone.
    #[error("the document holds a {0}: a client metadata document is public and cannot hold a secret")]
    Secret(&'static str),
    /// A `token_endpoint_auth_method` other than `none`.
    #[error(
        "the document's token_endpoint_auth_method is {0}: only \"none\" is accepted, as this server cannot verify private_key_jwt or any other authentication of a client known by its document"
    )]
    AuthMethod(String),
    /// A field of the wrong type or value.
    #[error("the document's {field} {reason}")]
    InvalidField {
        /// The field, as the document names it.
        field: &'static str,
        /// What is wrong with it, a phrase after the field's name.
        reason: String,
    },
}

impl DocumentError {
    /// Whether the document could not be had, rather than was had and is
    /// unusable: no answer, no answer in time, or a server error, all of
    /// which another try may mend.
    pub(crate) fn is_unreachable(&self) -> bool {
        match self {
            DocumentError::Unreachable(_) | DocumentError::Timeout(_) => true,
            DocumentError::Status(status) => *status >= 500,
            _ => false,
        }
    }
}
