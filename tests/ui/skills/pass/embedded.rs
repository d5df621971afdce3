//! `skills!` embeds a directory of skills: every directory below it with a
//! `SKILL.md` (nested ones too, and not those whose names start with a dot,
//! whose `SKILL.md` would not pass), or the directory itself when it is one
//! skill; the result goes straight to the server builder.

use mcp_runtime::Server;
use mcp_runtime::skills::Skills;

fn main() {
    let all: Skills = mcp_runtime::skills!("../fixtures/good");
    assert_eq!(all.len(), 2, "acme/refunds and pdf-processing");
    let one = mcp_runtime::skills!("../fixtures/good/pdf-processing",);
    assert_eq!(one.len(), 1);

    let server = Server::builder("docs", "1.0.0").skills(all).build().expect("a server with skills");
    let extensions = server.capabilities().extensions.expect("the skills extension is declared");
    assert!(extensions.contains_key("io.modelcontextprotocol/skills"));
}
