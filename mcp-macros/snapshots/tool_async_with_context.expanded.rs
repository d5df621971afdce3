/// Searches the notes.
pub async fn search(
    query: String,
    limit: u32,
    progress: Progress,
    cx: &RequestContext,
) -> Result<Vec<Hit>, SearchError> {
    todo!()
}
/// The `#[tool]` `search`, for explicit lists such as `tools![search]`.
#[doc(hidden)]
#[allow(
    non_camel_case_types,
    dead_code,
    unreachable_pub,
    missing_docs,
    missing_debug_implementations
)]
pub struct search {}
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
    fn __ctx_2() -> __mcp::Context<__mcp::ToolCall, Progress> {
        __mcp::named_context::<__mcp::ToolCall, Progress>()
    }
    fn __ctx_3() -> __mcp::Context<__mcp::ToolCall, RequestContext> {
        __mcp::named_context::<__mcp::ToolCall, RequestContext>()
    }
    fn __arg_0() -> __mcp::ToolArg<String> {
        __mcp::tool_arg::<String>()
    }
    fn __arg_1() -> __mcp::ToolArg<u32> {
        __mcp::tool_arg::<u32>()
    }
    fn __default_1() -> u32 {
        10
    }
    fn __default_json_1() -> ::core::option::Option<__mcp::serde_json::Value> {
        #[allow(unused_imports)]
        use __mcp::{ViaNoSerialize as _, ViaSerialize as _};
        (&__mcp::MaybeJson(&__default_1())).to_json()
    }
    fn __header_1() -> __mcp::HeaderValueCheck<u32> {
        __mcp::header_value::<u32>()
    }
    type __Ret = Result<Vec<Hit>, SearchError>;
    fn __ret() -> __mcp::ToolReturn<__Ret> {
        #[allow(unused_imports)]
        use __mcp::{ViaIntoToolResult as _, ViaResult as _, ViaStructured as _};
        (&&&__mcp::Ret::<__Ret>::NEW).tool_return()
    }
    struct __Params;
    impl __mcp::ToolParams for __Params {
        fn properties() -> __mcp::Properties {
            __mcp::Properties::new()
                .push(
                    __mcp::Property::new("query", __arg_0())
                        .description(__mcp::description(&[" What to look for."])),
                )
                .push(
                    __mcp::Property::new("limit", __arg_1())
                        .default(__default_json_1())
                        .header("Limit"),
                )
        }
    }
    fn __handler(
        __call: __mcp::ToolCall,
    ) -> __mcp::BoxFuture<'static, __mcp::ToolOutcome> {
        let __c2 = match __ctx_2().extract_tool(&__call) {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(rejected) => return __mcp::ready(rejected),
        };
        let __c3 = match __ctx_3().extract_tool(&__call) {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(rejected) => return __mcp::ready(rejected),
        };
        let mut __args = match __mcp::ToolArgs::parse(&__call) {
            ::core::result::Result::Ok(args) => args,
            ::core::result::Result::Err(rejected) => return __mcp::ready(rejected),
        };
        let __taken = (
            __args.take("query", __arg_0(), ::core::option::Option::None),
            __args.take("limit", __arg_1(), ::core::option::Option::Some(__default_1)),
        );
        let (::core::option::Option::Some(__a0), ::core::option::Option::Some(__a1)) = __taken
        else {
            return __mcp::ready(__args.into_error());
        };
        __mcp::boxed(async move {
            let __value = search(__a0, __a1, __c2, &__c3).await;
            __ret().convert(__value)
        })
    }
    fn __requirements() -> ::std::vec::Vec<__mcp::StateRequirement> {
        __mcp::requirements(&[__ctx_2().requirement(), __ctx_3().requirement()])
    }
    fn __definition() -> __mcp::Tool {
        __mcp::ToolDefinition::new(
                "search",
                __mcp::input_schema::<__Params>(),
                __ret().output_schema(),
            )
            .title("Search")
            .description(__mcp::description(&[" Searches the notes."]))
            .annotations(__mcp::ToolHints::new().read_only(true).build())
            .build()
    }
    #[::mcp_runtime::__private::linkme::distributed_slice(
        ::mcp_runtime::__private::TOOLS
    )]
    #[linkme(crate = ::mcp_runtime::__private::linkme)]
    static __DESCRIPTOR: __mcp::ToolDescriptor = __mcp::ToolDescriptor {
        name: "search",
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
    impl __mcp::ToolItem for search {
        fn descriptor() -> &'static __mcp::ToolDescriptor {
            &__DESCRIPTOR
        }
    }
};
