//! `#[resource]`: template variable slots, the adapter, the completer and
//! the descriptor.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::parts::{
    bind_arguments, common_definition, completer, completer_ref, context_slots, extract_contexts, location, register,
    requirements, ret_slot, run_boxed, scopes, visible_to,
};
use crate::attr::ContentHints;
use crate::model::Handler;
use crate::template;

pub(super) fn generate(handler: &Handler) -> TokenStream {
    let call_ty = quote!(__mcp::ResourceCall);
    let contexts = context_slots(handler, &call_ty);
    let variables = handler.arguments().map(|(index, arg)| {
        let ty = &arg.ty;
        let slot = format_ident!("__arg_{}", index);
        quote_spanned! {ty.span()=>
            fn #slot() -> __mcp::TextArg<#ty> {
                __mcp::uri_var::<#ty>()
            }
        }
    });
    let ret_slot = ret_slot(handler, "ResourceReturn", "resource_return");
    let adapter = adapter(handler);
    let requirements = requirements(handler);
    let definition = definition(handler);
    let complete = completer(handler);
    let completer_ref = completer_ref(complete.as_ref());
    let uri = handler.attrs.uri.as_ref().map(|u| u.value()).unwrap_or_default();
    let location = location(handler.ident().span());
    let scopes = scopes(handler);
    let visible_to = visible_to(handler);
    let view = crate::view::resource_view(handler.attrs.view.as_ref());
    let descriptor = quote! {
        __mcp::ResourceDescriptor {
            uri: #uri,
            definition: __definition,
            handler: __handler,
            completer: #completer_ref,
            requirements: __requirements,
            location: #location,
            scopes: #scopes,
            visible_to: #visible_to,
            view: #view,
        }
    };
    let register = register(handler, "RESOURCES", "ResourceItem", "ResourceDescriptor", descriptor);
    quote! {
        #contexts
        #(#variables)*
        #ret_slot
        #adapter
        #complete
        #requirements
        #definition
        #register
    }
}

fn adapter(handler: &Handler) -> TokenStream {
    let contexts = extract_contexts(handler, quote!(extract_rpc), quote!(::core::result::Result::Err(rejected)));
    let takes: Vec<TokenStream> = handler
        .arguments()
        .map(|(index, arg)| {
            let name = &arg.name;
            let slot = format_ident!("__arg_{}", index);
            quote!(__vars.take(#name, #slot()))
        })
        .collect();
    let parse = (!takes.is_empty()).then(|| quote!(let mut __vars = __mcp::UriVars::new(&__call);));
    let bind = bind_arguments(handler, takes, quote!(::core::result::Result::Err(__vars.into_error())));
    let run =
        run_boxed(handler, quote!(__ret().convert(__value, &__uri, ::core::option::Option::as_deref(&__mime_type))));
    quote! {
        fn __handler(
            __call: __mcp::ResourceCall,
            __mime_type: __mcp::MimeType,
        ) -> __mcp::BoxFuture<'static, __mcp::ResourceOutcome> {
            #contexts
            #parse
            #bind
            let __uri = ::std::string::ToString::to_string(__call.uri());
            #run
        }
    }
}

fn definition(handler: &Handler) -> TokenStream {
    let attrs = &handler.attrs;
    let uri = attrs.uri.as_ref().map(|u| u.value()).unwrap_or_default();
    let name = &handler.name;
    let is_template = template::variables(&uri).is_ok_and(|v| !v.is_empty());
    let constructor = if is_template { quote!(template) } else { quote!(fixed) };
    let common = common_definition(attrs, &handler.docs);
    let mut extra = TokenStream::new();
    if let Some(mime) = &attrs.mime_type {
        extra.extend(quote!(.mime_type(#mime)));
    }
    if let Some(size) = &attrs.size {
        extra.extend(quote!(.size(#size)));
    }
    if let Some(hints) = &attrs.content_hints {
        extra.extend(content_hints(hints));
    }
    quote! {
        fn __definition() -> __mcp::ResourceDefinition {
            __mcp::ResourceDefinitionBuilder::#constructor(#uri, #name)
                #common
                #extra
                .build()
        }
    }
}

fn content_hints(hints: &ContentHints) -> TokenStream {
    let mut calls = quote!(__mcp::ContentAnnotations::new());
    if let Some(audience) = &hints.audience {
        calls.extend(quote!(.audience(&[#(#audience),*])));
    }
    if let Some(priority) = &hints.priority {
        calls.extend(quote!(.priority(#priority)));
    }
    if let Some(last_modified) = &hints.last_modified {
        calls.extend(quote!(.last_modified(#last_modified)));
    }
    quote!(.annotations(#calls.build()))
}
