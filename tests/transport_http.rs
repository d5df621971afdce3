//! The Streamable HTTP transport against a real loopback server: status
//! codes, every header rule, event-stream framing, limits, `Origin`/`Host`
//! checks, cancellation, shutdown, many connections, and mounting in axum.
//! Every JSON-RPC message read back is checked against the official schema.

#[path = "transport_http/connections.rs"]
mod connections;
#[path = "transport_http/cors.rs"]
mod cors;
#[path = "transport_http/embedding.rs"]
mod embedding;
#[path = "transport_http/event_streams.rs"]
mod event_streams;
#[path = "transport_http/fixture.rs"]
mod fixture;
#[path = "transport_http/header_rules.rs"]
mod header_rules;
#[path = "transport_http/health.rs"]
mod health;
#[path = "transport_http/limits.rs"]
mod limits;
#[path = "transport_http/statuses.rs"]
mod statuses;
