//! The parts every MCP endpoint over HTTP is built from, whatever the
//! protocol era it speaks: request bodies read under limits, response
//! bodies (one JSON document, an event stream, a stream fed by a queue),
//! the responses the transport sends by itself, `Content-Type` and
//! `Accept`, and the limits on requests handled at once and on listen
//! streams.
//!
//! The Streamable HTTP transport ([`crate::transport::http`]) and the
//! 2025-era sessions it serves are made of them; neither is known here.

pub(crate) mod body;
pub(crate) mod deadline;
pub(crate) mod in_flight;
pub(crate) mod listen_limit;
pub(crate) mod media;
pub(crate) mod responses;
pub(crate) mod sse;
