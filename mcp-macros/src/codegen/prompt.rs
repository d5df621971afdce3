//! `#[prompt]`: argument slots (strings parsed into the parameters' types),
//! the adapter, the completer and the descriptor.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::parts::{
    argument_description, bind_arguments, common_definition, completer, completer_ref, context_slots, default_fn,
    default_ref, extract_contexts, location, register, requirements, ret_slot, run_boxed, scopes, visible_to,
};
use crate::model::Handler;

pub(super) fn generate(handler: &Handler) -> TokenStream {
    let call_ty = quote!(__mcp::PromptCall);
    let contexts = context_slots(handler, &call_ty);
    let arguments = argument_slots(handler);
    let ret_slot = ret_slot(handler, "PromptReturn", "prompt_return");
    let adapter = adapter(handler);
    let requirements = requirements(handler);
    let definition = definition(handler);
    let complete = completer(handler);
    let completer_ref = completer_ref(complete.as_ref());
    let name = &handler.name;
    let location = location(handler.ident().span());
    let scopes = scopes(handler);
    let visible_to = visible_to(handler);
    let descriptor = quote! {
        __mcp::PromptDescriptor {
            name: #name,
            definition: __definition,
            handler: __handler,
            completer: #completer_ref,
            requirements: __requirements,
            location: #location,
            scopes: #scopes,
            visible_to: #visible_to,
        }
    };
    let register = register(handler, "PROMPTS", "PromptItem", "PromptDescriptor", descriptor);
    quote! {
        #contexts
        #arguments
        #ret_slot
        #adapter
        #complete
        #requirements
        #definition
        #register
    }
}

fn argument_slots(handler: &Handler) -> TokenStream {
    let mut out = TokenStream::new();
    for (index, arg) in handler.arguments() {
        let ty = &arg.ty;
        let slot = format_ident!("__arg_{}", index);
        out.extend(quote_spanned! {ty.span()=>
            fn #slot() -> __mcp::TextArg<#ty> {
                __mcp::prompt_arg::<#ty>()
            }
        });
        out.extend(default_fn(index, arg));
    }
    out
}

fn adapter(handler: &Handler) -> TokenStream {
    let contexts = extract_contexts(handler, quote!(extract_rpc), quote!(::core::result::Result::Err(rejected)));
    let takes: Vec<TokenStream> = handler
        .arguments()
        .map(|(index, arg)| {
            let name = &arg.name;
            let slot = format_ident!("__arg_{}", index);
            let default = default_ref(index, arg);
            quote!(__args.take(#name, #slot(), #default))
        })
        .collect();
    let parse = (!takes.is_empty()).then(|| quote!(let mut __args = __mcp::PromptArgs::new(&__call);));
    let bind = bind_arguments(handler, takes, quote!(::core::result::Result::Err(__args.into_error())));
    let run = run_boxed(handler, quote!(__ret().convert(__value)));
    quote! {
        fn __handler(__call: __mcp::PromptCall) -> __mcp::BoxFuture<'static, __mcp::PromptOutcome> {
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
    let arguments = handler.arguments().map(|(index, arg)| {
        let name = &arg.name;
        let slot = format_ident!("__arg_{}", index);
        let has_default = arg.default.is_some();
        let title = match &arg.title {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        let description = argument_description(arg);
        quote!(.argument(#name, #slot(), #has_default, #title, #description))
    });
    quote! {
        fn __definition() -> __mcp::Prompt {
            __mcp::PromptDefinition::new(#name)
                #common
                #(#arguments)*
                .build()
        }
    }
}
