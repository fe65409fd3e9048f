//! Token streams in, model out. Every error is spanned at the tokens it is
//! about; errors found together are reported together.

use crate::forms::Form;
use crate::model::{Args, Kind, Method, Module, Policy, Variant};
use proc_macro2::{Ident, TokenStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ImplItem, Item, Meta, Token};

/// Parses `always, never, ..., cipher = Type` (or `checksum`).
pub(crate) fn args(tokens: TokenStream) -> syn::Result<Args> {
    let metas =
        syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens)?;
    let mut variants: Vec<Variant> = Vec::new();
    let mut kind = None;
    let mut reference = None;
    let mut errors = Errors::default();
    for meta in metas {
        match meta {
            Meta::Path(path) if path.is_ident("checksum") => kind = Some(Kind::Checksum),
            Meta::Path(path) => {
                let seen: Vec<&Variant> = variants.iter().collect();
                if let Some(v) = variant(&path, None, &seen, &mut errors) {
                    variants.push(v);
                }
            }
            Meta::NameValue(nv) if nv.path.is_ident("cipher") => match &nv.value {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    kind = p.path.get_ident().cloned().map(Kind::Cipher);
                }
                other => errors.push(syn::Error::new_spanned(
                    other,
                    "`cipher` takes the name of the type each variant defines, e.g. `cipher = Cast6`",
                )),
            },
            Meta::NameValue(nv) if nv.path.is_ident("reference") => match &nv.value {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    reference = p.path.get_ident().cloned();
                }
                other => errors.push(syn::Error::new_spanned(
                    other,
                    "`reference` takes the name of one of the variants, e.g. `reference = auto`",
                )),
            },
            other => errors.push(syn::Error::new_spanned(
                &other,
                format!(
                    "expected a variant name ({}), `cipher = Type`, `checksum` or `reference = variant`",
                    Policy::allowed()
                ),
            )),
        }
    }
    errors.finish()?;
    Ok(Args {
        variants,
        kind,
        reference,
    })
}

/// Parses a variant name, `policy[_form]`, as the variant of `method` (its
/// index and name) if given; `None` after pushing the error.
fn variant(
    path: &syn::Path,
    method: Option<(usize, &Ident)>,
    seen: &[&Variant],
    errors: &mut Errors,
) -> Option<Variant> {
    let Some(name) = path.get_ident() else {
        errors.push(syn::Error::new_spanned(
            path,
            format!("expected a variant name: {}", Policy::allowed()),
        ));
        return None;
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
        return None;
    };
    let full = match method {
        Some((_, m)) => Ident::new(&format!("{m}_{name}"), name.span()),
        None => name.clone(),
    };
    if seen.iter().any(|v| v.name == full) {
        errors.push(syn::Error::new_spanned(
            name,
            format!("duplicate variant `{name}`: each variant is asked for once"),
        ));
        return None;
    }
    Some(Variant {
        name: full,
        policy,
        form,
        method: method.map(|(i, _)| i),
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
    let mut methods = Vec::new();
    let mut names = Names::default();
    let mut errors = Errors::default();
    for item in items.unwrap_or_default() {
        if let Item::Mod(m) = &item
            && let Some(attr) = m.attrs.iter().find(|a| is_method(a))
        {
            let index = methods.len();
            if let Some(method) = method(m, attr, index, &methods, &mut names, &mut errors) {
                methods.push(method);
            }
            continue;
        }
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
        names.collect(&item);
        per_variant.push(item);
    }
    errors.finish()?;
    Ok(Module {
        shell,
        shared,
        per_variant,
        methods,
        rounds: names.rounds,
        shapes: names.shapes,
    })
}

/// The round and shape functions found so far.
#[derive(Default)]
struct Names {
    rounds: Vec<String>,
    shapes: Vec<String>,
}

impl Names {
    /// Notes the `#[round]` and `#[shape]` functions of `item`.
    fn collect(&mut self, item: &Item) {
        let mut note = |name: String, attrs: &[Attribute]| {
            if attrs.iter().any(is_round) && !self.rounds.contains(&name) {
                self.rounds.push(name.clone());
            }
            if attrs.iter().any(is_shape) {
                self.shapes.push(name);
            }
        };
        match item {
            Item::Fn(f) => note(f.sig.ident.to_string(), &f.attrs),
            Item::Impl(imp) => {
                let ty = &imp.self_ty;
                let ty = quote::quote!(#ty).to_string().replace(' ', "");
                for ii in &imp.items {
                    if let ImplItem::Fn(f) = ii {
                        note(format!("{ty}::{}", f.sig.ident), &f.attrs);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Parses `#[method(never, auto)] mod name { ... }`: its variants and items.
/// Its rounds join the module's; its shapes stay its own.
fn method(
    m: &syn::ItemMod,
    attr: &Attribute,
    index: usize,
    earlier: &[Method],
    names: &mut Names,
    errors: &mut Errors,
) -> Option<Method> {
    let Some((_, items)) = &m.content else {
        errors.push(syn::Error::new_spanned(
            &m.ident,
            "a `#[method]` module is written inline: `#[method(never)] mod name { ... }`",
        ));
        return None;
    };
    let metas = match attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
        Ok(metas) => metas,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let mut variants: Vec<Variant> = Vec::new();
    for meta in metas {
        let Meta::Path(path) = meta else {
            errors.push(syn::Error::new_spanned(
                meta,
                format!("expected a variant name ({})", Policy::allowed()),
            ));
            continue;
        };
        let seen: Vec<&Variant> = earlier
            .iter()
            .flat_map(|m| &m.variants)
            .chain(&variants)
            .collect();
        if let Some(v) = variant(&path, Some((index, &m.ident)), &seen, errors) {
            variants.push(v);
        }
    }
    if variants.is_empty() {
        errors.push(syn::Error::new_spanned(
            attr,
            format!(
                "a `#[method]` names its variants: e.g. `#[method({})]`",
                Policy::allowed()
            ),
        ));
    }
    let mut own = Names::default();
    for item in items {
        match item {
            Item::Static(s) => errors.push(syn::Error::new_spanned(
                &s.ident,
                "a `static` in a `#[method]` module would exist once per variant: put it in the enclosing module, where it exists once",
            )),
            Item::Mod(inner) if inner.attrs.iter().any(is_method) => {
                errors.push(syn::Error::new_spanned(
                    &inner.ident,
                    "`#[method]` modules do not nest: put this one beside the other",
                ))
            }
            _ => {}
        }
        own.collect(item);
    }
    for r in own.rounds {
        if !names.rounds.contains(&r) {
            names.rounds.push(r);
        }
    }
    Some(Method {
        ident: m.ident.clone(),
        items: items.clone(),
        variants,
        shapes: own.shapes,
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

/// `#[method(...)]` on an inline module: one way to compute the function.
pub(crate) fn is_method(attr: &Attribute) -> bool {
    attr.path().is_ident("method")
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

/// Collects errors so that all of them are reported at once. It must be
/// consumed by [`Errors::finish`]: dropping it unfinished is a bug in the
/// macro (errors that would go unreported), and panics.
#[derive(Default)]
pub(crate) struct Errors {
    all: Option<syn::Error>,
    finished: bool,
}

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(e),
            None => self.all = Some(e),
        }
    }

    pub(crate) fn finish(mut self) -> syn::Result<()> {
        self.finished = true;
        self.all.take().map_or(Ok(()), Err)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            panic!("codegen: collected errors dropped without Errors::finish");
        }
    }
}
