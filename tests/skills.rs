//! Skills served (the `io.modelcontextprotocol/skills` extension): the
//! entries of `skills/list` and `skills/get` against the files' own bytes,
//! `resources/directory/read`, the `SKILL.md` in `resources/list`, mounts,
//! and a directory on disk that never serves a file outside its root.

use std::path::{Path, PathBuf};

use mcp_runtime::client::{Client, Error};
use mcp_runtime::protocol::{ResourceBody, ResourceContents};
use mcp_runtime::skills::Skills;
use mcp_runtime::{Server, ServerBuilder};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

const PDF: &str =
    "---\nname: pdf\ndescription: Fill PDF forms.\nmetadata:\n  version: \"2\"\n---\n# PDF\nSee references/FORMS.md.\n";
const FORMS: &str = "# Forms\n";
const TRIAGE: &str = "---\nname: triage\ndescription: Sort incidents.\n---\nTriage.\n";

/// A fresh directory of skills: `pdf` (with `references/FORMS.md`) and
/// `acme/triage`.
fn tree() -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "mcp-skills-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    ));
    for (path, text) in [("pdf/SKILL.md", PDF), ("pdf/references/FORMS.md", FORMS), ("acme/triage/SKILL.md", TRIAGE)] {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    root
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect::<String>())
}

fn builder(root: &Path) -> ServerBuilder {
    Server::builder("skills", "1.0.0").skills(Skills::dir(root).expect("a valid tree"))
}

async fn request(client: &Client, method: &str, params: Value) -> Result<Value, Error> {
    client.request(method, params).await
}

