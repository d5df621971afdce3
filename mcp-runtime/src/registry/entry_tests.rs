//! Entries built by hand obey the rules the macros check.

use crate::entry::ToolEntry;
use crate::{BuildError, Server};

fn tool(name: &str) -> ToolEntry {
    ToolEntry::new(name, || async { "ok" })
}

#[test]
fn a_server_refuses_a_hand_built_tool_with_a_bad_name() {
    for (name, reason) in [("get weather", "not ` `"), ("", "1 to 128 characters"), ("é", "not `\\u{e9}`")] {
        let Err(error) = Server::builder("t", "1").tool(tool("fine")).tool(tool(name)).build() else {
            panic!("{name:?} was accepted");
        };
        assert!(matches!(&error, BuildError::ToolName { name: n, .. } if n == name), "{error:?}");
        let message = error.to_string();
        assert!(message.starts_with(&format!("tool {name:?} (at {}:", file!())), "{message}");
        assert!(message.contains(reason), "{message}");
    }
    let long = "x".repeat(129);
    assert!(matches!(Server::builder("t", "1").tool(tool(&long)).build(), Err(BuildError::ToolName { .. })));
}

#[test]
fn a_running_server_refuses_a_tool_with_a_bad_name() {
    let server = Server::builder("t", "1").tool(tool("fine")).build().expect("a valid server");
    let error = server.add_tool(tool("a/b")).expect_err("a bad name");
    assert!(error.to_string().contains("has an invalid name"), "{error}");
    assert_eq!(server.tools().count(), 1);
}

#[test]
fn a_server_accepts_every_allowed_character() {
    let name = "Az09_-.".repeat(19);
    let server = Server::builder("t", "1").tool(tool(&name[..128])).build().expect("a valid name");
    assert_eq!(server.tools().count(), 1);
}
