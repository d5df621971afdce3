//! Transports: stdio and Streamable HTTP, one room per wire. Each reads
//! messages off its wire, sends each to the era it belongs to (the
//! stateless dispatcher, or a 2025-era session of `session`), and writes the
//! answers back; each keeps its sessions' wire in a `session` room of its
//! own. HTTP adds what only it has (origin and host checks, CORS, bearer
//! tokens, probes, connection limits).

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "stdio")]
pub mod stdio;
