//! Helpers shared by the integration tests: validation of every emitted
//! message against the official 2026-07-28 JSON Schema.

pub mod wire_schema;
