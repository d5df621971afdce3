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
#[prompt(scopes = ["notes:read", "summaries"])]
async fn summary() -> String {
    "Summarize the notes.".to_owned()
}

/// Says how to take notes.
#[prompt]
async fn how_to() -> String {
    "Write one idea per note.".to_owned()
}

/// One note.
#[resource("notes://{id}", scopes = ["notes:read"])]
async fn note(id: u32, caller: Option<Principal>) -> String {
    format!("note {id} for {}", caller.as_ref().and_then(Principal::subject).unwrap_or("anyone"))
}

/// The list of notes.
#[resource("notes://index", scopes = ["notes:list"])]
async fn index() -> String {
    "1, 2, 3".to_owned()
}

/// How the notes are kept.
#[resource("notes://readme")]
async fn readme() -> String {
    "Notes are kept in memory.".to_owned()
}

/// An entry's declared scopes, comparable with literals.
fn own(scopes: &[String]) -> Vec<&str> {
    scopes.iter().map(String::as_str).collect()
}

#[test]
fn the_macros_declare_scopes_on_every_kind_of_entry() {
    // Each entry's own scopes, as its macro declared them, in order; none
    // where it declared none.
    let prompts = prompts![summary, how_to];
    let prompt_scopes: Vec<_> =
        prompts.iter().map(|p| (p.definition().name.as_str(), own(p.declared_scopes()))).collect();
    assert_eq!(prompt_scopes, [("summary", vec!["notes:read", "summaries"]), ("how_to", vec![])]);
    let resources = resources![note, index, readme];
    let resource_scopes: Vec<_> = resources.iter().map(|r| (r.uri(), own(r.declared_scopes()))).collect();
    assert_eq!(
        resource_scopes,
        [("notes://{id}", vec!["notes:read"]), ("notes://index", vec!["notes:list"]), ("notes://readme", vec![])]
    );

    let server = Server::builder("notes", "1.0.0")
        .tools(tools![delete_note, whoami, maybe_whoami])
        .prompts(prompts)
        .resources(resources)
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
    // What the server serves declares them still: `summaries` comes from
    // the prompt alone, `notes:list` from the fixed resource alone.
    assert_eq!(
        server.declared_scopes().into_iter().collect::<Vec<_>>(),
        ["notes:list", "notes:read", "notes:write", "profile", "summaries"]
    );
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
