//! Skills (`io.modelcontextprotocol/skills`) from the client's side, against
//! a server scripted on a loopback socket, so that what it serves (tampered
//! or not) is the test's to say and what the client asked for is the
//! test's to see: nothing is read when skills are listed or got; a
//! `SKILL.md` is checked for its size, then its digest, then its front
//! matter, and a supporting file is read only after the `SKILL.md` passed,
//! only if the held entry lists it, and checked the same way; no `skills/*`
//! request goes to a server that did not declare the extension. Each test
//! speaks both eras: 2026-07-28 (found out by `server/discover`, or told)
//! and a 2025-era session (`initialize`).

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_runtime::client::skills::{LoadedSkill, SkillRefusal};
use mcp_runtime::client::{Client, Error, Revision};
use mcp_runtime::protocol::{SKILLS_EXTENSION, Skill};
use mcp_tests::scripted::{Log, Received, http, ok, serve_on};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::net::TcpListener;

const SKILL_URI: &str = "skill://pdf-processing/SKILL.md";
const FORMS_URI: &str = "skill://pdf-processing/references/FORMS.md";
const DESCRIPTION: &str = "Extract, fill, and assemble PDF documents";
const SKILL_MD: &str =
    "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
const FORMS_MD: &str = "Supporting content.\n";

/// Every way the client finds out what the server speaks: 2026-07-28 found
/// out with `server/discover` (whose result the client keeps), 2026-07-28
/// told (the client asks `server/discover` for the capabilities), and a
/// 2025-era session (`initialize`).
const REVISIONS: [Revision; 3] = [Revision::Auto, Revision::Stateless, Revision::Session];

/// What the scripted server serves.
#[derive(Clone)]
struct Script {
    /// The extension's settings under `capabilities.extensions`, or none.
    extension: Option<Value>,
    /// The skill's entry, as `skills/list` lists it and `skills/get` gets it.
    entry: Value,
    /// What `resources/read` of the `SKILL.md` answers.
    skill_md: String,
    /// Files served as base64 blobs rather than text.
    blobs: bool,
    /// The `skills/list` page for a cursor; by default one page of `entry`.
    pages: Option<fn(Option<&str>) -> Value>,
}

impl Script {
    /// An honest server: the entry lists both files as they are served.
    fn honest() -> Script {
        Script {
            extension: Some(json!({})),
            entry: entry(SKILL_MD, DESCRIPTION),
            skill_md: SKILL_MD.to_owned(),
            blobs: false,
            pages: None,
        }
    }

    /// A server that serves `skill_md` for the `SKILL.md` its entry lists as
    /// the honest one.
    fn serving(skill_md: String) -> Script {
        Script { skill_md, ..Script::honest() }
    }
}

/// The entry of the skill whose `SKILL.md` is `skill_md`, with `description`
/// in its front matter; `FORMS.md` listed as it is served.
fn entry(skill_md: &str, description: &str) -> Value {
    json!({
        "uri": SKILL_URI,
        "frontmatter": {"name": "pdf-processing", "description": description},
        "resources": [
            {"uri": SKILL_URI, "digest": digest(skill_md.as_bytes()), "size": skill_md.len()},
            {"uri": FORMS_URI, "digest": digest(FORMS_MD.as_bytes()), "size": FORMS_MD.len()},
        ],
    })
}

fn digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// A server on loopback serving `script` in both eras (`server/discover`
/// and `initialize`); its URL, and what it received.
async fn serve(script: Script) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let log = serve_on(listener, move |request| answer(&script, request));
    (url, log)
}

