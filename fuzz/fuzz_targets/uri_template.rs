//! URI template parsing and matching: never a panic, a match binds every
//! variable, and a URI built from the matched values matches again with the
//! same values. libFuzzer's time-out catches a match that is not linear.
//!
//! Input: the template on the first line, the URI on the rest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::entry::UriTemplate;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let [source, uri] = mcp_runtime_fuzz::fields::<2>(text);
    let Ok(template) = UriTemplate::parse(source) else { return };
    // Literals hold no braces: each `{` opens, and each `}` closes, one variable.
    let variables = template.variables().count();
    assert!(variables == source.matches('{').count() && variables == source.matches('}').count(), "{source:?}");
    let Some(vars) = template.matches(uri) else { return };
    for name in template.variables() {
        assert!(vars.get(name).is_some_and(|v| v.is_string()), "`{name}` is not bound");
    }
    // The same URI matches the same way again (matching is a function of its input).
    assert_eq!(template.matches(uri), Some(vars));
});
