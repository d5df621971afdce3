//! `scopes = [...]` on `#[tool]`, `#[prompt]` and `#[resource]`, and
//! `Principal` as a context parameter of the macros' functions.

use mcp_runtime::auth::Principal;
use mcp_runtime::{BuildError, Server, prompt, prompts, resource, resources, tool, tools};

/// Deletes a note.
#[tool(scopes = ["notes:write"])]
async fn delete_note(id: u32) -> String {
    format!("deleted {id}")
}

/// Says who calls: the authenticated caller.
#[tool(scopes = ["profile", "notes:read"])]
async fn whoami(caller: Principal) -> String {
    caller.subject().unwrap_or("nobody").to_owned()
}

/// Says who calls, when someone authenticated does.
#[tool]
async fn maybe_whoami(caller: Option<Principal>, greeting: String) -> String {
    format!("{greeting}, {}", caller.as_ref().and_then(Principal::subject).unwrap_or("stranger"))
}

/// Summarizes the notes.
#[prompt(scopes = ["notes:read"])]
async fn summary() -> String {
    "Summarize the notes.".to_owned()
}

/// One note.
#[resource("notes://{id}", scopes = ["notes:read"])]
async fn note(id: u32, caller: Option<Principal>) -> String {
    format!("note {id} for {}", caller.as_ref().and_then(Principal::subject).unwrap_or("anyone"))
}

#[test]
fn the_macros_declare_scopes_on_every_kind_of_entry() {
    let server = Server::builder("notes", "1.0.0")
        .tools(tools![delete_note, whoami, maybe_whoami])
        .prompts(prompts![summary])
        .resources(resources![note])
        .authenticated_by_layer()
        .build()
        .expect("a valid server");
    let scopes = |name: &str| {
        let tool = server.tools().find(|t| t.definition().name == name).expect("the tool");
        tool.declared_scopes().to_vec()
    };
    assert_eq!(scopes("delete_note"), ["notes:write"]);
    assert_eq!(scopes("whoami"), ["profile", "notes:read"]);
    assert!(scopes("maybe_whoami").is_empty());
    assert_eq!(server.declared_scopes().into_iter().collect::<Vec<_>>(), ["notes:read", "notes:write", "profile"]);
    // `Principal` and `Option<Principal>` are context, not arguments.
    let schema = |name: &str| {
        server.tools().find(|t| t.definition().name == name).expect("the tool").definition().input_schema.clone()
    };
    assert!(schema("whoami").get("properties").is_none_or(|p| p.get("caller").is_none()));
    assert_eq!(schema("maybe_whoami")["required"], serde_json::json!(["greeting"]));
    assert!(schema("maybe_whoami")["properties"].get("caller").is_none());
}

#[test]
fn a_function_taking_principal_needs_an_authenticated_server() {
    let error = Server::builder("notes", "1.0.0").tools(tools![whoami]).build().expect_err("no authentication");
    let BuildError::Unauthenticated { kind, name, location } = &error else { panic!("{error:?}") };
    assert_eq!((*kind, name.as_str()), ("tool", "whoami"));
    assert!(location.file.ends_with("macros_scopes.rs"), "{location}");
    // `Option<Principal>` fits a server without authentication.
    let server = Server::builder("notes", "1.0.0").tools(tools![maybe_whoami]).resources(resources![note]).build();
    assert!(server.is_ok());
}
