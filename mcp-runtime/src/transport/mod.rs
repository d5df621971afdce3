//! Transports: they frame bytes and drive the dispatcher, nothing more.

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "stdio")]
pub mod stdio;
