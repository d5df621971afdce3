//! The stateless dispatcher, driven without a transport: every error code,
//! every check of the validation pipeline and the order the 2026-07-28
//! revision gives them, with every emitted message validated against the
//! official JSON Schema.

#[path = "dispatch/envelope.rs"]
mod envelope;
#[path = "dispatch/fixture.rs"]
mod fixture;
#[path = "dispatch/limits.rs"]
mod limits;
#[path = "dispatch/methods.rs"]
mod methods;
#[path = "dispatch/pipeline.rs"]
mod pipeline;
#[path = "dispatch/request_state.rs"]
mod request_state;
#[path = "dispatch/results.rs"]
mod results;
#[path = "dispatch/startup.rs"]
mod startup;
#[path = "dispatch/tools_call_reader.rs"]
mod tools_call_reader;
