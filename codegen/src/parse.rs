//! Token streams in, model out. Every error is spanned at the tokens it is
//! about; errors found together are reported together.

use crate::forms::Form;
use crate::model::{Args, Module, Policy, Variant};
use proc_macro2::{Span, TokenStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ImplItem, Item, Lit, Meta, Token};

/// Parses `always, never, ..., feature_gate = "prefix"`.
pub(crate) fn args(tokens: TokenStream) -> syn::Result<Args> {
    let metas =
        syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens)?;
    let mut variants: Vec<Variant> = Vec::new();
    let mut feature_gate = None;
    let mut errors = Errors::default();
    for meta in metas {
        match meta {
            Meta::Path(path) => {
                let Some(name) = path.get_ident() else {
                    errors.push(syn::Error::new_spanned(
                        &path,
                        format!("expected a variant name: {}", Policy::allowed()),
                    ));
                    continue;
                };
                let text = name.to_string();
                let parsed = match text.split_once('_') {
                    None => Policy::from_name(&text).map(|p| (p, None)),
                    Some((p, f)) => Policy::from_name(p)
                        .zip(Form::from_name(f))
                        .map(|(p, f)| (p, Some(f))),
                };
                let Some((policy, form)) = parsed else {
                    errors.push(syn::Error::new_spanned(
                        name,
                        format!(
                            "unknown variant `{name}`: expected a policy ({}), optionally followed by `_` and a branch form ({}), e.g. `never` or `never_factored`",
                            Policy::allowed(),
                            Form::allowed()
                        ),
                    ));
                    continue;
                };
                if variants.iter().any(|v| v.name == *name) {
                    errors.push(syn::Error::new_spanned(
                        name,
                        format!("duplicate variant `{name}`: each variant is asked for once"),
                    ));
                    continue;
                }
                variants.push(Variant {
                    name: name.clone(),
                    policy,
                    form,
                });
            }
            Meta::NameValue(nv) if nv.path.is_ident("feature_gate") => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) if !s.value().is_empty() => feature_gate = Some(s.value()),
                other => errors.push(syn::Error::new_spanned(
                    other,
                    "`feature_gate` takes a non-empty string, e.g. `feature_gate = \"cast6\"`",
                )),
            },
            other => errors.push(syn::Error::new_spanned(
                &other,
                format!(
                    "expected a variant name ({}) or `feature_gate = \"...\"`",
                    Policy::allowed()
                ),
            )),
        }
    }
    errors.finish()?;
    if variants.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            format!(
                "expected at least one variant: {}, e.g. `#[codegen::variants(always, never)]`",
                Policy::allowed()
            ),
        ));
    }
    Ok(Args {
        variants,
        feature_gate,
    })
}

/// Parses the annotated item: it must be an inline module.
pub(crate) fn module(tokens: TokenStream) -> syn::Result<Module> {
    let item: Item = syn::parse2(tokens)?;
    let mut shell = match item {
        Item::Mod(m) if m.content.is_some() => m,
        Item::Mod(m) => {
            return Err(syn::Error::new_spanned(
                &m,
                "`#[codegen::variants]` needs an inline module `mod name { ... }`, not a module in another file",
            ));
        }
        other => {
            return Err(syn::Error::new_spanned(
                item_head(&other),
                "`#[codegen::variants]` goes on an inline module `mod name { ... }`",
            ));
        }
    };
    let items = shell
        .content
        .as_mut()
        .map(|(_, items)| std::mem::take(items));
    let mut shared = Vec::new();
    let mut per_variant = Vec::new();
    let mut rounds = Vec::new();
    let mut shapes = Vec::new();
    let mut errors = Errors::default();
    for item in items.unwrap_or_default() {
        if is_shared(&item) {
            if let Some(attr) = item_attrs(&item)
                .iter()
                .find(|a| is_round(a) || is_shape(a))
            {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "`#[round]` and `#[shape]` go on a function; `use`, `static`, `const` and macro items are shared by all variants",
                ));
            }
            shared.push(item);
            continue;
        }
        match &item {
            Item::Fn(f) => {
                if f.attrs.iter().any(is_round) {
                    rounds.push(f.sig.ident.to_string());
                }
                if f.attrs.iter().any(is_shape) {
                    shapes.push(f.sig.ident.to_string());
                }
            }
            Item::Impl(imp) => {
                for ii in &imp.items {
                    let ImplItem::Fn(f) = ii else { continue };
                    let ty = &imp.self_ty;
                    let name = format!(
                        "{}::{}",
                        quote::quote!(#ty).to_string().replace(' ', ""),
                        f.sig.ident
                    );
                    if f.attrs.iter().any(is_round) {
                        rounds.push(name.clone());
                    }
                    if f.attrs.iter().any(is_shape) {
                        shapes.push(name);
                    }
                }
            }
            _ => {}
        }
        per_variant.push(item);
    }
    errors.finish()?;
    Ok(Module {
        shell,
        shared,
        per_variant,
        rounds,
        shapes,
    })
}

/// Items kept once in the parent module rather than copied into each variant.
fn is_shared(item: &Item) -> bool {
    match item {
        Item::Use(_) | Item::Static(_) | Item::Const(_) | Item::ExternCrate(_) => true,
        Item::Macro(m) => m.ident.is_some(), // `macro_rules! name { ... }`
        _ => false,
    }
}

pub(crate) fn is_round(attr: &Attribute) -> bool {
    attr.path().is_ident("round")
}

/// `#[shape]`: the function's `if`/`else` is what branch forms rewrite.
pub(crate) fn is_shape(attr: &Attribute) -> bool {
    attr.path().is_ident("shape")
}

pub(crate) fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

pub(crate) fn item_attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    Some(match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::ExternCrate(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::ForeignMod(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Macro(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::TraitAlias(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}

/// The tokens of an item's head (`fn name(...)`, `struct Name`), so that an
/// error on a wrongly annotated item does not underline its whole body.
fn item_head(item: &Item) -> TokenStream {
    use quote::ToTokens;
    match item {
        Item::Fn(f) => f.sig.to_token_stream(),
        Item::Struct(s) => s.ident.to_token_stream(),
        Item::Enum(e) => e.ident.to_token_stream(),
        Item::Trait(t) => t.ident.to_token_stream(),
        Item::Impl(i) => i.self_ty.to_token_stream(),
        other => other.to_token_stream(),
    }
}

/// Collects errors so that all of them are reported at once.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
