//! Checks on the parsed module that need all of it: at least one round, no
//! inline attribute the variant would contradict, no marker where it has no
//! meaning, every `#[lanes]` function and `#[unroll]` loop one that can be
//! rewritten, no path whose meaning the extra module level would change. It
//! reads the model and changes nothing.

use crate::errors::Errors;
use crate::markers::{self, Marker};
use crate::model::{Args, Marked, Module, Policy};
use crate::{entry, items, lanes, unroll};
use proc_macro2::Span;
use syn::Attribute;
use syn::visit::Visit;

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
    structural_axes(args, m, &mut errors);
    lane_blocks(m, &mut errors);
    always_on_target_feature(args, m, &mut errors);
    errors.finish()
}

/// Rust refuses `#[inline(always)]` on a `#[target_feature]` function: a
/// `#[round]` with target features takes every policy but `always`. Each
/// such round is told once, with the first variant that would break it.
fn always_on_target_feature(args: &Args, m: &Module, errors: &mut Errors) {
    let lists = std::iter::once((&args.variants, &[][..])).chain(
        m.methods
            .iter()
            .map(|meth| (&meth.variants, &meth.items[..])),
    );
    for (variants, own) in lists {
        let Some(always) = variants.iter().find(|v| v.policy == Policy::Always) else {
            continue;
        };
        for item in m.per_variant.iter().chain(own) {
            for f in items::fns(item).filter(|f| Marker::Round.marks(f.attrs, f.place)) {
                if let Some(tf) = f.attrs.iter().find(|a| markers::is_target_feature(a)) {
                    errors.push(syn::Error::new_spanned(
                        tf,
                        format!(
                            "variant `{}` would put `#[inline(always)]` on this `#[round]`, which Rust refuses on a `#[target_feature]` function: leave `always` out of its policies",
                            always.name
                        ),
                    ));
                }
            }
        }
    }
}

/// A method whose lane states hold several blocks (`lane_blocks = N`)
/// takes lane counts that are multiples of it: each variant's `LANES` is a
/// whole number of states.
fn lane_blocks(m: &Module, errors: &mut Errors) {
    for meth in &m.methods {
        let mut said: Vec<usize> = Vec::new();
        for v in meth
            .variants
            .iter()
            .filter(|v| v.lanes % v.lane_blocks != 0)
        {
            if said.contains(&v.lanes) {
                continue;
            }
            said.push(v.lanes);
            let cause = format!(
                "variant `{}` asks for {} blocks, but each lane's state holds {} (`lane_blocks`): list multiples of it in `lanes(...)`",
                v.name, v.lanes, v.lane_blocks
            );
            errors.push(match meth.axes.as_ref().and_then(|a| a.lanes.as_ref()) {
                Some(list) => syn::Error::new_spanned(list, cause),
                None => syn::Error::new_spanned(&v.name, cause),
            });
        }
    }
}

/// The structural axes need something to rewrite: in the module, or in the
/// variant's method. A cross product is checked once, at its axis.
fn structural_axes(args: &Args, m: &Module, errors: &mut Errors) {
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
    let callees = lanes::Callees::of(m.per_variant.iter().chain(method_items.clone()));
    let own = m.per_variant.iter().map(|i| (i, false));
    for (item, super_allowed) in own.chain(method_items.map(|i| (i, true))) {
        for f in items::fns(item).filter(|f| Marker::Round.marks(f.attrs, f.place)) {
            if let Some(inline) = f.attrs.iter().find(|a| markers::is_inline(a)) {
                errors.push(syn::Error::new_spanned(
                    inline,
                    "remove this attribute: on a `#[round]` function each variant sets the inline attribute",
                ));
            }
        }
        for f in entry::entries(item) {
            if let Some(inline) = f.attrs.iter().find(|a| markers::is_inline(a)) {
                errors.push(syn::Error::new_spanned(
                    inline,
                    "remove this attribute: a `#[lanes]` function that is not a `#[round]` is the one-block path's entry, which every variant inlines into the block backend (its `_lanes` copy is left to the compiler)",
                ));
            }
        }
        lanes::check(item, &callees, &mut errors);
        unroll::check(item, &mut errors);
        let mut finder = Finder {
            errors: &mut errors,
            placed: markers::placed(item),
            super_allowed,
        };
        finder.visit_item(item);
    }
    errors.finish()
}

/// Finds a marker where it means nothing, and paths through `super`.
struct Finder<'a, 'i> {
    errors: &'a mut Errors,
    /// The markers of the item that are in their place.
    placed: Vec<&'i Attribute>,
    super_allowed: bool,
}

impl<'ast> Visit<'ast> for Finder<'_, '_> {
    fn visit_attribute(&mut self, attr: &'ast Attribute) {
        if self.placed.iter().any(|p| std::ptr::eq(*p, attr)) {
            return;
        }
        if let Some(message) = Marker::of(attr).and_then(Marker::misplaced) {
            self.errors.push(syn::Error::new_spanned(attr, message));
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
