//! The lanes axis: a function written for one block,
//!
//! ```ignore
//! #[lanes]
//! fn encrypt_state(&self, #[lane] s: &mut [u32; 4]) {
//!     for i in 0..12 {
//!         let k = &self.k[i];        // reads no lane value: runs once
//!         round(s, k);               // reads one: runs for every lane
//!     }
//! }
//! ```
//!
//! is kept as written, and every variant adds a copy `encrypt_state_lanes`
//! that takes `LANES` independent blocks at once (the variant's lane count,
//! `pub const LANES` of its module). Its `#[lane]` parameters become arrays
//! of one value per lane (`&mut [T; LANES]` for `&mut T`, `&[T; LANES]` for
//! `&T`, `[T; LANES]` for `T`), and so does its return type; its body is
//! rewritten statement by statement, round-major, so that the blocks'
//! dependency chains overlap:
//!
//! - a statement that reads no lane value is kept, once;
//! - a `let` whose initializer reads a lane value binds an array of one
//!   value per lane, `let x: [T; LANES] = core::array::from_fn(|lane| ...)`,
//!   and `x` is a lane value from there on;
//! - a `for`, `while`, `loop`, `if` or block whose header reads no lane
//!   value is kept and its body rewritten by the same rules (so each step
//!   of a round loop runs for all lanes before the next);
//! - a call of another free `#[lanes]` function of the module, `g(...)`
//!   as a statement, as `x = g(...)`/`*x = g(...)` of a whole lane value,
//!   as the initializer of a `let` or as the function's value, calls its
//!   copy `g_lanes(...)` once for all lanes, so the blocks interleave
//!   inside `g` too: each `#[lane]` argument is a whole lane value as the
//!   copy takes it (`x`, `&x`, `&mut x` or `*x`) and every other argument
//!   reads no lane value and has no side effects (names, literals, fields,
//!   indexing, `&`, operators, casts); `g` takes no other `&mut`. Any
//!   other call of `g` runs per lane, by the next rule;
//! - any other statement that reads a lane value runs once per lane,
//!   `for lane in 0..LANES { ... }`, with each lane value `x` read as
//!   `x[lane]` (`&mut x[lane]` where the original had a reference);
//! - the value the function returns is computed per lane, `from_fn`.
//!
//! Running a statement for every lane before the next is the same
//! computation only if lanes do not see each other: a statement run per
//! lane may change its lane's values and places bound inside it, nothing
//! else. Assigning to or borrowing mutably anything else, `return`, `?`,
//! `break`/`continue` out of the statement, a macro that mentions a lane
//! value, rebinding a lane value's name inside such a statement, a `let`
//! of lane values that binds a pattern or holds a `&mut` into them, and
//! `&mut self` are refused with a spanned error. (State changed through interior mutability or
//! `&mut`-taking methods of non-lane receivers cannot be seen in the
//! syntax: do not do that in a `#[lanes]` function.)
//!
//! This module makes the copy's signature and puts the copy beside the
//! original; [`rewrite`] rewrites the body, using [`subst`] for what runs
//! per lane and [`escape`] for what it refuses; [`scope`] answers what an
//! expression does with lane values, and [`callees`] names the functions
//! called on all lanes at once.

mod callees;
mod escape;
mod rewrite;
mod scope;
mod subst;

pub(crate) use callees::Callees;

use crate::errors::Errors;
use crate::items::{self, Made};
use crate::markers::{self, Marker};
use escape::NoReturn;
use proc_macro2::{Ident, Span};
use quote::{ToTokens, format_ident};
use rewrite::Rewrite;
use scope::{Scope, held, per_lane};
use syn::{Attribute, Block, FnArg, Item, Pat, Signature, Type};

/// Checks that every `#[lanes]` function of `item` can be rewritten.
pub(crate) fn check(item: &Item, callees: &Callees, errors: &mut Errors) {
    for f in items::fns(item).filter(|f| Marker::Lanes.marks(f.attrs, f.place)) {
        if let Err(e) = copy(f.attrs, f.sig, f.block, callees, Count::Variant) {
            errors.push(e);
        }
    }
}

/// Removes `#[lanes]` and its functions' `#[lane]` markers from `item`.
fn strip(item: &mut Item) {
    for f in items::fns_mut(item) {
        if Marker::Lanes.marks(f.attrs, f.place) {
            Marker::Lanes.take(f.attrs);
            for input in &mut f.sig.inputs {
                match input {
                    FnArg::Typed(t) => Marker::Lane.take(&mut t.attrs),
                    FnArg::Receiver(r) => Marker::Lane.take(&mut r.attrs),
                };
            }
        }
    }
}

/// Adds the `_lanes` copy of every `#[lanes]` function of `item`, then its
/// `_lanes_n` copy, and removes the markers: a method's copies follow it
/// in its `impl` (`_lanes` first, as it was before there were two); a
/// function's are returned, to follow `item`.
pub(crate) fn apply(item: &mut Item, callees: &Callees) -> syn::Result<Vec<Item>> {
    // The generic copy first: each is put right after the original, so the
    // `_lanes` copy ends up before it.
    let mut extra = Vec::new();
    for count in [Count::Any, Count::Variant] {
        let made = items::add_beside(item, |f| {
            if Marker::Lanes.marks(f.attrs, f.place) {
                copy(f.attrs, f.sig, f.block, callees, count).map(Some)
            } else {
                Ok(None)
            }
        })?;
        extra.extend(made);
    }
    extra.reverse();
    strip(item);
    Ok(extra)
}

