/// Returns a short text.
fn simple_text() -> &'static str {
    "This is a simple text response for testing."
}
/// The `#[tool]` `simple_text`, for explicit lists such as `tools![simple_text]`.
#[doc(hidden)]
#[allow(
    non_camel_case_types,
    dead_code,
    unreachable_pub,
    missing_docs,
    missing_debug_implementations
)]
struct simple_text {}
#[doc(hidden)]
#[allow(
    non_snake_case,
    dead_code,
    deprecated,
    unused_qualifications,
    clippy::all,
    clippy::pedantic
)]
const _: () = {
    use ::mcp_runtime::__private as __mcp;
    type __Ret = &'static str;
    fn __ret() -> __mcp::ToolReturn<__Ret> {
        #[allow(unused_imports)]
        use __mcp::{ViaIntoToolResult as _, ViaResult as _, ViaStructured as _};
        (&&&__mcp::Ret::<__Ret>::NEW).tool_return()
    }
    struct __Params;
    impl __mcp::ToolParams for __Params {
        fn properties() -> __mcp::Properties {
            __mcp::Properties::new()
        }
    }
    fn __handler(
        __call: __mcp::ToolCall,
    ) -> __mcp::BoxFuture<'static, __mcp::ToolOutcome> {
        __mcp::blocking(move || {
            let __value = simple_text();
            __ret().convert(__value)
        })
    }
    fn __requirements() -> ::std::vec::Vec<__mcp::StateRequirement> {
        __mcp::requirements(&[])
    }
    fn __definition() -> __mcp::Tool {
        __mcp::ToolDefinition::new(
                "test_simple_text",
                __mcp::input_schema::<__Params>(),
                __ret().output_schema(),
            )
            .description(__mcp::description(&[" Returns a short text."]))
            .build()
    }
    #[::mcp_runtime::__private::linkme::distributed_slice(
        ::mcp_runtime::__private::TOOLS
    )]
    #[linkme(crate = ::mcp_runtime::__private::linkme)]
    static __DESCRIPTOR: __mcp::ToolDescriptor = __mcp::ToolDescriptor {
        name: "test_simple_text",
        definition: __definition,
        handler: __handler,
        requirements: __requirements,
        location: __mcp::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        },
        task: ::core::option::Option::None,
        scopes: &[],
        visible_to: ::core::option::Option::None,
        view: ::core::option::Option::None,
        visibility: ::core::option::Option::None,
        layers: ::core::option::Option::None,
        invalidates: &[],
    };
    impl __mcp::ToolItem for simple_text {
        fn descriptor() -> &'static __mcp::ToolDescriptor {
            &__DESCRIPTOR
        }
    }
};
