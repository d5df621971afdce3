//! `#[tool]`: argument slots, the input schema, the adapter and the
//! descriptor.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::parts::{
    argument_description, bind_arguments, common_definition, context_slots, default_fn, default_ref, extract_contexts,
    location, register, requirements, run_boxed, scopes, visible_to,
};
use crate::attr::ToolHints;
use crate::model::{Description, Handler};

pub(super) fn generate(handler: &Handler) -> TokenStream {
    let call_ty = quote!(__mcp::ToolCall);
    let contexts = context_slots(handler, &call_ty);
    let arguments = argument_slots(handler);
    let ret = return_slot(handler);
    let params = params_type(handler);
    let adapter = adapter(handler);
    let requirements = requirements(handler);
    let definition = definition(handler);
    let name = &handler.name;
    let location = location(handler.ident().span());
    let scopes = scopes(handler);
    let visible_to = visible_to(handler);
    let invalidates = handler.attrs.invalidates.iter().flatten();
    let (view, visibility) = crate::view::tool_view(handler.attrs.view_uri.as_ref(), handler.attrs.visibility.as_ref());
    let task = match handler.attrs.task {
        None => quote!(::core::option::Option::None),
        Some(mode) => {
            let base = if mode.required { quote!(required) } else { quote!(optional) };
            let first = mode.input_first.then(|| quote!(.input_first()));
            quote!(::core::option::Option::Some(__mcp::TaskSupport::#base() #first))
        }
    };
    let (layers, layers_fn) = layers(handler);
    let descriptor = quote! {
        __mcp::ToolDescriptor {
            name: #name,
            definition: __definition,
            handler: __handler,
            requirements: __requirements,
            location: #location,
            task: #task,
            scopes: #scopes,
            visible_to: #visible_to,
            view: #view,
            visibility: #visibility,
            layers: #layers,
            invalidates: &[#(#invalidates),*],
        }
    };
    let register = register(handler, "TOOLS", "ToolItem", "ToolDescriptor", descriptor);
    quote! {
        #contexts
        #arguments
        #ret
        #params
        #adapter
        #requirements
        #definition
        #layers_fn
        #register
    }
}

/// `layers: Some(__layers)` and the function building the tool's own
/// middleware, in order; each expression's type errors point at it.
fn layers(handler: &Handler) -> (TokenStream, TokenStream) {
    if handler.attrs.layers.is_empty() {
        return (quote!(::core::option::Option::None), TokenStream::new());
    }
    let each = handler.attrs.layers.iter().map(|layer| quote_spanned!(layer.span()=> __mcp::middleware_layer(#layer)));
    let function = quote! {
        fn __layers() -> ::std::vec::Vec<::std::sync::Arc<dyn __mcp::Layer>> {
            ::std::vec![#(#each),*]
        }
    };
    (quote!(::core::option::Option::Some(__layers)), function)
}

/// `fn __arg_N() -> ToolArg<T>`, plus defaults and header checks.
fn argument_slots(handler: &Handler) -> TokenStream {
    let mut out = TokenStream::new();
    for (index, arg) in handler.arguments() {
        let ty = &arg.ty;
        let slot = format_ident!("__arg_{}", index);
        out.extend(quote_spanned! {ty.span()=>
            fn #slot() -> __mcp::ToolArg<#ty> {
                __mcp::tool_arg::<#ty>()
            }
        });
        if let Some(default) = default_fn(index, arg) {
            let name = format_ident!("__default_{}", index);
            let json = format_ident!("__default_json_{}", index);
            out.extend(default);
            out.extend(quote! {
                fn #json() -> ::core::option::Option<__mcp::serde_json::Value> {
                    #[allow(unused_imports)]
                    use __mcp::{ViaNoSerialize as _, ViaSerialize as _};
                    (&__mcp::MaybeJson(&#name())).to_json()
                }
            });
        }
        if arg.header.is_some() {
            let check = format_ident!("__header_{}", index);
            out.extend(quote_spanned! {ty.span()=>
                fn #check() -> __mcp::HeaderValueCheck<#ty> {
                    __mcp::header_value::<#ty>()
                }
            });
        }
    }
    out
}

/// `fn __ret()`: the three-tier dispatch on the return type (see the
/// runtime's `tool_return` module), spanned on the return type.
fn return_slot(handler: &Handler) -> TokenStream {
    let ty = &handler.ret;
    // The type is spelled once, in an alias, so that a typo in it is
    // reported once (rustc merges it with the error in the signature).
    quote_spanned! {ty.span()=>
        type __Ret = #ty;

        fn __ret() -> __mcp::ToolReturn<__Ret> {
            #[allow(unused_imports)]
            use __mcp::{ViaIntoToolResult as _, ViaResult as _, ViaStructured as _};
            (&&&__mcp::Ret::<__Ret>::NEW).tool_return()
        }
    }
}

/// `struct __Params` and its properties, in parameter order.
fn params_type(handler: &Handler) -> TokenStream {
    let properties = handler.arguments().map(|(index, arg)| {
        let name = &arg.name;
        let slot = format_ident!("__arg_{}", index);
        let mut property = quote!(__mcp::Property::new(#name, #slot()));
        if !matches!(arg.description, Description::None) {
            let description = argument_description(arg);
            property.extend(quote!(.description(#description)));
        }
        if arg.default.is_some() {
            let json = format_ident!("__default_json_{}", index);
            property.extend(quote!(.default(#json())));
        }
        if let Some(header) = &arg.header {
            // The type was checked by `__header_N`, whose body is type-checked
            // even though nothing calls it.
            property.extend(quote!(.header(#header)));
        }
        quote!(.push(#property))
    });
    quote! {
        struct __Params;

        impl __mcp::ToolParams for __Params {
            fn properties() -> __mcp::Properties {
                __mcp::Properties::new() #(#properties)*
            }
        }
    }
}

fn adapter(handler: &Handler) -> TokenStream {
    let contexts = extract_contexts(handler, quote!(extract_tool), quote!(rejected));
    let takes: Vec<TokenStream> = handler
        .arguments()
        .map(|(index, arg)| {
            let name = &arg.name;
            let slot = format_ident!("__arg_{}", index);
            let default = default_ref(index, arg);
            quote!(__args.take(#name, #slot(), #default))
        })
        .collect();
    let parse = (!takes.is_empty()).then(|| {
        quote! {
            let mut __args = match __mcp::ToolArgs::parse(&__call) {
                ::core::result::Result::Ok(args) => args,
                ::core::result::Result::Err(rejected) => return __mcp::ready(rejected),
            };
        }
    });
    let bind = bind_arguments(handler, takes, quote!(__args.into_error()));
    let run = run_boxed(handler, quote!(__ret().convert(__value)));
    quote! {
        fn __handler(__call: __mcp::ToolCall) -> __mcp::BoxFuture<'static, __mcp::ToolOutcome> {
            #contexts
            #parse
            #bind
            #run
        }
    }
}

fn definition(handler: &Handler) -> TokenStream {
    let name = &handler.name;
    let common = common_definition(&handler.attrs, &handler.docs);
    let hints = handler.attrs.tool_hints.as_ref().map(hints);
    quote! {
        fn __definition() -> __mcp::Tool {
            __mcp::ToolDefinition::new(#name, __mcp::input_schema::<__Params>(), __ret().output_schema())
                #common
                #hints
                .build()
        }
    }
}

fn hints(hints: &ToolHints) -> TokenStream {
    let mut calls = quote!(__mcp::ToolHints::new());
    if let Some(title) = &hints.title {
        calls.extend(quote!(.title(#title)));
    }
    for (flag, method) in [
        (hints.read_only, "read_only"),
        (hints.destructive, "destructive"),
        (hints.idempotent, "idempotent"),
        (hints.open_world, "open_world"),
    ] {
        if let Some(flag) = flag {
            let method = format_ident!("{}", method);
            let value = flag.value;
            calls.extend(quote!(.#method(#value)));
        }
    }
    quote!(.annotations(#calls.build()))
}
