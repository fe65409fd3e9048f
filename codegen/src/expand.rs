//! Model out, tokens in: the parent module with its shared items and one child
//! module per variant.

use crate::model::{Args, Module, Policy, Variant};
use crate::{parse, validate};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::{ImplItem, Item};

/// The whole macro: on any error, the input (without `#[round]` markers, which
/// would otherwise be unknown attributes) followed by the errors.
pub(crate) fn variants(args: TokenStream, input: TokenStream) -> TokenStream {
    match try_expand(args, input.clone()) {
        Ok(tokens) => tokens,
        Err(err) => {
            let mut out = without_markers(input);
            out.extend(err.to_compile_error());
            out
        }
    }
}

fn try_expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    // Parse both before failing so that a bad argument and a bad module are
    // reported together.
    let args = parse::args(args);
    let module = parse::module(input).and_then(|m| validate::module(&m).map(|()| m));
    match (args, module) {
        (Ok(args), Ok(module)) => {
            validate::args_against(&args, &module)?;
            expand(&args, module)
        }
        (Err(mut a), Err(m)) => {
            a.combine(m);
            Err(a)
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

fn expand(args: &Args, module: Module) -> syn::Result<TokenStream> {
    let Module {
        mut shell,
        shared,
        per_variant,
        rounds,
        shapes: _,
    } = module;
    let names: Vec<String> = args.variants.iter().map(|v| v.name.to_string()).collect();
    let mut items: Vec<Item> = vec![
        syn::parse_quote! {
            /// The variants of this module, in the order asked for; each names a child module.
            pub const VARIANTS: &[&str] = &[#(#names),*];
        },
        syn::parse_quote! {
            /// The `#[round]` functions, whose inline attribute differs between variants.
            pub const ROUNDS: &[&str] = &[#(#rounds),*];
        },
    ];
    items.extend(shared);
    let mut errors = parse::Errors::default();
    for variant in &args.variants {
        match child(variant, &per_variant, args.feature_gate.as_deref()) {
            Ok(item) => items.push(item),
            Err(e) => errors.push(e),
        }
    }
    errors.finish()?;
    if let Some((_, content)) = &mut shell.content {
        *content = items;
    }
    Ok(shell.into_token_stream())
}

/// The child module of one variant.
fn child(variant: &Variant, items: &[Item], feature_gate: Option<&str>) -> syn::Result<Item> {
    let Variant { name, policy, form } = variant;
    let mut doc = format!(
        " Variant `{name}`: every `#[round]` function has {}",
        policy.describe()
    );
    match form {
        Some(f) => doc.push_str(&format!("; `#[shape]` functions have {}.", f.describe())),
        None => doc.push('.'),
    }
    let gate = feature_gate.map(|prefix| {
        let feature = format!("{prefix}-{name}");
        quote!(#[cfg(any(feature = "all-variants", feature = #feature))])
    });
    let name_str = name.to_string();
    let items = items
        .iter()
        .map(|item| {
            let mut item = item.clone();
            strip_round_markers(&mut item, Some(*policy));
            shape(&mut item, *form)?;
            Ok(item)
        })
        .collect::<syn::Result<Vec<Item>>>()?;
    let ident = format_ident!("{}", name);
    Ok(syn::parse_quote! {
        #[doc = #doc]
        #gate
        pub mod #ident {
            #![allow(unused_imports)]
            use super::*;
            /// This variant's name, as listed in `VARIANTS`.
            pub const VARIANT: &str = #name_str;
            #(#items)*
        }
    })
}

/// Removes `#[shape]` from the functions it marks and, with a form, rewrites
/// their bodies.
fn shape(item: &mut Item, form: Option<crate::forms::Form>) -> syn::Result<()> {
    let one = |attrs: &mut Vec<syn::Attribute>, block: &mut syn::Block| {
        if attrs.iter().any(parse::is_shape) {
            attrs.retain(|a| !parse::is_shape(a));
            if let Some(form) = form {
                return form.apply(block);
            }
        }
        Ok(())
    };
    match item {
        Item::Fn(f) => one(&mut f.attrs, &mut f.block),
        Item::Impl(imp) => {
            for ii in &mut imp.items {
                if let ImplItem::Fn(f) = ii {
                    one(&mut f.attrs, &mut f.block)?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Removes `#[round]` from the functions where it is allowed and, with a
/// policy, puts the policy's attribute in its place.
pub(crate) fn strip_round_markers(item: &mut Item, policy: Option<Policy>) {
    let rewrite = |attrs: &mut Vec<syn::Attribute>| {
        if attrs.iter().any(parse::is_round) {
            attrs.retain(|a| !parse::is_round(a));
            if let Some(policy) = policy {
                let attr = policy.attribute();
                if !attr.is_empty() {
                    attrs.push(syn::parse_quote!(#attr));
                }
            }
        }
    };
    match item {
        Item::Fn(f) => rewrite(&mut f.attrs),
        Item::Impl(imp) => {
            for ii in &mut imp.items {
                if let ImplItem::Fn(f) = ii {
                    rewrite(&mut f.attrs);
                }
            }
        }
        _ => {}
    }
}

/// The input with every `#[round]` marker removed, for the error path.
fn without_markers(input: TokenStream) -> TokenStream {
    let Ok(mut item) = syn::parse2::<Item>(input.clone()) else {
        return input;
    };
    if let Item::Mod(m) = &mut item
        && let Some((_, items)) = &mut m.content
    {
        for item in items.iter_mut() {
            strip_round_markers(item, None);
            let _ = shape(item, None);
            if let Some(attrs) = parse::item_attrs_mut(item) {
                attrs.retain(|a| !parse::is_round(a) && !parse::is_shape(a));
            }
        }
    }
    item.into_token_stream()
}

/// Removes `#[shape]` from the functions where it is allowed.
pub(crate) fn strip_shape_markers(item: &mut Item) {
    let _ = shape(item, None);
}
