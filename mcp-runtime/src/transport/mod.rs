//! Transports: they frame bytes and drive the dispatcher, nothing more.

#[cfg(feature = "stdio")]
pub mod stdio;
