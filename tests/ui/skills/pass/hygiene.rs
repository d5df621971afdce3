//! The expansion names everything from the crate root: no prelude, a local
//! `core`, `Skills` and `SKILLS`, and `#![forbid(unsafe_code)]` change
//! nothing.

#![forbid(unsafe_code)]
#![no_implicit_prelude]

mod core {}

#[allow(dead_code)]
struct Skills;

#[allow(dead_code)]
static SKILLS: u8 = 0;

fn main() {
    let skills: ::mcp_runtime::skills::Skills = ::mcp_runtime::skills!("../fixtures/good");
    ::std::assert_eq!(skills.len(), 2);
}
