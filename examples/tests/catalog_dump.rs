//! `--dump-catalog` round trip: each example binary writes its catalog,
//! which reads back as JSON identical to the committed snapshot (so the
//! diff tool finds no change), without serving or touching any file.

use std::process::Command;

fn dump(binary: &str) -> String {
    let dir = std::env::temp_dir().join(format!("mcp-dump-{}-{}", std::process::id(), binary.len()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let output = Command::new(binary)
        .arg("--dump-catalog")
        .current_dir(&dir)
        .env_remove("MCP_ERAS")
        .env_remove("MCP_REDIS_URL")
        .output()
        .expect("the example runs");
    assert!(output.status.success(), "{binary}: {}", String::from_utf8_lossy(&output.stderr));
    let left: Vec<_> = std::fs::read_dir(&dir).expect("readable").collect();
    assert!(left.is_empty(), "{binary} --dump-catalog left files behind: {left:?}");
    std::fs::remove_dir_all(&dir).ok();
    String::from_utf8(output.stdout).expect("UTF-8")
}

fn round_trip(binary: &str, committed: &str) {
    let text = dump(binary);
    let committed_text = std::fs::read_to_string(committed).expect("the committed snapshot");
    assert_eq!(text, committed_text, "{binary} --dump-catalog differs from {committed}");
    let dumped: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let committed: serde_json::Value = serde_json::from_str(&committed_text).expect("JSON");
    let changes = mcp_catalog::diff::diff(&committed, &dumped);
    assert!(changes.changes.is_empty(), "{}", changes.render());
    assert_eq!(mcp_catalog::snapshot::to_text(&dumped), text, "the text is the stable form of its JSON");
}

#[test]
fn everything_dumps_its_committed_catalog() {
    round_trip(env!("CARGO_BIN_EXE_everything"), "everything/catalog.json");
}

#[test]
fn notes_dumps_its_committed_catalog() {
    round_trip(env!("CARGO_BIN_EXE_notes"), "notes/catalog.json");
}
