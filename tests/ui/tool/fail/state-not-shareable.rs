use std::sync::Mutex;

use mcp_runtime::{State, tool};

/// Counts calls: the state is a `Mutex`, which cannot be cloned for each call.
#[tool]
fn count(State(counter): State<Mutex<u64>>) -> u64 {
    let mut n = counter.lock().unwrap();
    *n += 1;
    *n
}

fn main() {}
