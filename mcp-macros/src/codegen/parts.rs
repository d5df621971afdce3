//! The pieces every handler's generated code is made of: absolute paths
//! to the runtime, the definition builder's common parts, the slots that
//! extract parameters and check bounds, the registration. `tool`, `prompt`
//! and `resource` assemble them.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, Path};

use crate::attr::{ItemAttrs, Macro};
use crate::model::{Argument, Description, Handler, Pass, Role};

/// The function's `#[cfg]` attributes, repeated on everything generated
/// beside it, so that a function compiled out takes its descriptor along.
pub(crate) fn cfgs(item: &syn::ItemFn) -> Vec<&syn::Attribute> {
    item.attrs.iter().filter(|a| a.path().is_ident("cfg")).collect()
}

/// The path generated code reaches the runtime by: `::mcp_runtime`, or the
/// `crate = path` override.
pub(crate) fn runtime(krate: Option<&Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path),
        None => quote!(::mcp_runtime),
    }
}

/// The path generated code reaches the runtime's private module by.
pub(crate) fn root(krate: Option<&Path>) -> TokenStream {
    let runtime = runtime(krate);
    quote!(#runtime::__private)
}

/// The hidden proxy struct named after the function.
pub(crate) fn proxy(kind: Macro, vis: &syn::Visibility, ident: &Ident) -> TokenStream {
    let doc =
        format!(" The `#[{}]` `{}`, for explicit lists such as `{}s![{}]`.", kind.name(), ident, kind.name(), ident);
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, unreachable_pub, missing_docs, missing_debug_implementations)]
        #vis struct #ident {}
    }
}

/// `module_path!()`, `file!()` and `line!()` of the function's name.
pub(super) fn location(span: Span) -> TokenStream {
    quote_spanned! {span=>
        __mcp::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    }
}

