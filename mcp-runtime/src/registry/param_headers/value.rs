//! The Rust types a tool parameter may have to be mirrored into an HTTP
//! header: [`ParamHeaderValue`], checked where `#[arg(header = ..)]` is written.

use std::borrow::Cow;

/// A type whose values can be mirrored into an `Mcp-Param-*` HTTP header
/// with `#[arg(header = "Name")]`: the protocol allows it only on string,
/// integer and boolean properties.
///
/// Implement it for your own types that serialize as one of those, such as
/// an enum of unit variants:
///
/// ```
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// enum Region { Eu, Us }
///
/// impl mcp_runtime::entry::ParamHeaderValue for Region {}
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be sent in an HTTP header",
    label = "not a string, integer or boolean",
    note = "`x-mcp-header` is allowed only on string, integer and boolean arguments; implement `mcp_runtime::entry::ParamHeaderValue` for a type that serializes as one of those"
)]
pub trait ParamHeaderValue {}

macro_rules! header_values {
    ($($ty:ty),*) => {$( impl ParamHeaderValue for $ty {} )*};
}

header_values!(String, Cow<'static, str>, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl<T: ParamHeaderValue> ParamHeaderValue for Option<T> {}

#[cfg(test)]
mod tests {
    #[test]
    fn the_diagnostic_names_every_mirrored_type() {
        let source = include_str!("value.rs");
        let note = source.split("note = \"").nth(1).and_then(|n| n.split('"').next()).expect("the note");
        let label = source.split("label = \"").nth(1).and_then(|l| l.split('"').next()).expect("the label");
        for ty in mcp_runtime_rules::header::MIRRORED_TYPES {
            assert!(note.contains(ty) && label.contains(ty), "`{ty}` is missing from the diagnostic");
        }
    }
}