fn code(result: Result<Value, Error>) -> i32 {
    match result {
        Err(Error::Rpc(e)) => e.code,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn text(contents: &ResourceContents) -> &str {
    match &contents.body {
        ResourceBody::Text(text) => text,
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn the_entries_list_every_file_with_the_digest_and_size_of_its_bytes() {
    let root = tree();
    let client = Client::in_process(builder(&root).build().unwrap());
    let discover = client.discover().await.unwrap();
    let settings = &discover.capabilities.extensions.as_ref().unwrap()["io.modelcontextprotocol/skills"];
    assert_eq!(settings, &json!({"directoryRead": true}));
    assert!(discover.capabilities.resources.is_some(), "the extension needs the resources capability");

    let listed = request(&client, "skills/list", json!({})).await.unwrap();
    assert!(listed["ttlMs"].is_u64() && listed["cacheScope"].is_string(), "{listed}");
    assert_eq!(
        listed["skills"],
        json!([
            {"uri": "skill://acme/triage/SKILL.md",
             "frontmatter": {"name": "triage", "description": "Sort incidents."},
             "resources": [{"uri": "skill://acme/triage/SKILL.md", "digest": digest(TRIAGE.as_bytes()), "size": TRIAGE.len()}]},
            {"uri": "skill://pdf/SKILL.md",
             "frontmatter": {"name": "pdf", "description": "Fill PDF forms.", "metadata": {"version": "2"}},
             "resources": [
                {"uri": "skill://pdf/SKILL.md", "digest": digest(PDF.as_bytes()), "size": PDF.len()},
                {"uri": "skill://pdf/references/FORMS.md", "digest": digest(FORMS.as_bytes()), "size": FORMS.len()}]}
        ])
    );
    let got = request(&client, "skills/get", json!({"uri": "skill://pdf/SKILL.md"})).await.unwrap();
    assert_eq!(got["skill"], listed["skills"][1]);
    assert!(got["ttlMs"].is_u64() && got.get("nextCursor").is_none(), "{got}");
    for unknown in ["skill://nope/SKILL.md", "skill://pdf/references/FORMS.md", "skill://pdf"] {
        assert_eq!(code(request(&client, "skills/get", json!({"uri": unknown})).await), -32602, "{unknown}");
    }

    // Each file reads back as the bytes its entry describes.
    let read = client.read_resource("skill://pdf/references/FORMS.md").await.unwrap();
    assert_eq!(text(&read.contents[0]), FORMS);
    assert_eq!(read.contents[0].mime_type.as_deref(), Some("text/markdown"));
    std::fs::remove_dir_all(root).unwrap();
}

#[tokio::test]
async fn skill_files_are_listed_as_their_skill_md_only_and_pages_never_split_a_skill() {
    let root = tree();
    let client = Client::in_process(builder(&root).page_size(1).build().unwrap());
    let resources = client.list_resources().await.unwrap();
    assert_eq!(
        resources,
        [
            json!({"uri": "skill://pdf/SKILL.md", "name": "pdf", "description": "Fill PDF forms.", "mimeType": "text/markdown", "size": PDF.len()}),
            json!({"uri": "skill://acme/triage/SKILL.md", "name": "triage", "description": "Sort incidents.", "mimeType": "text/markdown", "size": TRIAGE.len()}),
        ]
    );
    let first = request(&client, "skills/list", json!({})).await.unwrap();
    assert_eq!(first["skills"].as_array().unwrap().len(), 1);
    let cursor = first["nextCursor"].as_str().expect("a second page");
    let second = request(&client, "skills/list", json!({"cursor": cursor})).await.unwrap();
    assert_eq!(second["skills"][0]["uri"], "skill://pdf/SKILL.md");
    assert!(second.get("nextCursor").is_none());
    assert_eq!(code(request(&client, "skills/list", json!({"cursor": "garbage"})).await), -32602);
    std::fs::remove_dir_all(root).unwrap();
}

#[tokio::test]
async fn directories_list_their_direct_children_and_nothing_else_is_one() {
    let root = tree();
    let client = Client::in_process(builder(&root).build().unwrap());
    let read = |uri: &str| request(&client, "resources/directory/read", json!({"uri": uri}));
    let top = read("skill://pdf").await.unwrap();
    assert_eq!(
        top["resources"],
        json!([
            {"uri": "skill://pdf/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": PDF.len()},
            {"uri": "skill://pdf/references", "name": "references", "mimeType": "inode/directory"}
        ])
    );
    let below = read("skill://pdf/references").await.unwrap();
    assert_eq!(below["resources"][0]["uri"], "skill://pdf/references/FORMS.md");
    for not_a_directory in ["skill://pdf/SKILL.md", "skill://pdf/", "skill://nope", "skill://acme"] {
        assert_eq!(code(read(not_a_directory).await), -32602, "{not_a_directory}");
    }
    std::fs::remove_dir_all(root).unwrap();
}

#[tokio::test]
async fn a_server_without_skills_has_none_of_the_methods() {
    let server = Server::builder("plain", "1.0.0")
        .resource(mcp_runtime::entry::ResourceEntry::fixed("docs://a", "a", || async { "a" }))
        .build()
        .unwrap();
    let client = Client::in_process(server);
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        assert_eq!(code(request(&client, method, json!({"uri": "skill://pdf/SKILL.md"})).await), -32601, "{method}");
    }
}

#[tokio::test]
async fn a_mounted_servers_skills_are_served_under_its_namespace() {
    let root = tree();
    let docs = builder(&root).build().unwrap();
    let server = Server::builder("host", "1.0.0").mount("docs", docs).build().unwrap();
    let client = Client::in_process(server);
    let got = request(&client, "skills/get", json!({"uri": "skill://docs/pdf/SKILL.md"})).await.unwrap();
    let files: Vec<&str> =
        got["skill"]["resources"].as_array().unwrap().iter().map(|f| f["uri"].as_str().unwrap()).collect();
    assert_eq!(files, ["skill://docs/pdf/SKILL.md", "skill://docs/pdf/references/FORMS.md"]);
    let read = client.read_resource("skill://docs/pdf/references/FORMS.md").await.unwrap();
    assert_eq!(text(&read.contents[0]), FORMS);
    let dir = request(&client, "resources/directory/read", json!({"uri": "skill://docs/pdf/references"})).await;
    assert_eq!(dir.unwrap()["resources"][0]["name"], "FORMS.md");
    std::fs::remove_dir_all(root).unwrap();
}

#[tokio::test]
async fn a_directory_on_disk_never_serves_a_file_outside_its_root() {
    let root = tree();
    let outside = root.with_extension("secret");
    std::fs::write(&outside, "secret").unwrap();

    // A link in the tree, even to a file beside it, is refused at start.
    std::os::unix::fs::symlink(&outside, root.join("pdf/references/LINK.md")).unwrap();
    let error = Skills::dir(&root).expect_err("a link is refused");
    assert!(error.to_string().contains("LINK.md") && error.to_string().contains("symbolic link"), "{error}");
    std::fs::remove_file(root.join("pdf/references/LINK.md")).unwrap();

    let client = Client::in_process(builder(&root).build().unwrap());
    // A URI that climbs out names no file: files are found by URI, never by path.
    for climbing in [
        "skill://pdf/../pdf.secret",
        "skill://pdf/references/../../../etc/hostname",
        "skill://pdf/%2e%2e/SKILL.md",
        "skill://pdf/references",
    ] {
        let result = client.read_resource(climbing).await;
        assert!(matches!(&result, Err(Error::Rpc(e)) if e.code == -32602), "{climbing}: {result:?}");
    }
    // A file swapped for a link after start is not followed.
    let forms = root.join("pdf/references/FORMS.md");
    std::fs::remove_file(&forms).unwrap();
    std::os::unix::fs::symlink(&outside, &forms).unwrap();
    let result = client.read_resource("skill://pdf/references/FORMS.md").await;
    assert!(matches!(&result, Err(Error::Rpc(e)) if e.code == -32603 && !e.message.contains("secret")), "{result:?}");
    // Nor is a file rewritten after start served under its old digest.
    std::fs::remove_file(&forms).unwrap();
    std::fs::write(&forms, "# Forms!\n").unwrap();
    let result = client.read_resource("skill://pdf/references/FORMS.md").await;
    assert!(matches!(&result, Err(Error::Rpc(e)) if e.code == -32603), "{result:?}");
    std::fs::remove_dir_all(&root).unwrap();
    std::fs::remove_file(outside).unwrap();
}

#[tokio::test]
async fn a_remote_servers_skills_pass_through_a_mount_each_file_read_from_it() {
    let root = tree();
    let remote = mcp_runtime::client::Remote::connect(Client::in_process(builder(&root).build().unwrap()))
        .await
        .expect("the remote lists");
    let gateway = Server::builder("gateway", "1.0.0").mount_remote("docs", remote).build().unwrap();
    let client = Client::in_process(gateway);
    let listed = request(&client, "skills/list", json!({})).await.unwrap();
    let uris: Vec<&str> = listed["skills"].as_array().unwrap().iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["skill://docs/acme/triage/SKILL.md", "skill://docs/pdf/SKILL.md"]);
    assert_eq!(listed["skills"][1]["resources"][1]["digest"], digest(FORMS.as_bytes()));
    let read = client.read_resource("skill://docs/pdf/references/FORMS.md").await.unwrap();
    assert_eq!(text(&read.contents[0]), FORMS);
    assert_eq!(read.contents[0].uri, "skill://docs/pdf/references/FORMS.md");
    let resources = client.list_resources().await.unwrap();
    assert_eq!(resources.len(), 2, "the SKILL.md files, not the others: {resources:?}");
    let dir = request(&client, "resources/directory/read", json!({"uri": "skill://docs/pdf"})).await.unwrap();
    assert_eq!(dir["resources"][1]["mimeType"], "inode/directory");
    std::fs::remove_dir_all(root).unwrap();
}
