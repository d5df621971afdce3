//! The methods a server answers: one typed table of what each needs, and
//! each method's route (its params checked against what is served) and run
//! (its handler called, its result built) in a module of its own.
//!
//! A method name is read into a [`Method`] once per request; everything that
//! depends on the method (routing, the `Mcp-Method` and `Mcp-Name` header
//! checks, which params member is read ahead as the target, the fast
//! `tools/call` reading, streaming) asks it, and every question is an
//! exhaustive `match`: a method added without its entries does not compile.

mod complete;
mod context_parts;
mod discover;
mod layered;
mod listen;
mod lists;
mod name;
mod parts;
mod prompts_get;
mod resources_read;
mod router;
#[cfg(feature = "skills")]
mod skills;
#[cfg(feature = "tasks")]
mod task_call;
#[cfg(feature = "tasks")]
mod tasks;
#[cfg(feature = "tool-search")]
mod tool_search;
mod tools_call;

pub(crate) use name::{Method, Target, is_offered, stateless};
pub(crate) use parts::Route;
pub(crate) use router::{route, run, target_of};
