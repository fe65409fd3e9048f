//! Checks on the parsed module that need all of it: at least one round, no
//! inline attribute the variant would contradict, no `#[round]` where it has no
//! meaning, no path whose meaning the extra module level would change.

use crate::expand::strip_round_markers;
use crate::model::{Args, Module, Policy};
use crate::parse::{Errors, is_round, is_shape};
use proc_macro2::Span;
use syn::visit::Visit;
use syn::{ImplItem, Item};

/// Checks that need both the arguments and the module.
pub(crate) fn args_against(args: &Args, m: &Module) -> syn::Result<()> {
    let mut errors = Errors::default();
    if let (Some(first), Some(method)) = (args.variants.first(), m.methods.first()) {
        errors.push(syn::Error::new_spanned(
            &first.name,
            format!(
                "this module has `#[method]` modules, which name their own variants (`#[method(never)] mod {}`): list the variants there",
                method.ident
            ),
        ));
    }
    if m.methods.is_empty() && args.variants.is_empty() {
        errors.push(syn::Error::new(
            Span::call_site(),
            format!(
                "expected at least one variant: {}, e.g. `#[codegen::variants(always, never)]`",
                Policy::allowed()
            ),
        ));
    }
    if let Some(r) = &args.reference
        && !m.variants(args).iter().any(|v| v.name == *r)
    {
        let names: Vec<String> = m
            .variants(args)
            .iter()
            .map(|v| v.name.to_string())
            .collect();
        errors.push(syn::Error::new_spanned(
            r,
            format!(
                "`reference` names a variant of this module: one of {}",
                names.join(", ")
            ),
        ));
    }
    for v in m.variants(args).into_iter().filter(|v| v.form.is_some()) {
        let method_shapes = v.method.map_or(0, |i| m.methods[i].shapes.len());
        if m.shapes.is_empty() && method_shapes == 0 {
            errors.push(syn::Error::new_spanned(
                &v.name,
                format!("variant `{}` asks for a branch form, but no function of the module is marked `#[shape]` for it to rewrite", v.name),
            ));
        }
    }
    errors.finish()
}

pub(crate) fn module(m: &Module) -> syn::Result<()> {
    let mut errors = Errors::default();
    if m.rounds.is_empty() {
        errors.push(syn::Error::new_spanned(
            &m.shell.ident,
            "no `#[round]` function in this module: mark the functions whose inlining the variants change with `#[round]`",
        ));
    }
    // Items of the module move one level down into each variant, where
    // `super` would mean the module; items of a `#[method]` module are
    // already one level down, where `super` means the module in both.
    let method_items = m.methods.iter().flat_map(|meth| &meth.items);
    let items = m.per_variant.iter().map(|i| (i, false));
    for (item, super_allowed) in items.chain(method_items.map(|i| (i, true))) {
        for attrs in round_fn_attrs(item) {
            if let Some(inline) = attrs.iter().find(|a| a.path().is_ident("inline")) {
                errors.push(syn::Error::new_spanned(
                    inline,
                    "remove this attribute: on a `#[round]` function each variant sets the inline attribute",
                ));
            }
        }
        let mut stripped = item.clone();
        strip_round_markers(&mut stripped, None);
        crate::expand::strip_shape_markers(&mut stripped);
        let mut finder = Finder {
            errors: &mut errors,
            super_allowed,
        };
        finder.visit_item(&stripped);
    }
    errors.finish()
}

/// The attribute lists of the round functions in `item`.
fn round_fn_attrs(item: &Item) -> Vec<&[syn::Attribute]> {
    match item {
        Item::Fn(f) if f.attrs.iter().any(is_round) => vec![&f.attrs[..]],
        Item::Impl(imp) => imp
            .items
            .iter()
            .filter_map(|ii| match ii {
                ImplItem::Fn(f) if f.attrs.iter().any(is_round) => Some(&f.attrs[..]),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Finds a `#[round]` left where it means nothing, and paths through `super`.
struct Finder<'a> {
    errors: &'a mut Errors,
    super_allowed: bool,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if is_round(attr) || is_shape(attr) {
            self.errors.push(syn::Error::new_spanned(
                attr,
                "`#[round]` and `#[shape]` go on a function at the top level of the module or on a method of an `impl` block in it",
            ));
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(first) = path.segments.first()
            && first.ident == "super"
            && !self.super_allowed
        {
            self.errors.push(super_error(&first.ident));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_use_path(&mut self, path: &'ast syn::UsePath) {
        if path.ident == "super" && !self.super_allowed {
            self.errors.push(super_error(&path.ident));
        }
        syn::visit::visit_use_path(self, path);
    }
}

fn super_error(tokens: &syn::Ident) -> syn::Error {
    syn::Error::new_spanned(
        tokens,
        "`super` means something else inside a variant module, which sits one level deeper: bring the item in with a `use` at the top of the module instead",
    )
}
