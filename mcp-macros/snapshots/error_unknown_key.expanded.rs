/// Adds two numbers.
fn add(a: i64, b: i64) -> i64 {
    a + b
}
::core::compile_error! {
    "unknown key `nmae` in `#[tool]`; expected one of: name, title, description, annotations, task, icons, meta, scopes, visible_to, view, visibility, layer, invalidates, crate"
}
/// The `#[tool]` `add`, for explicit lists such as `tools![add]`.
#[doc(hidden)]
#[allow(
    non_camel_case_types,
    dead_code,
    unreachable_pub,
    missing_docs,
    missing_debug_implementations
)]
struct add {}
const _: () = {
    impl ::mcp_runtime::__private::ToolItem for add {
        fn descriptor() -> &'static ::mcp_runtime::__private::ToolDescriptor {
            &::mcp_runtime::__private::fallback::TOOL
        }
    }
};
