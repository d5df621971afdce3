/// A prompt with two arguments.
fn with_arguments(arg1: String, arg2: Option<u32>) -> String {
    format!("{arg1} {arg2:?}")
}
/// The `#[prompt]` `with_arguments`, for explicit lists such as `prompts![with_arguments]`.
#[doc(hidden)]
#[allow(
    non_camel_case_types,
    dead_code,
    unreachable_pub,
    missing_docs,
    missing_debug_implementations
)]
struct with_arguments {}
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
    fn __arg_0() -> __mcp::TextArg<String> {
        __mcp::prompt_arg::<String>()
    }
    fn __arg_1() -> __mcp::TextArg<Option<u32>> {
        __mcp::prompt_arg::<Option<u32>>()
    }
    type __Ret = String;
    fn __ret() -> __mcp::PromptReturn<__Ret> {
        __mcp::prompt_return::<__Ret>()
    }
    fn __handler(
        __call: __mcp::PromptCall,
    ) -> __mcp::BoxFuture<'static, __mcp::PromptOutcome> {
        let mut __args = __mcp::PromptArgs::new(&__call);
        let __taken = (
            __args.take("arg1", __arg_0(), ::core::option::Option::None),
            __args.take("arg2", __arg_1(), ::core::option::Option::None),
        );
        let (::core::option::Option::Some(__a0), ::core::option::Option::Some(__a1)) = __taken
        else {
            return __mcp::ready(::core::result::Result::Err(__args.into_error()));
        };
        __mcp::blocking(move || {
            let __value = with_arguments(__a0, __a1);
            __ret().convert(__value)
        })
    }
    fn __complete(
        __call: __mcp::CompleteCall,
    ) -> __mcp::BoxFuture<
        'static,
        ::core::result::Result<__mcp::Completion, __mcp::ErrorObject>,
    > {
        match __call.argument() {
            "arg1" => __mcp::complete_with(__call, complete_arg1),
            _ => __mcp::no_completion(),
        }
    }
    fn __requirements() -> ::std::vec::Vec<__mcp::StateRequirement> {
        __mcp::requirements(&[])
    }
    fn __definition() -> __mcp::Prompt {
        __mcp::PromptDefinition::new("test_prompt_with_arguments")
            .description(__mcp::description(&[" A prompt with two arguments."]))
            .argument(
                "arg1",
                __arg_0(),
                false,
                ::core::option::Option::None,
                __mcp::verbatim("First argument"),
            )
            .argument(
                "arg2",
                __arg_1(),
                false,
                ::core::option::Option::None,
                ::core::option::Option::None,
            )
            .build()
    }
    #[::mcp_runtime::__private::linkme::distributed_slice(
        ::mcp_runtime::__private::PROMPTS
    )]
    #[linkme(crate = ::mcp_runtime::__private::linkme)]
    static __DESCRIPTOR: __mcp::PromptDescriptor = __mcp::PromptDescriptor {
        name: "test_prompt_with_arguments",
        definition: __definition,
        handler: __handler,
        completer: ::core::option::Option::Some(__complete),
        requirements: __requirements,
        location: __mcp::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        },
        scopes: &[],
        visible_to: ::core::option::Option::None,
    };
    impl __mcp::PromptItem for with_arguments {
        fn descriptor() -> &'static __mcp::PromptDescriptor {
            &__DESCRIPTOR
        }
    }
};
