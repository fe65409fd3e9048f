//! The escape checks: what a `#[lanes]` body may not do, because run for
//! every lane in turn it would no longer compute the same (`return` and
//! `?` anywhere; in a statement run per lane, changing what is not its
//! lane's own, leaving the per-lane loop, a macro that mentions a lane
//! value).

use super::scope::{Scope, mentions_in_macro, root};
use crate::pure::is_assign_op;
use quote::ToTokens;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Block, Expr, Item};

pub(super) fn macro_error(mac: &syn::Macro, name: &str) -> syn::Error {
    syn::Error::new_spanned(
        mac,
        format!(
            "this macro mentions the lane value `{name}`, and a macro's tokens cannot be rewritten per lane: compute what it needs in a `let` first, or call a function"
        ),
    )
}

/// Errs on `return` and `?` anywhere in a `#[lanes]` body (outside
/// closures): neither can be rewritten per lane.
pub(super) struct NoReturn(Option<syn::Error>);

impl NoReturn {
    pub(super) fn find(b: &Block) -> Option<syn::Error> {
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
/// another's, or leave the per-lane loop: see the `lanes` module docs.
pub(super) fn check_escape(e: &Expr, scope: &Scope) -> syn::Result<()> {
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
