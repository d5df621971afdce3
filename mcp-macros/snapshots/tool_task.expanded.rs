/// Renders the report, which takes a while.
async fn render(input: Input) -> String {
    input.answer("go").map(ToString::to_string).unwrap_or_default()
}
/// The `#[tool]` `render`, for explicit lists such as `tools![render]`.
#[doc(hidden)]
#[allow(
    non_camel_case_types,
    dead_code,
    unreachable_pub,
    missing_docs,
    missing_debug_implementations
)]
struct render {}
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
    fn __ctx_0() -> __mcp::Context<__mcp::ToolCall, Input> {
        __mcp::named_context::<__mcp::ToolCall, Input>()
    }
    type __Ret = String;
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
        let __c0 = match __ctx_0().extract_tool(&__call) {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(rejected) => return __mcp::ready(rejected),
        };
        __mcp::boxed(async move {
            let __value = render(__c0).await;
            __ret().convert(__value)
        })
    }
    fn __requirements() -> ::std::vec::Vec<__mcp::StateRequirement> {
        __mcp::requirements(&[__ctx_0().requirement()])
    }
    fn __definition() -> __mcp::Tool {
        __mcp::ToolDefinition::new(
                "render",
                __mcp::input_schema::<__Params>(),
                __ret().output_schema(),
            )
            .description(
                __mcp::description(&[" Renders the report, which takes a while."]),
            )
            .build()
    }
    #[::mcp_runtime::__private::linkme::distributed_slice(
        ::mcp_runtime::__private::TOOLS
    )]
    #[linkme(crate = ::mcp_runtime::__private::linkme)]
    static __DESCRIPTOR: __mcp::ToolDescriptor = __mcp::ToolDescriptor {
        name: "render",
        definition: __definition,
        handler: __handler,
        requirements: __requirements,
        location: __mcp::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        },
        task: ::core::option::Option::Some(__mcp::TaskSupport::required().input_first()),
        scopes: &[],
        visible_to: ::core::option::Option::None,
        view: ::core::option::Option::None,
        visibility: ::core::option::Option::None,
        layers: ::core::option::Option::None,
        invalidates: &[],
    };
    impl __mcp::ToolItem for render {
        fn descriptor() -> &'static __mcp::ToolDescriptor {
            &__DESCRIPTOR
        }
    }
};
