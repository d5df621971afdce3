//! Cursor and `requestState` decoding: never a panic; a cursor that decodes
//! encodes back to one naming the same item; a state opens only with its
//! key, for its request, and round-trips what it carries.
//!
//! Input: the list name on the first line, then the cursor or state.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::{fuzzing, server::RequestStateKey};
use serde_json::{Map, Value};

fn key() -> &'static RequestStateKey {
    static KEY: OnceLock<RequestStateKey> = OnceLock::new();
    KEY.get_or_init(|| RequestStateKey::from_secret(b"the fuzz target's secret, 32 bytes"))
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let [list, rest] = mcp_runtime_fuzz::fields::<2>(text);
    if let Ok(Some((name, key))) = fuzzing::decode_cursor(rest, list) {
        let again = fuzzing::encode_cursor(list, (&name, &key));
        assert_eq!(fuzzing::decode_cursor(&again, list).ok(), Some(Some((name, key))));
    }
    // Only the key's own states open; a forged one never does.
    let opened = fuzzing::open_request_state(key(), "tools/call", list, None, rest);
    if let Ok((answers, app)) = &opened {
        let again = fuzzing::seal_request_state(key(), "tools/call", list, None, answers.clone(), app.clone());
        assert_eq!(fuzzing::open_request_state(key(), "tools/call", list, None, &again).ok(), opened.ok());
    }
    // Whatever JSON the handler keeps travels unchanged.
    if let Ok(app) = serde_json::from_str::<Value>(rest) {
        let mut answers = Map::new();
        answers.insert(list.to_owned(), app.clone());
        let sealed =
            fuzzing::seal_request_state(key(), "prompts/get", list, Some("d"), answers.clone(), Some(app.clone()));
        let opened = fuzzing::open_request_state(key(), "prompts/get", list, Some("d"), &sealed);
        assert_eq!(opened.ok(), Some((answers, Some(app))));
        assert!(fuzzing::open_request_state(key(), "prompts/get", list, Some("e"), &sealed).is_err());
    }
});
