//! Checks on the parsed module that need all of it: at least one round, no
//! inline attribute the variant would contradict, no `#[round]` where it has no
//! meaning, no path whose meaning the extra module level would change.

use crate::expand::strip_round_markers;
use crate::model::{Args, Marked, Module, Policy};
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
    // The structural axes need something to rewrite: in the module, or in
    // the variant's method. A cross product is checked once, at its axis.
    let lists = std::iter::once((&args.variants, &args.axes, None)).chain(
        m.methods
            .iter()
            .map(|meth| (&meth.variants, &meth.axes, Some(&meth.marked))),
    );
    for (variants, axes, own) in lists {
        let has = |f: fn(&Marked) -> bool| f(&m.marked) || own.is_some_and(f);
        let shapes = has(|k| !k.shapes.is_empty());
        let lanes = has(|k| !k.lanes.is_empty());
        let unrolls = has(|k| k.unrolls > 0);
        if let Some(axes) = axes {
            if let Some(list) = axes.form.as_ref().filter(|_| !shapes) {
                errors.push(syn::Error::new_spanned(list, FORM_WITHOUT_SHAPE));
            }
            if let Some(list) = axes.lanes.as_ref().filter(|_| !lanes) {
                errors.push(syn::Error::new_spanned(list, LANES_WITHOUT_FN));
            }
            if let Some(list) = axes.unroll.as_ref().filter(|_| !unrolls) {
                errors.push(syn::Error::new_spanned(list, UNROLL_WITHOUT_LOOP));
            }
            continue;
        }
        for v in variants {
            let name = &v.name;
            if v.form.is_some() && !shapes {
                errors.push(syn::Error::new_spanned(
                    name,
                    format!("variant `{name}` asks for a branch form, but no function of the module is marked `#[shape]` for it to rewrite"),
                ));
            }
            if v.lanes != 1 && !lanes {
                errors.push(syn::Error::new_spanned(
                    name,
                    format!("variant `{name}` asks for {} lanes, but no function of the module is marked `#[lanes]` to copy for them", v.lanes),
                ));
            }
            if v.unrolled && !unrolls {
                errors.push(syn::Error::new_spanned(
                    name,
                    format!("variant `{name}` asks for unrolled loops, but no loop of the module is marked `#[unroll]`"),
                ));
            }
        }
    }
    errors.finish()
}

const FORM_WITHOUT_SHAPE: &str = "`form(...)` asks for branch forms, but no function of the module is marked `#[shape]` for them to rewrite";
const LANES_WITHOUT_FN: &str = "`lanes(...)` asks for lanes, but no function of the module is marked `#[lanes]` to copy for them";
const UNROLL_WITHOUT_LOOP: &str =
    "`unroll(...)` asks for unrolled loops, but no loop of the module is marked `#[unroll]`";

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
    let callees = crate::lanes::Callees::of(m.per_variant.iter().chain(method_items.clone()));
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
        crate::lanes::check(item, &callees, &mut errors);
        crate::unroll::check(item, &mut errors);
        let mut stripped = item.clone();
        strip_round_markers(&mut stripped, None);
        crate::expand::strip_shape_markers(&mut stripped);
        crate::lanes::strip(&mut stripped);
        // Marks a valid loop; a misplaced one is left for the finder.
        let _ = crate::unroll::apply(&mut stripped, false);
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
        if crate::lanes::is_lanes(attr) {
            self.errors.push(syn::Error::new_spanned(
                attr,
                "`#[lanes]` goes on a function at the top level of the module or on a method of an inherent `impl` block in it (its copy `<name>_lanes` is added beside it)",
            ));
        }
        if crate::lanes::is_lane(attr) {
            self.errors.push(syn::Error::new_spanned(
                attr,
                "`#[lane]` marks a parameter of a `#[lanes]` function: the value of one block, which its copy takes per lane",
            ));
        }
        if crate::unroll::is_unroll(attr) {
            self.errors.push(syn::Error::new_spanned(
                attr,
                "`#[unroll]` goes on a `for` loop over a range of integer literals, e.g. `#[unroll] for i in 0..12 { ... }`",
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
