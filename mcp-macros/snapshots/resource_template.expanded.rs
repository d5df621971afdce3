/// Data for one id.
async fn template_data(id: u64, State(db): State<Db>) -> Result<String, NotFound> {
    db.get(id).ok_or(NotFound)
}
/// The `#[resource]` `template_data`, for explicit lists such as `resources![template_data]`.
#[doc(hidden)]
#[allow(
    non_camel_case_types,
    dead_code,
    unreachable_pub,
    missing_docs,
    missing_debug_implementations
)]
struct template_data {}
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
    use ::renamed::__private as __mcp;
    fn __ctx_1() -> __mcp::Context<__mcp::ResourceCall, State<Db>> {
        __mcp::named_state::<__mcp::ResourceCall, State<Db>, Db>()
    }
    fn __arg_0() -> __mcp::TextArg<u64> {
        __mcp::uri_var::<u64>()
    }
    type __Ret = Result<String, NotFound>;
    fn __ret() -> __mcp::ResourceReturn<__Ret> {
        __mcp::resource_return::<__Ret>()
    }
    fn __handler(
        __call: __mcp::ResourceCall,
        __mime_type: __mcp::MimeType,
    ) -> __mcp::BoxFuture<'static, __mcp::ResourceOutcome> {
        let __c1 = match __ctx_1().extract_rpc(&__call) {
            ::core::result::Result::Ok(value) => value,
            ::core::result::Result::Err(rejected) => {
                return __mcp::ready(::core::result::Result::Err(rejected));
            }
        };
        let mut __vars = __mcp::UriVars::new(&__call);
        let __taken = (__vars.take("id", __arg_0()),);
        let (::core::option::Option::Some(__a0),) = __taken else {
            return __mcp::ready(::core::result::Result::Err(__vars.into_error()));
        };
        let __uri = ::std::string::ToString::to_string(__call.uri());
        __mcp::boxed(async move {
            let __value = template_data(__a0, __c1).await;
            __ret()
                .convert(__value, &__uri, ::core::option::Option::as_deref(&__mime_type))
        })
    }
    fn __requirements() -> ::std::vec::Vec<__mcp::StateRequirement> {
        __mcp::requirements(&[__ctx_1().requirement()])
    }
    fn __definition() -> __mcp::ResourceDefinition {
        __mcp::ResourceDefinitionBuilder::template(
                "test://template/{id}/data",
                "template_data",
            )
            .description(__mcp::description(&[" Data for one id."]))
            .mime_type("application/json")
            .build()
    }
    #[::renamed::__private::linkme::distributed_slice(::renamed::__private::RESOURCES)]
    #[linkme(crate = ::renamed::__private::linkme)]
    static __DESCRIPTOR: __mcp::ResourceDescriptor = __mcp::ResourceDescriptor {
        uri: "test://template/{id}/data",
        definition: __definition,
        handler: __handler,
        completer: ::core::option::Option::None,
        requirements: __requirements,
        location: __mcp::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        },
        scopes: &[],
        visible_to: ::core::option::Option::None,
        view: ::core::option::Option::None,
    };
    impl __mcp::ResourceItem for template_data {
        fn descriptor() -> &'static __mcp::ResourceDescriptor {
            &__DESCRIPTOR
        }
    }
};
