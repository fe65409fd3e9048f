//! Model out, tokens in: the parent module with its shared items and one child
//! module per variant.

use crate::errors::Errors;
use crate::items;
use crate::markers::{self, Marker};
use crate::model::{Args, Declaration, Kind, Module, Policy, Variant};
use crate::selection::Selection;
use crate::{bytes, entry, forms, lanes, lookups, parse, unroll, validate};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::Item;

/// The whole macro: parse, validate, expand. On any error, the input
/// (without its markers, which would otherwise be unknown attributes)
/// followed by the errors.
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
    let cipher = module.shell.ident.to_string();
    let variants = module.variants(args);
    let names: Vec<String> = variants.iter().map(|v| v.name.to_string()).collect();
    let rounds = &module.rounds;
    let reference = module.reference(args).map(|r| r.to_string());
    let mut items: Vec<Item> = vec![
        syn::parse_quote! {
            /// The variant ratios are taken against unless told otherwise.
            pub const REFERENCE: &str = #reference;
        },
        syn::parse_quote! {
            /// The variants of this module, in the order asked for; each names a child module.
            pub const VARIANTS: &[&str] = &[#(#names),*];
        },
        syn::parse_quote! {
            /// The `#[round]` functions, whose inline attribute differs between variants.
            pub const ROUNDS: &[&str] = &[#(#rounds),*];
        },
    ];
    items.extend(module.shared.iter().cloned());
    let mut errors = Errors::default();
    let selection = Selection::current();
    for variant in &variants {
        if !selection.keeps(&cipher, &variant.name.to_string()) {
            continue;
        }
        let own = variant
            .method
            .map_or(&[][..], |i| &module.methods[i].items[..]);
        let copied = module.per_variant.iter().chain(own);
        let lanes = module.has_lanes(variant);
        match child(&cipher, args.kind.as_ref(), variant, lanes, copied) {
            Ok(item) => items.push(item),
            Err(e) => errors.push(e),
        }
    }
    errors.finish()?;
    let mut shell = module.shell.clone();
    if let Some((_, content)) = &mut shell.content {
        *content = items;
    }
    // A build that selects one variant (`inlinelab_one`) keeps this module
    // only if the variant is one of its own.
    shell.attrs.push(syn::parse_quote! {
        #[cfg(any(not(inlinelab_one), inlinelab_cipher = #cipher))]
    });
    let macros = args
        .kind
        .as_ref()
        .map(|kind| callbacks(&cipher, kind, args.declaration.as_ref(), &variants));
    Ok(quote!(#shell #macros))
}

/// The callback macros other crates derive their lists from, exported at
/// the crate root: `<cipher>_variants!(cb)` calls
/// `cb! { cipher: NAME, kind: cipher(Type) | checksum, variants: [a b ...] }`;
/// `selected!(cb)`, defined only in a build that selects one of this
/// module's variants, calls `cb! { cipher: NAME, kind: ..., variant: v }`.
/// `<cipher>_variants!(@chain ...)` is a link of `all_algorithms!` (see
/// [`algorithms`]): it appends this module's declaration, if it has one,
/// and hands the list on to the next module's macro, the last to `cb!`.
fn callbacks(
    cipher: &str,
    kind: &Kind,
    declaration: Option<&Declaration>,
    variants: &[&Variant],
) -> TokenStream {
    let module = format_ident!("{}", cipher);
    let each = format_ident!("{}_variants", cipher);
    let kind = match kind {
        Kind::Cipher(ty) => quote!(cipher(#ty)),
        Kind::Checksum => quote!(checksum),
    };
    let names: Vec<&syn::Ident> = variants.iter().map(|v| &v.name).collect();
    let each_doc = format!(
        " Calls `$cb! {{ cipher: {cipher}, kind: ..., variants: [...] }}` with every variant of `{cipher}`."
    );
    let selected = variants.iter().map(|v| {
        let name = &v.name;
        let cfg = format!("{cipher}::{name}");
        quote! {
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = #cfg)]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => { $cb! { cipher: #module, kind: #kind, variant: #name } };
            }
        }
    });
    let own = declaration.map(|d| {
        let role = format_ident!("{}", d.role.name());
        let facts = &d.facts;
        quote!(#role { cipher: #module, kind: #kind, variants: [#(#names)*], #facts })
    });
    quote! {
        #[doc = #each_doc]
        #[macro_export]
        macro_rules! #each {
            ($cb:ident) => { $cb! { cipher: #module, kind: #kind, variants: [#(#names)*] } };
            (@chain [$cb:ident] [$($done:tt)*] [$next:ident $($rest:ident)*]) => {
                $crate::$next! { @chain [$cb] [$($done)* #own] [$($rest)*] }
            };
            (@chain [$cb:ident] [$($done:tt)*] []) => { $cb! { $($done)* #own } };
        }
        #(#selected)*
    }
}

/// `codegen::algorithms!(aes cast6 ...)`: the modules `variants` declares,
/// in order, each by its `#[codegen::variants]` module's name. Exports
/// `all_algorithms!(cb)`, which calls `cb! { ROLE { cipher: NAME, kind: ...,
/// variants: [...], FACTS } ... }` once, with the declaration (`entry(...)`
/// or `calibration(...)`) of every module that has one, in that order.
pub(crate) fn algorithms(input: TokenStream) -> syn::Result<TokenStream> {
    let modules = syn::parse::Parser::parse2(
        |s: syn::parse::ParseStream| {
            let mut out = Vec::new();
            while !s.is_empty() {
                out.push(s.parse::<syn::Ident>()?);
            }
            Ok(out)
        },
        input,
    )?;
    let links: Vec<syn::Ident> = modules
        .iter()
        .map(|m| format_ident!("{}_variants", m))
        .collect();
    let body = match links.split_first() {
        Some((first, rest)) => quote!($crate::#first! { @chain [$cb] [] [#(#rest)*] }),
        None => quote!($cb! {}),
    };
    Ok(quote! {
        /// Calls `$cb! { ROLE { cipher: NAME, kind: ..., variants: [...], FACTS } ... }`
        /// once, with the declaration of every algorithm that has one, in
        /// the order the crate lists them: every other crate's list of
        /// ciphers derives from it.
        #[macro_export]
        macro_rules! all_algorithms {
            ($cb:ident) => { #body };
        }
    })
}

/// `cfg_peer!(krate [seen ...] items...)`: the items, each behind
/// `#[cfg(feature = "peer-krate")]`; nothing when `krate` is among `seen`
/// (the crates earlier declarations named, whose items serve it already).
pub(crate) fn cfg_peer(input: TokenStream) -> syn::Result<TokenStream> {
    syn::parse::Parser::parse2(
        |s: syn::parse::ParseStream| {
            let krate: syn::Ident = s.parse()?;
            let seen;
            syn::bracketed!(seen in s);
            let mut already = false;
            while !seen.is_empty() {
                already |= seen.parse::<syn::Ident>()? == krate;
            }
            let feature = format!("peer-{krate}");
            let mut out = TokenStream::new();
            while !s.is_empty() {
                let item: Item = s.parse()?;
                if !already {
                    out.extend(quote!(#[cfg(feature = #feature)] #item));
                }
            }
            Ok(out)
        },
        input,
    )
}

/// The child module of one variant, holding `items`; with `lanes` (the
/// module has `#[lanes]` functions), `LANES` and, for a cipher, `Lanes`.
fn child<'a>(
    cipher: &str,
    kind: Option<&Kind>,
    variant: &Variant,
    lanes: bool,
    items: impl Iterator<Item = &'a Item>,
) -> syn::Result<Item> {
    let Variant {
        name, policy, form, ..
    } = variant;
    let mut doc = format!(
        " Variant `{name}`: every `#[round]` function has {}",
        policy.describe()
    );
    if let Some(f) = form {
        doc.push_str(&format!("; `#[shape]` functions have {}", f.describe()));
    }
    if variant.lane_blocks != 1 {
        let states = variant.states();
        doc.push_str(&format!(
            "; the `_lanes` copies of `#[lanes]` functions take {} blocks at once, {states} state{} of {}",
            variant.lanes,
            if states == 1 { "" } else { "s" },
            variant.lane_blocks
        ));
    } else if variant.lanes != 1 {
        doc.push_str(&format!(
            "; the `_lanes` copies of `#[lanes]` functions take {} blocks at once",
            variant.lanes
        ));
    }
    if variant.unrolled {
        doc.push_str("; `#[unroll]` loops are unrolled");
    }
    doc.push('.');
    let selector = format!("{cipher}::{name}");
    let name_str = name.to_string();
    let items: Vec<&Item> = items.collect();
    let callees = lanes::Callees::of(items.iter().copied());
    let mut out: Vec<Item> = Vec::new();
    for item in items {
        let mut item = item.clone();
        let entries = entry::names(&item);
        round(&mut item, *policy);
        forms::apply(&mut item, *form)?;
        bytes::apply(&mut item);
        // The `_lanes` copies are made first, so that they are unrolled as
        // the variant says while a lanes variant's one-block entries stay
        // rolled (`entry.rs`).
        let mut copies = lanes::apply(&mut item, &callees)?;
        // After the copies: the lanes rewrite reads the code as written.
        let rolled = if variant.lanes > 1 { &entries[..] } else { &[] };
        lookups::apply(&mut item);
        unroll::apply(&mut item, variant.unrolled, rolled)?;
        for copy in &mut copies {
            lookups::apply(copy);
            unroll::apply(copy, variant.unrolled, &[])?;
        }
        entry::apply(&mut item, &entries);
        out.push(item);
        out.extend(copies);
    }
    let lane_items = lanes.then(|| {
        let n = proc_macro2::Literal::usize_unsuffixed(variant.states());
        let per = proc_macro2::Literal::usize_unsuffixed(variant.lane_blocks);
        let typenum = format_ident!("U{}", variant.lanes);
        // A tail in pairs is worth it only with more than two lanes; for
        // the others not even a dead branch is emitted, so that their code
        // is what it was without pairs.
        let pairs = if variant.lanes > 2 {
            quote!($($t)*)
        } else {
            quote!()
        };
        let ty = matches!(kind, Some(Kind::Cipher(_))).then(|| {
            quote! {
                /// The blocks the `_lanes` copies take at once, as a type: the
                /// `ParBlocksSize` of this variant's cipher.
                pub type Lanes = ::cipher::consts::#typenum;
                /// Its input where this variant has more than two lanes, else
                /// nothing: `cipher_traits!`'s `tail_pairs`.
                #[allow(unused_macros)]
                macro_rules! over_two_lanes {
                    ($($t:tt)*) => { #pairs };
                }
            }
        });
        quote! {
            /// How many lane states the `_lanes` copies of `#[lanes]` functions take at once.
            pub const LANES: usize = #n;
            /// How many blocks one lane's state holds: the copies take `LANES * LANE_BLOCKS` blocks.
            pub const LANE_BLOCKS: usize = #per;
            #ty
        }
    });
    Ok(syn::parse_quote! {
        #[doc = #doc]
        #[cfg(any(not(inlinelab_one), inlinelab_variant = #selector))]
        pub mod #name {
            #![allow(unused_imports)]
            use super::*;
            /// This variant's name, as listed in `VARIANTS`.
            pub const VARIANT: &str = #name_str;
            #lane_items
            #(#out)*
        }
    })
}

/// Puts the policy's attribute in place of `#[round]` on the functions of
/// `item` it marks.
fn round(item: &mut Item, policy: Policy) {
    for f in items::fns_mut(item) {
        if Marker::Round.take(f.attrs) {
            let attr = policy.attribute();
            if !attr.is_empty() {
                f.attrs.push(syn::parse_quote!(#attr));
            }
        }
    }
}

/// The input with every marker removed, for the error path.
fn without_markers(input: TokenStream) -> TokenStream {
    let Ok(mut item) = syn::parse2::<Item>(input.clone()) else {
        return input;
    };
    if let Item::Mod(m) = &mut item
        && let Some((_, items)) = &mut m.content
    {
        markers::strip_all(items);
    }
    item.into_token_stream()
}
