//! The server's questions, answered as the command line says: a form
//! elicitation from `--answer` and `--yes`, or at the terminal; roots from
//! `--root`. What `mcp` cannot do (open a URL for the user, ask a language
//! model) is refused, with a line on stderr saying so.
//!
//! The client declares only what it can answer: elicitation when stdin is
//! a terminal or `--answer`/`--yes` were given, roots when `--root` was.
//! A server then does not ask a script that cannot answer, and the script
//! gets the server's error at once instead of waiting on a question.

use std::io::IsTerminal as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use mcp_runtime::client::Client;
use mcp_runtime::input::Root;
use mcp_runtime::protocol::{ClientCapabilities, ElicitRequest, ElicitResult};
use serde_json::Value;

use crate::form::{self, Answers, Terminal, printable};

/// One question at a time at the terminal: a 2025-era server may ask
/// several at once, whose prompts must not interleave.
static ASKING: Mutex<()> = Mutex::new(());

/// `client`, answering the server's questions with `answers` and `roots`,
/// at the terminal when stdin is one.
pub(crate) fn answering(client: Client, answers: Answers, roots: Vec<Root>) -> Client {
    let terminal = std::io::stdin().is_terminal();
    let mut declared = ClientCapabilities::default();
    let mut client = client.on_refusal(|method, params| eprintln!("mcp: {}", refusal(method, params)));
    if terminal || answers.any() {
        declared = declared.with_elicitation();
        let answers = Arc::new(answers);
        client = client.on_elicitation(move |request| {
            let answers = Arc::clone(&answers);
            async move { answer(request, answers, terminal).await }
        });
    }
    if !roots.is_empty() {
        declared = declared.with_roots();
        let roots = Arc::new(roots);
        client = client.on_roots(move || {
            let roots = Arc::clone(&roots);
            async move { roots.to_vec() }
        });
    }
    // Last: form mode only (the callback alone would declare URL mode too),
    // so that a URL elicitation sent anyway is refused.
    client.capabilities(declared)
}

async fn answer(request: ElicitRequest, answers: Arc<Answers>, terminal: bool) -> ElicitResult {
    let ElicitRequest::Form { message, requested_schema } = request else {
        // Refused before it comes here (form mode only is declared).
        return ElicitResult::decline();
    };
    let answered = if terminal {
        // The terminal blocks: on a thread of its own, not the runtime's.
        tokio::task::spawn_blocking(move || {
            let _asking = ASKING.lock().unwrap_or_else(|e| e.into_inner());
            let mut terminal = Terminal { input: std::io::stdin().lock(), output: std::io::stderr().lock() };
            form::answer(&message, &requested_schema, &answers, Some(&mut terminal))
        })
        .await
        .unwrap_or_else(|e| Err(format!("the question could not be asked: {e}")))
    } else {
        form::answer::<&[u8], Vec<u8>>(&message, &requested_schema, &answers, None)
    };
    answered.unwrap_or_else(|why| {
        eprintln!("mcp: {why} (the server is told the question was cancelled)");
        ElicitResult::cancel()
    })
}

/// What was refused and why, for the user.
fn refusal(method: &str, params: &Value) -> String {
    let text = |key: &str| printable(params.get(key).and_then(Value::as_str).unwrap_or_default());
    match method {
        "elicitation/create" if params.get("mode").and_then(Value::as_str) == Some("url") => format!(
            "refused the server's request to open {} (\"{}\"): mcp answers forms, it does not open URLs; open it \
             yourself if you trust it, then run the command again",
            text("url"),
            text("message")
        ),
        "elicitation/create" => format!(
            "refused the server's question \"{}\": mcp answers questions at a terminal, or with --yes or --answer \
             FIELD=VALUE",
            text("message")
        ),
        "sampling/createMessage" => {
            "refused the server's request for a language model's answer (sampling): mcp has no model to ask".to_owned()
        }
        "roots/list" => "refused the server's request for roots: give --root PATH to share a directory".to_owned(),
        other => format!("refused the server's request `{}`", printable(other)),
    }
}

/// The root `--root` names: a URI as it is (`file:///srv`), or a path to
/// a directory or file that exists, as a `file://` URI.
pub(crate) fn root_of(given: &str) -> Result<Root, String> {
    if given.contains("://") {
        let name = given.trim_end_matches('/').rsplit('/').next().filter(|n| !n.is_empty()).map(str::to_owned);
        return Ok(Root { uri: given.to_owned(), name });
    }
    let path = std::path::absolute(Path::new(given)).map_err(|e| format!("--root {given}: {e}"))?;
    std::fs::metadata(&path).map_err(|e| format!("--root {given}: {e} ({})", path.display()))?;
    let Some(text) = path.to_str() else { return Err(format!("--root {given}: the path is not UTF-8")) };
    let mut uri = String::from("file://");
    for byte in text.bytes() {
        // RFC 3986: unreserved characters and the separators stay, the rest
        // (spaces, `#`, `?`, `%`, non-ASCII) is percent-encoded.
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    let name = path.file_name().and_then(|n| n.to_str()).map(str::to_owned);
    Ok(Root { uri, name })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_root_is_a_uri_as_given_or_an_existing_path_as_a_file_uri() {
        let uri = root_of("file:///srv/data/").expect("a URI");
        assert_eq!((uri.uri.as_str(), uri.name.as_deref()), ("file:///srv/data/", Some("data")));
        let dir = std::env::temp_dir().join("mcp cli root#1");
        std::fs::create_dir_all(&dir).expect("a directory");
        let root = root_of(dir.to_str().expect("UTF-8")).expect("a path");
        assert!(root.uri.starts_with("file:///") && root.uri.ends_with("/mcp%20cli%20root%231"), "{}", root.uri);
        assert_eq!(root.name.as_deref(), Some("mcp cli root#1"));
        let missing = root_of("/nonexistent/mcp-root").expect_err("missing");
        assert!(missing.starts_with("--root /nonexistent/mcp-root: "), "{missing}");
    }

    #[test]
    fn each_refusal_says_what_was_asked_and_why_not() {
        let url =
            refusal("elicitation/create", &json!({"mode": "url", "url": "https://x.test/in", "message": "Log in"}));
        assert!(url.contains("open https://x.test/in (\"Log in\")") && url.contains("does not open URLs"), "{url}");
        assert!(refusal("sampling/createMessage", &json!({})).contains("no model"));
        assert!(refusal("roots/list", &Value::Null).contains("--root PATH"));
        assert!(refusal("elicitation/create", &json!({"message": "Sure?"})).contains("--yes or --answer"));
    }
}
