//! Helpers shared by the integration tests: validation of every emitted
//! message against the official 2026-07-28 JSON Schema, and a way to drive
//! a server with raw JSON-RPC.

pub mod dpop;
pub mod exchange;
pub mod front;
pub mod haproxy;
pub mod heard;
pub mod http_wire;
pub mod oidc;
pub mod process;
pub mod python_sdk;
pub mod redis;
pub mod redis_cluster;
pub mod scripted;
pub mod session_schema;
pub mod stdio_session;
pub mod task_schema;
pub mod validated_client;
pub mod wire_schema;
