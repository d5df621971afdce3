//! Authorization: who is calling, and what they may do.
//!
//! On HTTP a protected server verifies each request's bearer token on its
//! own (there is no session to lean on) and hands the dispatcher the
//! [`Principal`] the token stands for; the dispatcher then checks the scopes
//! each tool, resource and prompt declares. stdio is never authenticated:
//! a process started by its client takes its credentials from the
//! environment.

mod principal;

pub use principal::Principal;