/// The lane count a copy takes.
#[derive(Clone, Copy, PartialEq)]
enum Count {
    /// `LANES`, the variant's (`<name>_lanes`).
    Variant,
    /// Any, generic over `const LANES: usize` (`<name>_lanes_n`): a short
    /// tail's two blocks (`cipher_traits!`'s `tail_pairs`). Instantiated
    /// only where called, so a variant that does not call it has the same
    /// code as if it did not exist.
    Any,
}

impl Count {
    /// The copy's name's suffix, and so its callees'.
    fn suffix(self) -> &'static str {
        match self {
            Count::Variant => "_lanes",
            Count::Any => "_lanes_n",
        }
    }
}

/// The `_lanes` copy of a `#[lanes]` function: attributes, signature, body.
fn copy(
    attrs: &[Attribute],
    sig: &Signature,
    block: &Block,
    callees: &Callees,
    count: Count,
) -> syn::Result<Made> {
    plain(sig)?;
    let mut out = sig.clone();
    out.ident = format_ident!("{}{}", sig.ident, count.suffix(), span = sig.ident.span());
    if count == Count::Any {
        out.generics
            .params
            .push(syn::parse_quote!(const LANES: usize));
    }
    let scope = lane_params(&mut out)?;
    if scope.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.ident,
            "a `#[lanes]` function has at least one `#[lane]` parameter, the value of one block, e.g. `#[lane] state: &mut [u32; 4]`",
        ));
    }
    let returns = match &mut out.output {
        syn::ReturnType::Default => false,
        syn::ReturnType::Type(_, ty) => {
            if !sized(ty) {
                return Err(syn::Error::new_spanned(
                    &*ty,
                    "a `#[lanes]` function returns a sized, named type (or nothing): its copy returns one per lane",
                ));
            }
            **ty = per_lane(ty);
            true
        }
    };
    if let Some(e) = NoReturn::find(block) {
        return Err(e);
    }
    let rewrite = Rewrite {
        lane: Ident::new("lane", Span::mixed_site()),
        callees,
        suffix: count.suffix(),
    };
    let body = rewrite.block(block, &scope, returns)?;
    let doc = format!(
        " `{}` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.",
        sig.ident
    );
    let mut attrs: Vec<Attribute> = attrs
        .iter()
        .filter(|a| !Marker::Lanes.is(a) && !markers::is_doc(a))
        .cloned()
        .collect();
    attrs.insert(0, syn::parse_quote!(#[doc = #doc]));
    if count == Count::Any {
        // Called only by a variant that runs tails in pairs.
        attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    }
    Ok((attrs, out, body))
}

/// Errs unless `sig` is a plain `fn`.
fn plain(sig: &Signature) -> syn::Result<()> {
    let refuse = |tokens: &dyn ToTokens| {
        syn::Error::new_spanned(
            tokens,
            "a `#[lanes]` function is a plain `fn` (not `const`, `async`, `unsafe` or `extern`): its copy runs statements in closures and loops",
        )
    };
    if let Some(c) = &sig.constness {
        return Err(refuse(c));
    }
    if let Some(a) = &sig.asyncness {
        return Err(refuse(a));
    }
    if let Some(u) = &sig.unsafety {
        return Err(refuse(u));
    }
    if let Some(abi) = &sig.abi {
        return Err(refuse(abi));
    }
    Ok(())
}

/// Turns the `#[lane]` parameters of the copy's signature `out` into
/// arrays of one value per lane, removing their markers: the lane values
/// the body starts with.
fn lane_params(out: &mut Signature) -> syn::Result<Scope> {
    let mut scope = Scope::new();
    for input in &mut out.inputs {
        match input {
            FnArg::Receiver(r) => {
                if let Some(attr) = Marker::Lane.find(&r.attrs) {
                    return Err(syn::Error::new_spanned(
                        attr,
                        "`#[lane]` marks a parameter that holds one block's value, not `self`",
                    ));
                }
                if r.reference.is_some() && r.mutability.is_some() {
                    return Err(syn::Error::new_spanned(
                        &*r,
                        "a `#[lanes]` method takes `&self` or `self`, not `&mut self`: statements run for every lane in turn must not change what the other lanes read",
                    ));
                }
            }
            FnArg::Typed(t) => {
                if !Marker::Lane.take(&mut t.attrs) {
                    continue;
                }
                let p = match &*t.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p,
                    _ => {
                        return Err(syn::Error::new_spanned(
                            &t.pat,
                            "a `#[lane]` parameter is a plain name, e.g. `#[lane] state: &mut [u32; 4]`: its copy holds one value per lane",
                        ));
                    }
                };
                let (held, inner) = held(&t.ty);
                if !sized(inner) {
                    return Err(syn::Error::new_spanned(
                        &t.ty,
                        "a `#[lane]` parameter is `&mut T`, `&T` or `T` of a sized, named `T` (e.g. `&mut [u32; 4]`): its copy takes `[T; LANES]` in its place",
                    ));
                }
                let lanes = per_lane(inner);
                *t.ty = match &*t.ty {
                    Type::Reference(r) => {
                        let mut r = r.clone();
                        *r.elem = lanes;
                        Type::Reference(r)
                    }
                    _ => lanes,
                };
                scope.insert(p.ident.to_string(), held);
            }
        }
    }
    Ok(scope)
}

/// Whether `[ty; N]` can be written: `ty` is not a slice, `str`, trait
/// object, `impl Trait`, `_` or `!`.
fn sized(ty: &Type) -> bool {
    match ty {
        Type::Slice(_)
        | Type::TraitObject(_)
        | Type::ImplTrait(_)
        | Type::Infer(_)
        | Type::Never(_) => false,
        Type::Path(p) => !p.path.is_ident("str"),
        Type::Paren(p) => sized(&p.elem),
        Type::Group(g) => sized(&g.elem),
        _ => true,
    }
}
