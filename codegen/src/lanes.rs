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

use crate::errors::Errors;
use crate::items::{self, Made, Place};
use crate::markers::{self, Marker};
use crate::pure::{Calls, is_assign_op, pure};
use proc_macro2::{Ident, Span};
use quote::{ToTokens, format_ident};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Attribute, Block, Expr, FnArg, Item, Pat, Signature, Stmt, Type};

/// Checks that every `#[lanes]` function of `item` can be rewritten.
pub(crate) fn check(item: &Item, callees: &Callees, errors: &mut Errors) {
    for f in items::fns(item).filter(|f| Marker::Lanes.marks(f.attrs, f.place)) {
        if let Err(e) = copy(f.attrs, f.sig, f.block, callees) {
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

/// Adds the `_lanes` copy of every `#[lanes]` function of `item` and removes
/// the markers: a method's copy follows it in its `impl`; a function's copy
/// is returned, to follow `item`.
pub(crate) fn apply(item: &mut Item, callees: &Callees) -> syn::Result<Option<Item>> {
    let extra = items::add_beside(item, |f| {
        if Marker::Lanes.marks(f.attrs, f.place) {
            copy(f.attrs, f.sig, f.block, callees).map(Some)
        } else {
            Ok(None)
        }
    })?;
    strip(item);
    Ok(extra)
}

/// How the `_lanes` copy holds a lane value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    /// `x: [T; LANES]` (a `#[lane] x: T` parameter or a `let` of lane
    /// values): lane `l` is `x[l]`.
    Value,
    /// `x: &mut [T; LANES]` or `&[T; LANES]` (a `#[lane]` reference): lane
    /// `l` is the place `x[l]`, or the reference `&mut x[l]` as a value.
    Ref { mutable: bool },
}

/// The lane values in scope, by name.
type Scope = HashMap<String, Held>;

/// How the copy holds a `#[lane]` parameter of type `ty`, and the type of
/// one lane's value.
fn held(ty: &Type) -> (Held, &Type) {
    match ty {
        Type::Reference(r) => (
            Held::Ref {
                mutable: r.mutability.is_some(),
            },
            &*r.elem,
        ),
        other => (Held::Value, other),
    }
}

/// The free `#[lanes]` functions of a module that a `#[lanes]` body calls
/// on all its lanes at once (see the module docs), by name: how the copy
/// holds each parameter, `None` for one that is not `#[lane]`.
#[derive(Default)]
pub(crate) struct Callees(HashMap<String, Vec<Option<Held>>>);

impl Callees {
    /// The callees among `items`: the free `#[lanes]` functions with no
    /// `&mut` parameter but their `#[lane]` ones (a `&mut` shared by all
    /// lanes would see the copy's once-run statements once, not per lane).
    pub(crate) fn of<'a>(all: impl IntoIterator<Item = &'a Item>) -> Self {
        let mut callees = HashMap::new();
        for f in all.into_iter().flat_map(items::fns) {
            if !matches!(f.place, Place::Free) || !Marker::Lanes.on(f.attrs) {
                continue;
            }
            let params: Option<Vec<Option<Held>>> = f
                .sig
                .inputs
                .iter()
                .map(|input| match input {
                    FnArg::Typed(t) if Marker::Lane.on(&t.attrs) => Some(Some(held(&t.ty).0)),
                    FnArg::Typed(t) => match &*t.ty {
                        Type::Reference(r) if r.mutability.is_some() => None,
                        _ => Some(None),
                    },
                    FnArg::Receiver(_) => None,
                })
                .collect();
            if let Some(params) = params {
                callees.insert(f.sig.ident.to_string(), params);
            }
        }
        Callees(callees)
    }
}

/// `[ty; LANES]`.
fn per_lane(ty: &Type) -> Type {
    syn::parse_quote_spanned!(ty.span()=> [#ty; LANES])
}

/// The `_lanes` copy of a `#[lanes]` function: attributes, signature, body.
fn copy(
    attrs: &[Attribute],
    sig: &Signature,
    block: &Block,
    callees: &Callees,
) -> syn::Result<Made> {
    plain(sig)?;
    let mut out = sig.clone();
    out.ident = format_ident!("{}_lanes", sig.ident, span = sig.ident.span());
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
    };
    let body = rewrite.block(block, &scope, returns)?;
    let doc = format!(
        " `{}` on `LANES` blocks at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.",
        sig.ident
    );
    let mut attrs: Vec<Attribute> = attrs
        .iter()
        .filter(|a| !Marker::Lanes.is(a) && !markers::is_doc(a))
        .cloned()
        .collect();
    attrs.insert(0, syn::parse_quote!(#[doc = #doc]));
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

/// The rewrite of a `#[lanes]` body; `lane` is the index of the per-lane
/// loops and closures (hygienic: it cannot clash with the author's names).
struct Rewrite<'c> {
    lane: Ident,
    callees: &'c Callees,
}

impl Rewrite<'_> {
    /// A block, statement by statement; `value`: its tail expression is the
    /// function's value, computed per lane.
    fn block(&self, b: &Block, outer: &Scope, value: bool) -> syn::Result<Block> {
        let mut scope = outer.clone();
        let mut stmts = Vec::with_capacity(b.stmts.len());
        let last = b.stmts.len().checked_sub(1);
        for (i, stmt) in b.stmts.iter().enumerate() {
            match stmt {
                Stmt::Expr(e, None) if value && Some(i) == last => {
                    stmts.push(Stmt::Expr(self.per_lane_value(e, &scope)?, None));
                }
                Stmt::Local(local) => stmts.push(self.local(local, &mut scope)?),
                Stmt::Item(_) => stmts.push(stmt.clone()),
                Stmt::Macro(m) => {
                    if let Some(name) = mentions_in_macro(&m.mac, &scope) {
                        return Err(macro_error(&m.mac, &name));
                    }
                    stmts.push(stmt.clone());
                }
                Stmt::Expr(e, semi) => {
                    if let Some(e) = self.whole_statement(e, &scope) {
                        stmts.push(Stmt::Expr(e, *semi));
                    } else if mentions(e, &scope) {
                        let (e, per_lane) = self.statement(e, &scope)?;
                        // A statement run per lane is a `for` loop, a
                        // statement that needs no `;`.
                        stmts.push(Stmt::Expr(e, if per_lane { None } else { *semi }));
                    } else {
                        stmts.push(stmt.clone());
                    }
                }
            }
        }
        Ok(Block {
            brace_token: b.brace_token,
            stmts,
        })
    }

    /// A `let`: of lane values, an array of one per lane; else kept, its
    /// names no longer lane values.
    fn local(&self, local: &syn::Local, scope: &mut Scope) -> syn::Result<Stmt> {
        let Some(init) = local
            .init
            .as_ref()
            .filter(|init| mentions(&init.expr, scope))
        else {
            for name in bound(&local.pat) {
                scope.remove(&name);
            }
            if let Some(init) = &local.init
                && let Some((_, diverge)) = &init.diverge
                && mentions(diverge, scope)
            {
                return Err(let_error(&local.pat));
            }
            return Ok(Stmt::Local(local.clone()));
        };
        if init.diverge.is_some() {
            return Err(let_error(&local.pat));
        }
        let whole = self.whole_call(&init.expr, scope);
        let (ident, ty) = match &local.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p, None),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p, Some(&*t.ty)),
                _ => return Err(let_error(&local.pat)),
            },
            _ => return Err(let_error(&local.pat)),
        };
        if let Some(place) = mutable_borrow(&init.expr, scope) {
            return Err(syn::Error::new_spanned(
                place,
                "a `let` of lane values holds one value per lane, not a `&mut` into them: change the lane values in place, or copy them out",
            ));
        }
        let lane = &self.lane;
        let value = match whole {
            Some(call) => call,
            None => {
                check_escape(&init.expr, scope)?;
                let value = subst(&init.expr, scope, lane);
                syn::parse_quote!(::core::array::from_fn(|#lane| #value))
            }
        };
        let ty = match ty {
            Some(ty) => per_lane(ty),
            None => syn::parse_quote!([_; LANES]),
        };
        let mut out = local.clone();
        out.pat = Pat::Type(syn::PatType {
            attrs: Vec::new(),
            pat: Box::new(Pat::Ident(ident.clone())),
            colon_token: Default::default(),
            ty: Box::new(ty),
        });
        if let Some(init) = &mut out.init {
            *init.expr = value;
        }
        scope.insert(ident.ident.to_string(), Held::Value);
        Ok(Stmt::Local(out))
    }

    /// A statement that reads a lane value: kept with its body rewritten
    /// when its header reads none, else run per lane (`true`).
    fn statement(&self, e: &Expr, scope: &Scope) -> syn::Result<(Expr, bool)> {
        let kept = |e: Expr| Ok((e, false));
        match e {
            Expr::ForLoop(f) if !mentions(&f.expr, scope) => {
                let mut inner = scope.clone();
                for name in bound(&f.pat) {
                    inner.remove(&name);
                }
                let mut f = f.clone();
                f.body = self.block(&f.body, &inner, false)?;
                kept(Expr::ForLoop(f))
            }
            Expr::While(w) if !mentions(&w.cond, scope) => {
                let mut inner = scope.clone();
                for name in bound_in_expr(&w.cond) {
                    inner.remove(&name);
                }
                let mut w = w.clone();
                w.body = self.block(&w.body, &inner, false)?;
                kept(Expr::While(w))
            }
            Expr::Loop(l) => {
                let mut l = l.clone();
                l.body = self.block(&l.body, scope, false)?;
                kept(Expr::Loop(l))
            }
            Expr::If(i) if !mentions(&i.cond, scope) => {
                let mut inner = scope.clone();
                for name in bound_in_expr(&i.cond) {
                    inner.remove(&name);
                }
                let mut i = i.clone();
                i.then_branch = self.block(&i.then_branch, &inner, false)?;
                if let Some((_, other)) = &mut i.else_branch {
                    let (e, _) = if mentions(other, scope) {
                        self.statement(other, scope)?
                    } else {
                        ((**other).clone(), false)
                    };
                    **other = match e {
                        e @ (Expr::If(_) | Expr::Block(_)) => e,
                        e => syn::parse_quote!({ #e }),
                    };
                }
                kept(Expr::If(i))
            }
            Expr::Block(b) => {
                let mut b = b.clone();
                b.block = self.block(&b.block, scope, false)?;
                kept(Expr::Block(b))
            }
            Expr::Unsafe(u) => {
                let mut u = u.clone();
                u.block = self.block(&u.block, scope, false)?;
                kept(Expr::Unsafe(u))
            }
            _ => {
                check_escape(e, scope)?;
                let lane = &self.lane;
                let body = subst(e, scope, lane);
                Ok((syn::parse_quote!(for #lane in 0..LANES { #body; }), true))
            }
        }
    }

    /// The function's value, one per lane.
    fn per_lane_value(&self, e: &Expr, scope: &Scope) -> syn::Result<Expr> {
        if !mentions(e, scope) {
            return Ok(syn::parse_quote!(::core::array::from_fn(|_| #e)));
        }
        if let Some(call) = self.whole_call(e, scope) {
            return Ok(call);
        }
        check_escape(e, scope)?;
        let lane = &self.lane;
        let value = subst(e, scope, lane);
        Ok(syn::parse_quote!(::core::array::from_fn(|#lane| #value)))
    }
}

impl Rewrite<'_> {
    /// A statement that calls a callee on all lanes at once: `g(...)`, or
    /// `x = g(...)` or `*x = g(...)` of a whole lane value `x`.
    fn whole_statement(&self, e: &Expr, scope: &Scope) -> Option<Expr> {
        if let Expr::Assign(a) = e {
            let whole_place = match &*a.left {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                    matches!(
                        lane_of(&u.expr, scope),
                        Some((_, Held::Ref { mutable: true }))
                    )
                }
                left => matches!(lane_of(left, scope), Some((_, Held::Value))),
            };
            let call = whole_place.then(|| self.whole_call(&a.right, scope))??;
            let mut a = a.clone();
            *a.right = call;
            return Some(Expr::Assign(a));
        }
        self.whole_call(e, scope)
    }

    /// `g(...)` as `g_lanes(...)`, when `g` is a callee and the arguments
    /// fit (see the module docs).
    fn whole_call(&self, e: &Expr, scope: &Scope) -> Option<Expr> {
        let Expr::Call(call) = e else { return None };
        let Expr::Path(path) = &*call.func else {
            return None;
        };
        let name = path.path.get_ident().filter(|_| path.qself.is_none())?;
        let params = self.callees.0.get(&name.to_string())?;
        if params.len() != call.args.len() {
            return None;
        }
        let fits = params
            .iter()
            .zip(&call.args)
            .all(|(param, arg)| match param {
                Some(want) => whole_lane_argument(arg, *want, scope),
                None => !mentions(arg, scope) && pure(arg, Calls::None),
            });
        if !fits {
            return None;
        }
        let mut call = call.clone();
        let lanes = format_ident!("{}_lanes", name, span = name.span());
        call.func = Box::new(syn::parse_quote!(#lanes));
        Some(Expr::Call(call))
    }
}

/// Whether `arg` passes a whole lane value as a callee's copy takes a
/// parameter held as `want`: `x` as it is held, `&mut x`/`&x` of a value
/// for a reference, `*x` of a reference for a value.
fn whole_lane_argument(arg: &Expr, want: Held, scope: &Scope) -> bool {
    let lane = |e: &Expr| lane_of(e, scope).map(|(_, held)| held);
    match (arg, want) {
        (Expr::Reference(r), Held::Ref { mutable }) => {
            r.mutability.is_some() == mutable && lane(&r.expr) == Some(Held::Value)
        }
        (Expr::Unary(u), Held::Value) if matches!(u.op, syn::UnOp::Deref(_)) => {
            matches!(lane(&u.expr), Some(Held::Ref { .. }))
        }
        (arg, Held::Ref { mutable: true }) => lane(arg) == Some(Held::Ref { mutable: true }),
        (arg, Held::Ref { mutable: false }) => matches!(lane(arg), Some(Held::Ref { .. })),
        (arg, Held::Value) => lane(arg) == Some(Held::Value),
    }
}

/// `e` itself if it is a `&mut` into a lane value: `&mut x...` or a
/// `#[lane] x: &mut T` as it is. Bound per lane, it would have to outlive
/// the closure that makes it.
fn mutable_borrow<'e>(e: &'e Expr, scope: &Scope) -> Option<&'e Expr> {
    match e {
        Expr::Paren(p) => mutable_borrow(&p.expr, scope),
        Expr::Reference(r)
            if r.mutability.is_some()
                && root(&r.expr).is_some_and(|name| scope.contains_key(&name)) =>
        {
            Some(e)
        }
        _ => match lane_of(e, scope) {
            Some((_, Held::Ref { mutable: true })) => Some(e),
            _ => None,
        },
    }
}

fn let_error(pat: &Pat) -> syn::Error {
    syn::Error::new_spanned(
        pat,
        "a `let` of lane values binds one name (`let x = ...` or `let x: T = ...`, no `else`): it becomes an array of one value per lane",
    )
}

fn macro_error(mac: &syn::Macro, name: &str) -> syn::Error {
    syn::Error::new_spanned(
        mac,
        format!(
            "this macro mentions the lane value `{name}`, and a macro's tokens cannot be rewritten per lane: compute what it needs in a `let` first, or call a function"
        ),
    )
}

/// Names bound by a pattern.
fn bound(pat: &Pat) -> HashSet<String> {
    struct B(HashSet<String>);
    impl<'a> Visit<'a> for B {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut b = B(HashSet::new());
    b.visit_pat(pat);
    b.0
}

/// Names bound by the `let` patterns of a condition (`if let`, `while let`).
fn bound_in_expr(e: &Expr) -> HashSet<String> {
    struct B(HashSet<String>);
    impl<'a> Visit<'a> for B {
        fn visit_expr_let(&mut self, l: &'a syn::ExprLet) {
            self.0.extend(bound(&l.pat));
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut b = B(HashSet::new());
    b.visit_expr(e);
    b.0
}

/// The lane value `e` names, if it is one: a path that is a single name in
/// scope.
fn lane_of(e: &Expr, scope: &Scope) -> Option<(Ident, Held)> {
    match e {
        Expr::Path(p) if p.qself.is_none() => {
            let ident = p.path.get_ident()?;
            scope.get(&ident.to_string()).map(|h| (ident.clone(), *h))
        }
        _ => None,
    }
}

/// Whether `e` reads a lane value (or a macro in it mentions one).
fn mentions(e: &Expr, scope: &Scope) -> bool {
    struct M<'s>(&'s Scope, bool);
    impl<'a> Visit<'a> for M<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.1 || lane_of(e, self.0).is_some() {
                self.1 = true;
                return;
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.1 |= mentions_in_macro(m, self.0).is_some();
        }
        fn visit_item(&mut self, _: &'a Item) {}
    }
    let mut m = M(scope, false);
    m.visit_expr(e);
    m.1
}

/// A lane value a macro's tokens mention.
fn mentions_in_macro(m: &syn::Macro, scope: &Scope) -> Option<String> {
    fn walk(tokens: proc_macro2::TokenStream, scope: &Scope) -> Option<String> {
        tokens.into_iter().find_map(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => {
                let name = i.to_string();
                scope.contains_key(&name).then_some(name)
            }
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), scope),
            _ => None,
        })
    }
    walk(m.tokens.clone(), scope)
}

/// `e` with every lane value read as one lane's: `x[lane]`, or
/// `&mut x[lane]` for a lane reference used as a value.
fn subst(e: &Expr, scope: &Scope, lane: &Ident) -> Expr {
    let mut e = e.clone();
    Subst { scope, lane }.visit_expr_mut(&mut e);
    e
}

struct Subst<'a> {
    scope: &'a Scope,
    lane: &'a Ident,
}

impl Subst<'_> {
    /// `x[lane]` when `e` is the lane value `x`.
    fn index(&self, e: &Expr) -> Option<Expr> {
        let (x, _) = lane_of(e, self.scope)?;
        let lane = self.lane;
        Some(syn::parse_quote_spanned!(x.span()=> #x[#lane]))
    }
}

impl VisitMut for Subst<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // Places of a lane reference: `*x`, `x.m()`, `x.f`, `x[i]`.
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                if let Some((_, Held::Ref { .. })) = lane_of(&u.expr, self.scope)
                    && let Some(place) = self.index(&u.expr)
                {
                    *e = place;
                    return;
                }
            }
            Expr::MethodCall(m) => {
                if let Some(place) = self.index(&m.receiver) {
                    *m.receiver = place;
                    for arg in &mut m.args {
                        self.visit_expr_mut(arg);
                    }
                    return;
                }
            }
            Expr::Field(f) => {
                if let Some(place) = self.index(&f.base) {
                    *f.base = place;
                    return;
                }
            }
            Expr::Index(i) => {
                if let Some(place) = self.index(&i.expr) {
                    *i.expr = place;
                    self.visit_expr_mut(&mut i.index);
                    return;
                }
            }
            Expr::Path(_) => {
                if let Some((x, held)) = lane_of(e, self.scope)
                    && let Some(place) = self.index(e)
                {
                    *e = match held {
                        Held::Value => place,
                        Held::Ref { mutable: true } => {
                            syn::parse_quote_spanned!(x.span()=> &mut #place)
                        }
                        Held::Ref { mutable: false } => {
                            syn::parse_quote_spanned!(x.span()=> &#place)
                        }
                    };
                    return;
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    /// `S { x }` becomes `S { x: x[lane] }`.
    fn visit_field_value_mut(&mut self, fv: &mut syn::FieldValue) {
        if fv.colon_token.is_none() && lane_of(&fv.expr, self.scope).is_some() {
            fv.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, fv);
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// Errs on `return` and `?` anywhere in a `#[lanes]` body (outside
/// closures): neither can be rewritten per lane.
struct NoReturn(Option<syn::Error>);

impl NoReturn {
    fn find(b: &Block) -> Option<syn::Error> {
        let mut v = NoReturn(None);
        v.visit_block(b);
        v.0
    }
}

impl<'a> Visit<'a> for NoReturn {
    fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
        self.0.get_or_insert_with(|| {
            syn::Error::new_spanned(
                r,
                "a `#[lanes]` function ends with its value, without `return` or `?`: its copy computes every lane's value at the end",
            )
        });
    }

    fn visit_expr_try(&mut self, t: &'a syn::ExprTry) {
        self.0.get_or_insert_with(|| {
            syn::Error::new(
                t.question_token.span(),
                "a `#[lanes]` function ends with its value, without `return` or `?`: its copy computes every lane's value at the end",
            )
        });
        syn::visit::visit_expr_try(self, t);
    }

    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}

    fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}

    fn visit_item(&mut self, _: &'a Item) {}
}

/// Errs when a statement run per lane could let one lane's values reach
/// another's, or leave the per-lane loop: see the module docs.
fn check_escape(e: &Expr, scope: &Scope) -> syn::Result<()> {
    // Names bound inside the statement are its own, per lane.
    struct Locals(HashSet<String>, HashSet<String>);
    impl<'a> Visit<'a> for Locals {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_label(&mut self, l: &'a syn::Label) {
            self.1.insert(l.name.ident.to_string());
        }
        fn visit_item(&mut self, _: &'a Item) {}
    }
    let mut locals = Locals(HashSet::new(), HashSet::new());
    locals.visit_expr(e);
    let mut v = Escape {
        scope,
        locals: &locals.0,
        labels: &locals.1,
        loops: 0,
        error: None,
    };
    v.visit_expr(e);
    v.error.map_or(Ok(()), Err)
}

struct Escape<'a> {
    scope: &'a Scope,
    locals: &'a HashSet<String>,
    labels: &'a HashSet<String>,
    /// Loops (and closures) entered inside the statement.
    loops: usize,
    error: Option<syn::Error>,
}

impl Escape<'_> {
    fn fail(&mut self, tokens: &dyn ToTokens, message: String) {
        if self.error.is_none() {
            self.error = Some(syn::Error::new_spanned(tokens, message));
        }
    }

    /// Errs unless the place `e` is a lane value's or the statement's own.
    fn own_place(&mut self, e: &Expr, what: &str) {
        if matches!(e, Expr::Infer(_)) {
            return;
        }
        match root(e) {
            Some(name) if self.scope.contains_key(&name) || self.locals.contains(&name) => {}
            Some(name) => self.fail(
                e,
                format!(
                    "this statement reads lane values and runs once per lane, so it cannot {what} `{name}`, which is not per lane: bind the result to a new name with `let` (it becomes per lane), or keep lane values out of this statement"
                ),
            ),
            None => self.fail(
                e,
                format!(
                    "this statement reads lane values and runs once per lane, so it can only {what} its lane's values and the names it binds itself"
                ),
            ),
        }
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self)) {
        self.loops += 1;
        f(self);
        self.loops -= 1;
    }
}

impl<'a> Visit<'a> for Escape<'_> {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        if self.scope.contains_key(&p.ident.to_string()) {
            self.fail(
                &p.ident,
                format!(
                    "`{}` is a lane value; binding the name again inside a statement that reads lane values cannot be rewritten per lane: use another name",
                    p.ident
                ),
            );
        }
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        self.own_place(&a.left, "assign to");
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
        if is_assign_op(&b.op) {
            self.own_place(&b.left, "assign to");
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
        if r.mutability.is_some() && root(&r.expr).is_some() {
            self.own_place(&r.expr, "borrow mutably");
        }
        syn::visit::visit_expr_reference(self, r);
    }

    fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
        let leaves = match &b.label {
            Some(l) => !self.labels.contains(&l.ident.to_string()),
            None => self.loops == 0,
        };
        if leaves {
            self.fail(
                b,
                "this statement reads lane values and runs once per lane: a `break` out of it cannot be rewritten".to_string(),
            );
        }
        syn::visit::visit_expr_break(self, b);
    }

    fn visit_expr_continue(&mut self, c: &'a syn::ExprContinue) {
        let leaves = match &c.label {
            Some(l) => !self.labels.contains(&l.ident.to_string()),
            None => self.loops == 0,
        };
        if leaves {
            self.fail(
                c,
                "this statement reads lane values and runs once per lane: a `continue` out of it cannot be rewritten".to_string(),
            );
        }
    }

    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        self.visit_pat(&f.pat);
        self.visit_expr(&f.expr);
        self.nested(|v| v.visit_block(&f.body));
    }

    fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
        self.visit_expr(&w.cond);
        self.nested(|v| v.visit_block(&w.body));
    }

    fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
        self.nested(|v| v.visit_block(&l.body));
    }

    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        // `break` cannot leave a closure; what it assigns still counts.
        self.nested(|v| syn::visit::visit_expr_closure(v, c));
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if let Some(name) = mentions_in_macro(m, self.scope)
            && self.error.is_none()
        {
            self.error = Some(macro_error(m, &name));
        }
    }

    fn visit_item(&mut self, _: &'a Item) {}
}

/// The variable at the root of a place expression: `x` of `x.a[i].b` or
/// `*x`.
fn root(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => root(&f.base),
        Expr::Index(i) => root(&i.expr),
        Expr::Paren(p) => root(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => root(&u.expr),
        _ => None,
    }
}