/// `&["...", ...]`: the scopes `scopes = [...]` declares (empty for none).
pub(super) fn scopes(handler: &Handler) -> TokenStream {
    let scopes = handler.attrs.scopes.iter().flat_map(|s| &s.scopes);
    quote!(&[#(#scopes),*])
}

/// `Some(visibility_rule(path))` for `visible_to = path`, the function's
/// type checked at the path; `None` without the key.
pub(super) fn visible_to(handler: &Handler) -> TokenStream {
    match &handler.attrs.visible_to {
        None => quote!(::core::option::Option::None),
        Some(path) => {
            let rule = quote_spanned!(path.span()=> __mcp::visibility_rule(#path));
            quote!(::core::option::Option::Some(#rule))
        }
    }
}

/// An `Option<String>` description expression.
pub(super) fn description(explicit: Option<&syn::LitStr>, docs: &[Expr]) -> TokenStream {
    match explicit {
        Some(lit) => quote!(__mcp::verbatim(#lit)),
        None if docs.is_empty() => quote!(::core::option::Option::None),
        None => quote!(__mcp::description(&[#(#docs),*])),
    }
}

pub(super) fn argument_description(arg: &Argument) -> TokenStream {
    match &arg.description {
        Description::Explicit(lit) => description(Some(lit), &[]),
        Description::Docs(docs) => description(None, docs),
        Description::None => description(None, &[]),
    }
}

/// Builder calls shared by every definition: title, description, icons, meta.
pub(super) fn common_definition(attrs: &ItemAttrs, docs: &[Expr]) -> TokenStream {
    let mut calls = TokenStream::new();
    if let Some(title) = &attrs.title {
        calls.extend(quote!(.title(#title)));
    }
    let desc = description(attrs.description.as_ref(), docs);
    calls.extend(quote!(.description(#desc)));
    if let Some(icons) = &attrs.icons {
        let icons = icons.iter().map(|e| quote_spanned!(e.span()=> __mcp::icon(#e)));
        calls.extend(quote!(.icons(::std::vec![#(#icons),*])));
    }
    if let Some(meta) = &attrs.meta {
        let entries = meta.iter().map(|e| {
            let (k, v) = (&e.key, &e.value);
            quote!(#k: (#v))
        });
        calls.extend(quote!(.meta(__mcp::MetaObject::from_value(__mcp::serde_json::json!({ #(#entries),* })))));
    }
    calls
}

/// The slot function of a context parameter, spanned on its type.
pub(super) fn context_slot(index: usize, ty: &syn::Type, by_name: bool, call: &TokenStream) -> TokenStream {
    let name = format_ident!("__ctx_{}", index);
    if by_name && let Some(inner) = state_inner(ty) {
        // `T` is checked at its own span: a `State<Mutex<T>>` is a state
        // type that cannot be shared, not a parameter that is not context.
        let check = quote_spanned!(inner.span()=> __mcp::named_state::<#call, #ty, #inner>());
        return quote_spanned! {ty.span()=>
            fn #name() -> __mcp::Context<#call, #ty> {
                #check
            }
        };
    }
    let slot = if by_name { format_ident!("named_context") } else { format_ident!("context") };
    quote_spanned! {ty.span()=>
        fn #name() -> __mcp::Context<#call, #ty> {
            __mcp::#slot::<#call, #ty>()
        }
    }
}

/// `T` of a type written `State<T>` (by its last segment, as the context
/// rule reads it).
pub(super) fn state_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else { return None };
    let last = path.path.segments.last().filter(|s| s.ident == "State")?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [syn::GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// `let __c1 = ...;` for every context parameter; `on_reject` turns
/// `rejected` into the adapter's output.
pub(super) fn extract_contexts(handler: &Handler, extract: TokenStream, on_reject: TokenStream) -> TokenStream {
    let lets = handler.params.iter().filter_map(|p| match &p.role {
        Role::Context { pass, .. } => {
            let (slot, var) = (format_ident!("__ctx_{}", p.index), format_ident!("__c{}", p.index));
            let mutability = (*pass == Pass::RefMut).then(|| quote!(mut));
            Some(quote! {
                let #mutability #var = match #slot().#extract(&__call) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(rejected) => return __mcp::ready(#on_reject),
                };
            })
        }
        Role::Argument(_) => None,
    });
    quote!(#(#lets)*)
}

/// The context slots of a handler.
pub(super) fn context_slots(handler: &Handler, call: &TokenStream) -> TokenStream {
    let slots = handler.params.iter().filter_map(|p| match &p.role {
        Role::Context { ty, by_name, .. } => Some(context_slot(p.index, ty, *by_name, call)),
        Role::Argument(_) => None,
    });
    quote!(#(#slots)*)
}

/// `fn __requirements()`.
pub(super) fn requirements(handler: &Handler) -> TokenStream {
    let reqs = handler.params.iter().filter_map(|p| match &p.role {
        Role::Context { .. } => {
            let slot = format_ident!("__ctx_{}", p.index);
            Some(quote!(#slot().requirement()))
        }
        Role::Argument(_) => None,
    });
    quote! {
        fn __requirements() -> ::std::vec::Vec<__mcp::StateRequirement> {
            __mcp::requirements(&[#(#reqs),*])
        }
    }
}

/// The call of the user's function with every parameter in order, awaited
/// if it is `async`.
pub(super) fn call_user_fn(handler: &Handler) -> TokenStream {
    let ident = handler.ident();
    let args = handler.params.iter().map(|p| match &p.role {
        Role::Context { pass, .. } => {
            let var = format_ident!("__c{}", p.index);
            match pass {
                Pass::Value => quote!(#var),
                Pass::Ref => quote!(&#var),
                Pass::RefMut => quote!(&mut #var),
            }
        }
        Role::Argument(_) => {
            let var = format_ident!("__a{}", p.index);
            quote!(#var)
        }
    });
    let await_ = handler.is_async().then(|| quote!(.await));
    quote!(#ident(#(#args),*) #await_)
}

/// The adapter's future: `__mcp::boxed(async move { let __value = f(..); convert })`
/// for an `async fn`; for a sync one, `__mcp::blocking(move || ...)`, which
/// runs the call and the conversion on tokio's blocking pool, since a sync
/// function may block and would otherwise stall its worker thread. Spanned
/// on the function's name, so that a future or closure that is not `Send`
/// is reported at the function (with rustc's note on the offending value).
pub(super) fn run_boxed(handler: &Handler, convert: TokenStream) -> TokenStream {
    let call = call_user_fn(handler);
    if !handler.is_async() {
        return quote_spanned! {handler.ident().span()=>
            __mcp::blocking(move || {
                let __value = #call;
                #convert
            })
        };
    }
    quote_spanned! {handler.ident().span()=>
        __mcp::boxed(async move {
            let __value = #call;
            #convert
        })
    }
}

/// `let (Some(__a0), ...) = (taken...) else { return ...; };`
pub(super) fn bind_arguments(handler: &Handler, takes: Vec<TokenStream>, on_error: TokenStream) -> TokenStream {
    if takes.is_empty() {
        return TokenStream::new();
    }
    let vars = handler.arguments().map(|(i, _)| format_ident!("__a{}", i));
    quote! {
        let __taken = (#(#takes,)*);
        let (#(::core::option::Option::Some(#vars),)*) = __taken else {
            return __mcp::ready(#on_error);
        };
    }
}

/// `fn __default_N() -> T { expr }` for an argument with a default. A
/// string literal converts with `From`, so `default = "en"` works for a
/// `String` (and is reported clearly for a type it does not fit).
pub(super) fn default_fn(index: usize, arg: &Argument) -> Option<TokenStream> {
    let expr = arg.default.as_ref()?;
    let name = format_ident!("__default_{}", index);
    let ty = &arg.ty;
    let value = match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(_), .. }) => {
            quote_spanned!(expr.span()=> __mcp::string_default(#expr))
        }
        other => quote!(#other),
    };
    Some(quote_spanned! {expr.span()=>
        fn #name() -> #ty {
            #value
        }
    })
}

/// `Option<fn() -> T>` naming an argument's default function.
pub(super) fn default_ref(index: usize, arg: &Argument) -> TokenStream {
    match arg.default {
        Some(_) => {
            let name = format_ident!("__default_{}", index);
            quote!(::core::option::Option::Some(#name))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// The completer dispatch of a prompt or template, if any argument has one.
pub(super) fn completer(handler: &Handler) -> Option<TokenStream> {
    let arms: Vec<TokenStream> = handler
        .arguments()
        .filter_map(|(_, a)| {
            let complete = a.complete.as_ref()?;
            let name = &a.name;
            Some(quote_spanned!(complete.span()=> #name => __mcp::complete_with(__call, #complete),))
        })
        .collect();
    if arms.is_empty() {
        return None;
    }
    Some(quote! {
        fn __complete(
            __call: __mcp::CompleteCall,
        ) -> __mcp::BoxFuture<'static, ::core::result::Result<__mcp::Completion, __mcp::ErrorObject>> {
            match __call.argument() {
                #(#arms)*
                _ => __mcp::no_completion(),
            }
        }
    })
}

/// `completer: Some(__complete)` when [`completer`] made one.
pub(super) fn completer_ref(complete: Option<&TokenStream>) -> TokenStream {
    match complete {
        Some(_) => quote!(::core::option::Option::Some(__complete)),
        None => quote!(::core::option::Option::None),
    }
}

/// `type __Ret` and `fn __ret()`, the return slot of a prompt or resource:
/// `slot` is the slot type, `check` the function whose bound names the
/// trait the return type lacks. The type is spelled once, in an alias, so
/// that a typo is reported once.
pub(super) fn ret_slot(handler: &Handler, slot: &str, check: &str) -> TokenStream {
    let ret = &handler.ret;
    let slot = format_ident!("{}", slot, span = ret.span());
    let check = format_ident!("{}", check, span = ret.span());
    quote_spanned! {ret.span()=>
        type __Ret = #ret;

        fn __ret() -> __mcp::#slot<__Ret> {
            __mcp::#check::<__Ret>()
        }
    }
}

/// The registration of a descriptor and the proxy's trait impl.
pub(super) fn register(
    handler: &Handler,
    slice: &str,
    item_trait: &str,
    descriptor_ty: &str,
    descriptor: TokenStream,
) -> TokenStream {
    let root = root(handler.attrs.krate.as_ref());
    let slice = format_ident!("{}", slice);
    let item_trait = format_ident!("{}", item_trait);
    let descriptor_ty = format_ident!("{}", descriptor_ty);
    let ident = handler.ident();
    quote! {
        #[#root::linkme::distributed_slice(#root::#slice)]
        #[linkme(crate = #root::linkme)]
        static __DESCRIPTOR: __mcp::#descriptor_ty = #descriptor;

        impl __mcp::#item_trait for #ident {
            fn descriptor() -> &'static __mcp::#descriptor_ty {
                &__DESCRIPTOR
            }
        }
    }
}
