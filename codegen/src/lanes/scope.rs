//! The lane values of a `#[lanes]` body: how the copy holds each one, and
//! the questions the rewrite asks of an expression about them (which lane
//! value it names, whether it reads one, which names it binds, the variable
//! at the root of a place).

use proc_macro2::Ident;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Item, Pat, Type};

/// How the `_lanes` copy holds a lane value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Held {
    /// `x: [T; LANES]` (a `#[lane] x: T` parameter or a `let` of lane
    /// values): lane `l` is `x[l]`.
    Value,
    /// `x: &mut [T; LANES]` or `&[T; LANES]` (a `#[lane]` reference): lane
    /// `l` is the place `x[l]`, or the reference `&mut x[l]` as a value.
    Ref { mutable: bool },
}

/// The lane values in scope, by name.
pub(super) type Scope = HashMap<String, Held>;

/// How the copy holds a `#[lane]` parameter of type `ty`, and the type of
/// one lane's value.
pub(super) fn held(ty: &Type) -> (Held, &Type) {
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

/// `[ty; LANES]`.
pub(super) fn per_lane(ty: &Type) -> Type {
    syn::parse_quote_spanned!(ty.span()=> [#ty; LANES])
}

/// Names bound by a pattern.
pub(super) fn bound(pat: &Pat) -> HashSet<String> {
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
pub(super) fn bound_in_expr(e: &Expr) -> HashSet<String> {
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
pub(super) fn lane_of(e: &Expr, scope: &Scope) -> Option<(Ident, Held)> {
    match e {
        Expr::Path(p) if p.qself.is_none() => {
            let ident = p.path.get_ident()?;
            scope.get(&ident.to_string()).map(|h| (ident.clone(), *h))
        }
        _ => None,
    }
}

/// Whether `e` reads a lane value (or a macro in it mentions one).
pub(super) fn mentions(e: &Expr, scope: &Scope) -> bool {
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
pub(super) fn mentions_in_macro(m: &syn::Macro, scope: &Scope) -> Option<String> {
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

/// The variable at the root of a place expression: `x` of `x.a[i].b` or
/// `*x`.
pub(super) fn root(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => root(&f.base),
        Expr::Index(i) => root(&i.expr),
        Expr::Paren(p) => root(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => root(&u.expr),
        _ => None,
    }
}
