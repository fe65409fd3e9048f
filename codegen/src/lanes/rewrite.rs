//! The rewrite of a `#[lanes]` body, statement by statement (see the rules
//! in the parent module's docs): kept once, bound per lane, run per lane,
//! or called on all lanes at once.

use super::callees::Callees;
use super::escape::{check_escape, macro_error};
use super::scope::{
    Held, Scope, bound, bound_in_expr, lane_of, mentions, mentions_in_macro, per_lane, root,
};
use super::subst::subst;
use crate::pure::{Calls, pure};
use proc_macro2::Ident;
use quote::format_ident;
use syn::{Block, Expr, Pat, Stmt};

/// The rewrite of a `#[lanes]` body; `lane` is the index of the per-lane
/// loops and closures (hygienic: it cannot clash with the author's names).
pub(super) struct Rewrite<'c> {
    pub(super) lane: Ident,
    pub(super) callees: &'c Callees,
    /// The copies' suffix: a callee `g` is called as `g` and this.
    pub(super) suffix: &'static str,
}

impl Rewrite<'_> {
    /// A block, statement by statement; `value`: its tail expression is the
    /// function's value, computed per lane.
    pub(super) fn block(&self, b: &Block, outer: &Scope, value: bool) -> syn::Result<Block> {
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
    /// fit (see the `lanes` module docs).
    fn whole_call(&self, e: &Expr, scope: &Scope) -> Option<Expr> {
        let Expr::Call(call) = e else { return None };
        let Expr::Path(path) = &*call.func else {
            return None;
        };
        let name = path.path.get_ident().filter(|_| path.qself.is_none())?;
        let params = self.callees.params(&name.to_string())?;
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
        let lanes = format_ident!("{}{}", name, self.suffix, span = name.span());
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