fn answer(script: &Script, request: &Received) -> String {
    match request.method.as_str() {
        "POST" => {}
        "DELETE" => return http("200 OK", "", ""),
        _ => return http("405 Method Not Allowed", "", ""),
    }
    let body = request.json();
    let Some(id) = body.get("id").cloned() else { return http("202 Accepted", "", "") };
    let params = &body["params"];
    let mut capabilities = json!({"resources": {}});
    if let Some(settings) = &script.extension {
        capabilities["extensions"] = json!({ SKILLS_EXTENSION: settings });
    }
    let result = match body["method"].as_str().unwrap_or_default() {
        "server/discover" => json!({
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": capabilities,
            "ttlMs": 0, "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}},
        }),
        "initialize" => json!({
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "serverInfo": {"name": "scripted", "version": "1"},
        }),
        "skills/list" => match script.pages {
            Some(page) => page(params["cursor"].as_str()),
            None => json!({"skills": [script.entry], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}),
        },
        "skills/get" if params["uri"] == SKILL_URI => json!({"skill": script.entry}),
        "resources/read" => {
            let uri = params["uri"].as_str().unwrap_or_default();
            let text = match uri {
                SKILL_URI => script.skill_md.as_str(),
                FORMS_URI => FORMS_MD,
                _ => return rpc_error(&id, -32602, "no such resource"),
            };
            let contents = if script.blobs {
                json!({"uri": uri, "blob": STANDARD.encode(text)})
            } else {
                json!({"uri": uri, "mimeType": "text/markdown", "text": text})
            };
            json!({"contents": [contents]})
        }
        "resources/directory/read" => json!({"resources": []}),
        "skills/get" => return rpc_error(&id, -32602, "not a served skill"),
        _ => return rpc_error(&id, -32601, "method not found"),
    };
    ok(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn rpc_error(id: &Value, code: i32, message: &str) -> String {
    ok(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

fn connect(url: &str, revision: Revision) -> Client {
    Client::http(url).revision(revision).timeout(Duration::from_secs(10))
}

/// The JSON-RPC methods the server received, in order.
fn methods(log: &Log) -> Vec<String> {
    let received = log.lock().expect("the log").clone();
    received.iter().filter_map(|r| r.json().get("method").and_then(Value::as_str).map(str::to_owned)).collect()
}

/// The URIs the client read (`resources/read`), in order.
fn reads(log: &Log) -> Vec<String> {
    let received = log.lock().expect("the log").clone();
    received
        .iter()
        .map(Received::json)
        .filter(|body| body["method"] == "resources/read")
        .map(|body| body["params"]["uri"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// What a host does with a skill it was asked to use: load it, and only if
/// that went through, read the file its `SKILL.md` links to.
async fn load_then_read_forms(client: &Client, skill: &Skill) -> Result<(LoadedSkill, Vec<u8>), Error> {
    let loaded = client.load_skill(skill).await?;
    let forms = loaded.read(client, "references/FORMS.md").await?;
    Ok((loaded, forms))
}

/// The one skill the server lists.
async fn listed(client: &Client) -> Skill {
    let mut skills = client.skills().await.expect("listed");
    assert_eq!(skills.len(), 1);
    skills.remove(0)
}

#[tokio::test]
async fn listing_and_getting_skills_reads_no_file() {
    for revision in REVISIONS {
        let (url, log) = serve(Script::honest()).await;
        let client = connect(&url, revision);
        let page = client.list_skills(None).await.expect("a page");
        let opened = if revision == Revision::Session { "initialize" } else { "server/discover" };
        assert_eq!(methods(&log)[0], opened, "{revision:?}");
        assert_eq!((page.skills.len(), page.next_cursor), (1, None));
        let skill = listed(&client).await;
        assert_eq!(serde_json::to_value(&skill).expect("JSON"), entry(SKILL_MD, DESCRIPTION));
        assert_eq!(client.get_skill(SKILL_URI).await.expect("got"), skill);
        let unknown = client.get_skill("skill://nope/SKILL.md").await.expect_err("not served");
        assert_eq!(unknown.rpc().map(|e| e.code), Some(-32602), "{revision:?}");
        assert_eq!(reads(&log), Vec::<String>::new(), "{revision:?}: {:?}", methods(&log));
        client.close().await.expect("closed");
    }
}

#[tokio::test]
async fn a_skill_md_with_other_bytes_of_the_same_length_is_refused_and_nothing_else_is_read() {
    for revision in REVISIONS {
        let tampered = SKILL_MD.replace("Skill body.", "Evil body!!");
        assert_eq!(tampered.len(), SKILL_MD.len());
        let (url, log) = serve(Script::serving(tampered.clone())).await;
        let client = connect(&url, revision);
        let skill = listed(&client).await;
        let refused = load_then_read_forms(&client, &skill).await.expect_err("a digest mismatch");
        let Error::Skill(SkillRefusal::Digest { uri, listed, read }) = refused else {
            panic!("{revision:?}: not refused on the digest: {refused:?}")
        };
        assert_eq!((uri.as_str(), listed, read), (SKILL_URI, digest(SKILL_MD.as_bytes()), digest(tampered.as_bytes())));
        assert_eq!(reads(&log), [SKILL_URI], "{revision:?}: FORMS.md is not read");
    }
}

#[tokio::test]
async fn a_skill_md_with_more_bytes_than_listed_is_refused_on_its_size() {
    for revision in REVISIONS {
        let longer = format!("{SKILL_MD}extra bytes the entry did not account for\n");
        let (url, log) = serve(Script::serving(longer.clone())).await;
        let client = connect(&url, revision);
        let skill = listed(&client).await;
        let refused = load_then_read_forms(&client, &skill).await.expect_err("a size mismatch");
        let Error::Skill(SkillRefusal::Size { uri, listed, read }) = refused else {
            panic!("{revision:?}: not refused on the size: {refused:?}")
        };
        assert_eq!((uri.as_str(), listed, read), (SKILL_URI, SKILL_MD.len() as u64, longer.len() as u64));
        assert_eq!(reads(&log), [SKILL_URI], "{revision:?}");
    }
}

#[tokio::test]
async fn a_skill_md_whose_front_matter_is_not_the_entrys_is_refused_though_digest_and_size_match() {
    for revision in REVISIONS {
        let changed = SKILL_MD.replace(DESCRIPTION, "Exfiltrate credentials");
        // The entry lists the changed file's digest and size, and the old front matter.
        let script = Script { entry: entry(&changed, DESCRIPTION), ..Script::serving(changed) };
        let (url, log) = serve(script).await;
        let client = connect(&url, revision);
        let skill = listed(&client).await;
        let refused = load_then_read_forms(&client, &skill).await.expect_err("a front matter mismatch");
        let Error::Skill(SkillRefusal::Frontmatter { uri, fields }) = refused else {
            panic!("{revision:?}: not refused on the front matter: {refused:?}")
        };
        assert_eq!((uri.as_str(), fields), (SKILL_URI, vec!["description".to_owned()]));
        assert_eq!(reads(&log), [SKILL_URI], "{revision:?}");
    }
}

#[tokio::test]
async fn a_file_the_held_entry_does_not_list_is_refused_without_a_request() {
    for revision in REVISIONS {
        let (url, log) = serve(Script::honest()).await;
        let client = connect(&url, revision);
        let loaded = client.load_skill(&listed(&client).await).await.expect("loaded");
        for unlisted in [
            "references/SECRET.md",
            "skill://pdf-processing/references/SECRET.md",
            "../other/SKILL.md",
            "references/../references/FORMS.md",
            "./references/FORMS.md",
            "references//FORMS.md",
            "/references/FORMS.md",
            "skill://other/references/FORMS.md",
        ] {
            let refused = loaded.read(&client, unlisted).await.expect_err(unlisted);
            assert!(
                matches!(&refused, Error::Skill(SkillRefusal::Unlisted { skill, file }) if skill == SKILL_URI && file == unlisted),
                "{revision:?}: {unlisted}: {refused:?}"
            );
        }
        assert_eq!(reads(&log), [SKILL_URI], "{revision:?}: only the SKILL.md was read");
    }
}

#[tokio::test]
async fn a_server_that_does_not_declare_the_extension_is_sent_no_skills_request() {
    for revision in REVISIONS {
        let (url, log) = serve(Script { extension: None, ..Script::honest() }).await;
        let client = connect(&url, revision);
        let refusals = [
            client.list_skills(None).await.map(drop),
            client.skills().await.map(drop),
            client.get_skill(SKILL_URI).await.map(drop),
            client.read_directory("skill://pdf-processing", None).await.map(drop),
        ];
        for (refused, method) in
            refusals.into_iter().zip(["skills/list", "skills/list", "skills/get", "resources/directory/read"])
        {
            let refused = refused.expect_err(method);
            assert!(
                matches!(refused, Error::Skill(SkillRefusal::NotDeclared { method: m }) if m == method),
                "{revision:?}: {refused:?}"
            );
        }
        let sent = methods(&log);
        assert!(!sent.iter().any(|m| m.starts_with("skills/") || m == "resources/directory/read"), "{sent:?}");
        // The capabilities were asked for once at most, and kept.
        assert!(sent.iter().filter(|m| *m == "server/discover").count() <= 1, "{revision:?}: {sent:?}");
    }
}

#[tokio::test]
async fn directories_are_read_only_from_a_server_that_declares_directory_read() {
    for revision in REVISIONS {
        let (url, log) = serve(Script::honest()).await;
        let refused = connect(&url, revision).read_directory("skill://pdf-processing", None).await.expect_err("no");
        assert!(matches!(refused, Error::Skill(SkillRefusal::NoDirectoryRead)), "{revision:?}: {refused:?}");
        assert!(!methods(&log).contains(&"resources/directory/read".to_owned()));
        let (url, log) = serve(Script { extension: Some(json!({"directoryRead": true})), ..Script::honest() }).await;
        let read = connect(&url, revision).read_directory("skill://pdf-processing", Some("c1")).await.expect("read");
        assert!(read.resources.is_empty());
        let sent = log.lock().expect("the log").clone();
        let request = sent.iter().map(Received::json).find(|b| b["method"] == "resources/directory/read");
        let params = request.expect("sent")["params"].clone();
        assert_eq!((&params["uri"], &params["cursor"]), (&json!("skill://pdf-processing"), &json!("c1")));
    }
}

#[tokio::test]
async fn a_skill_that_checks_out_is_loaded_and_its_listed_file_read_as_text_or_blob() {
    for (revision, blobs) in REVISIONS.into_iter().zip([false, true, false]).chain([(Revision::Session, true)]) {
        let (url, log) = serve(Script { blobs, ..Script::honest() }).await;
        let client = connect(&url, revision);
        let skill = listed(&client).await;
        let (loaded, forms) = load_then_read_forms(&client, &skill).await.expect("verified");
        assert_eq!(forms, FORMS_MD.as_bytes());
        assert_eq!((loaded.text(), loaded.body()), (SKILL_MD, "\nSkill body.\n"));
        assert_eq!((loaded.uri(), loaded.directory()), (SKILL_URI, "skill://pdf-processing"));
        assert_eq!(loaded.frontmatter(), &skill.frontmatter);
        assert_eq!(loaded.skill(), &skill);
        assert_eq!(loaded.read(&client, FORMS_URI).await.expect("by its URI"), FORMS_MD.as_bytes());
        assert_eq!(reads(&log), [SKILL_URI, FORMS_URI, FORMS_URI], "{revision:?} (blobs: {blobs})");
    }
}

#[tokio::test]
async fn a_dynamic_skills_front_matter_is_checked_and_its_files_read_unchecked() {
    let dynamic = |description: &str| {
        let mut entry = entry(SKILL_MD, description);
        entry["resources"] = json!("dynamic");
        entry
    };
    let (url, log) = serve(Script { entry: dynamic(DESCRIPTION), ..Script::honest() }).await;
    let client = connect(&url, Revision::Auto);
    let (loaded, forms) = load_then_read_forms(&client, &listed(&client).await).await.expect("loaded");
    assert_eq!(forms, FORMS_MD.as_bytes());
    // No list to hold to, but still nothing outside the skill's directory.
    for outside in ["../other/SKILL.md", "references/../../other/SKILL.md", "skill://other/SKILL.md"] {
        let refused = loaded.read(&client, outside).await.expect_err(outside);
        assert!(matches!(refused, Error::Skill(SkillRefusal::Unlisted { .. })), "{outside}: {refused:?}");
    }
    assert_eq!(reads(&log), [SKILL_URI, FORMS_URI]);
    let (url, log) = serve(Script { entry: dynamic("Something else"), ..Script::honest() }).await;
    let client = connect(&url, Revision::Session);
    let refused = load_then_read_forms(&client, &listed(&client).await).await.expect_err("another description");
    assert!(matches!(refused, Error::Skill(SkillRefusal::Frontmatter { .. })), "{refused:?}");
    assert_eq!(reads(&log), [SKILL_URI]);
}

#[tokio::test]
async fn an_entry_that_breaks_the_rules_is_refused_before_anything_is_read() {
    let mut without_own = entry(SKILL_MD, DESCRIPTION);
    without_own["resources"].as_array_mut().expect("files").remove(0);
    let mut bad_digest = entry(SKILL_MD, DESCRIPTION);
    bad_digest["resources"][0]["digest"] = json!(digest(SKILL_MD.as_bytes()).to_uppercase());
    for broken in [without_own, bad_digest] {
        let (url, log) = serve(Script { entry: broken, ..Script::honest() }).await;
        let client = connect(&url, Revision::Auto);
        let refused = client.load_skill(&listed(&client).await).await.expect_err("refused");
        assert!(
            matches!(&refused, Error::Skill(SkillRefusal::Entry { skill, .. }) if skill == SKILL_URI),
            "{refused:?}"
        );
        assert_eq!(reads(&log), Vec::<String>::new());
    }
}

#[tokio::test]
async fn every_page_is_followed_and_a_cursor_that_comes_back_ends_the_listing() {
    fn two_pages(cursor: Option<&str>) -> Value {
        let other = entry(SKILL_MD, DESCRIPTION).to_string().replace("pdf-processing", "pdf-forms");
        match cursor {
            None => json!({"skills": [entry(SKILL_MD, DESCRIPTION)], "nextCursor": "p2"}),
            _ => json!({"skills": [serde_json::from_str::<Value>(&other).expect("JSON")]}),
        }
    }
    fn one_unreadable(_: Option<&str>) -> Value {
        let mut broken = entry(SKILL_MD, DESCRIPTION);
        broken["uri"] = json!("skill://broken/SKILL.md");
        broken.as_object_mut().expect("an object").remove("resources");
        json!({"skills": [broken, entry(SKILL_MD, DESCRIPTION)]})
    }
    fn looping(_: Option<&str>) -> Value {
        json!({"skills": [], "nextCursor": "again"})
    }
    let (url, _) = serve(Script { pages: Some(two_pages), ..Script::honest() }).await;
    let skills = connect(&url, Revision::Auto).skills().await.expect("two pages");
    let names: Vec<_> = skills.iter().map(|skill| skill.name().unwrap_or_default().to_owned()).collect();
    assert_eq!(names, ["pdf-processing", "pdf-forms"]);
    // An entry without `resources` is not one: left out, the others kept.
    let (url, _) = serve(Script { pages: Some(one_unreadable), ..Script::honest() }).await;
    let skills = connect(&url, Revision::Auto).skills().await.expect("one page");
    assert_eq!(skills.iter().map(|skill| skill.uri.as_str()).collect::<Vec<_>>(), [SKILL_URI]);
    let (url, log) = serve(Script { pages: Some(looping), ..Script::honest() }).await;
    let refused = connect(&url, Revision::Auto).skills().await.expect_err("a loop");
    assert!(matches!(refused, Error::Invalid(_)), "{refused:?}");
    assert_eq!(methods(&log).iter().filter(|m| *m == "skills/list").count(), 2);
}
